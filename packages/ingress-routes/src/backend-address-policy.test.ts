import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKEND_ADDRESS_POLICY, refusedBackendAddress } from '@ingresskit/route-model';
import { resolveServiceBackend } from './service-backend.js';
import { endpointSlice, externalService, service } from './testing/fixtures.js';

const policy = DEFAULT_BACKEND_ADDRESS_POLICY;
const app = { namespace: 'tenant', name: 'app', port: 80 };

describe('refusedBackendAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['FEBF::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
  ])('refuses %s as a %s address', (address, kind) => {
    expect(refusedBackendAddress(address, 80, policy)).toBe(
      `${address} is ${kind === 'unspecified' ? 'an' : 'a'} ${kind} address`,
    );
  });

  it.each([
    ['0:0:0:0:0:0:0:1', '::1', 'a loopback'],
    ['::ffff:127.0.0.1', '127.0.0.1', 'a loopback'],
    ['::ffff:7f00:1', '127.0.0.1', 'a loopback'],
    ['[::1]', '::1', 'a loopback'],
    ['127.1', '127.0.0.1', 'a loopback'],
    ['0x7f.0.0.1', '127.0.0.1', 'a loopback'],
    ['0177.0.0.1', '127.0.0.1', 'a loopback'],
    ['2130706433', '127.0.0.1', 'a loopback'],
    ['0', '0.0.0.0', 'an unspecified'],
    ['::ffff:169.254.169.254', '169.254.169.254', 'a link-local'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254', 'a link-local'],
    ['fe80::1%eth0', 'fe80::1', 'a link-local'],
  ])('refuses %s, another spelling of %s, as %s address', (address, canonical, kind) => {
    expect(refusedBackendAddress(address, 80, policy)).toBe(`${address} (${canonical}) is ${kind} address`);
  });

  it.each([
    ['fd00:ec2::254', 'AWS'],
    ['fd00:ec2::23', 'AWS'],
    ['fd20:ce::254', 'Google'],
    ['168.63.129.16', 'Azure'],
    ['100.100.100.200', 'Alibaba'],
    ['192.0.0.192', 'Oracle'],
    ['fd00:c1::a9fe:a9fe', 'Oracle'],
    ['fd00:42::42', 'Scaleway'],
    ['fd00:a9fe:a9fe::1', 'Akamai'],
  ])('refuses the cloud metadata address %s (%s)', (address, cloud) => {
    const refusal = refusedBackendAddress(address, 80, policy);
    expect(refusal).toMatch(
      new RegExp(`^${address.replaceAll('.', '\\.')} is a cloud metadata address \\(.*${cloud}`),
    );
  });

  it('refuses metadata addresses in every spelling', () => {
    for (const address of [
      'FD00:0EC2:0:0:0:0:0:254',
      '::ffff:100.100.100.200',
      '::ffff:a83f:8110',
      '0250.077.0201.020',
    ])
      expect(refusedBackendAddress(address, 80, policy)).toMatch(/is a cloud metadata address/);
  });

  it('judges the IPv4 address a NAT64 or IPv4-compatible address carries', () => {
    expect(refusedBackendAddress('64:ff9b::a9fe:a9fe', 80, policy)).toBe(
      '64:ff9b::a9fe:a9fe carries 169.254.169.254 is a link-local address',
    );
    expect(refusedBackendAddress('::127.0.0.1', 80, policy)).toBe(
      '::127.0.0.1 (::7f00:1) carries 127.0.0.1 is a loopback address',
    );
    expect(refusedBackendAddress('64:ff9b::808:808', 80, policy)).toBeUndefined();
  });

  it.each(['localhost', 'LOCALHOST', 'api.localhost'])('refuses the loopback name %s', (name) => {
    expect(refusedBackendAddress(name, 80, policy)).toBe(`${name} is a loopback name`);
  });

  it.each([
    '10.0.0.1',
    '128.0.0.1',
    '169.255.0.1',
    'fec0::1',
    '2001:db8::1',
    'fd00:ec3::254',
    '100.100.100.201',
    'db.example.com',
    'localhost.example',
    '0x7f.example',
    '1.2.3.4.5',
  ])('lets %s through', (address) => {
    expect(refusedBackendAddress(address, 80, policy)).toBeUndefined();
  });

  it("refuses the gateway pod's own addresses, in any spelling", () => {
    const own = { ...policy, forbiddenAddresses: new Set(['10.1.2.3', 'fd00::5']) };
    expect(refusedBackendAddress('10.1.2.3', 80, own)).toBe(
      "10.1.2.3 is an address of the gateway's own pod",
    );
    for (const spelling of [
      '::ffff:10.1.2.3',
      '::ffff:a01:203',
      '10.66051',
      '012.1.2.3',
      'FD00:0:0:0:0:0:0:5',
      'fd00::0005',
    ])
      expect(refusedBackendAddress(spelling, 80, own)).toMatch(/own pod/);
    expect(refusedBackendAddress('10.1.2.4', 80, own)).toBeUndefined();
    // The set itself may be written in any spelling too.
    const written = { ...policy, forbiddenAddresses: new Set(['FD00:0:0:0:0:0:0:5']) };
    expect(refusedBackendAddress('fd00::5', 80, written)).toBe(
      "fd00::5 is an address of the gateway's own pod",
    );
  });

  it("allows loopback and the pod's addresses when local addresses are allowed (backends beside the controller)", () => {
    const local = { ...policy, allowLocalAddresses: true, forbiddenAddresses: new Set(['10.1.2.3']) };
    for (const address of ['127.0.0.1', '::1', 'localhost', '10.1.2.3']) {
      expect(refusedBackendAddress(address, 80, local)).toBeUndefined();
    }
  });

  it('still refuses link-local, unspecified and metadata addresses when local addresses are allowed', () => {
    const local = { ...policy, allowLocalAddresses: true };
    expect(refusedBackendAddress('169.254.169.254', 80, local)).toBe(
      '169.254.169.254 is a link-local address',
    );
    expect(refusedBackendAddress('fe80::1', 80, local)).toBe('fe80::1 is a link-local address');
    expect(refusedBackendAddress('0.0.0.0', 80, local)).toBe('0.0.0.0 is an unspecified address');
    expect(refusedBackendAddress('fd00:ec2::254', 80, local)).toMatch(/cloud metadata address/);
    expect(refusedBackendAddress('100.100.100.200', 80, local)).toMatch(/cloud metadata address/);
  });

  it("refuses the gateway's own ports on local addresses even when those are allowed", () => {
    const local = {
      ...policy,
      allowLocalAddresses: true,
      forbiddenAddresses: new Set(['10.1.2.3']),
      ownPorts: new Set([10254, 80]),
    };
    expect(refusedBackendAddress('127.0.0.1', 10254, local)).toBe(
      '127.0.0.1:10254 is a port of the gateway itself',
    );
    expect(refusedBackendAddress('localhost', 80, local)).toBe(
      'localhost:80 is a port of the gateway itself',
    );
    expect(refusedBackendAddress('10.1.2.3', 80, local)).toBe('10.1.2.3:80 is a port of the gateway itself');
    // Another spelling of an own address skips the own-ports check no more.
    expect(refusedBackendAddress('::ffff:a01:203', 80, local)).toBe(
      '[::ffff:a01:203]:80 is a port of the gateway itself',
    );
    expect(refusedBackendAddress('0:0:0:0:0:0:0:1', 10254, local)).toBe(
      '[0:0:0:0:0:0:0:1]:10254 is a port of the gateway itself',
    );
    expect(refusedBackendAddress('127.0.0.1', 8080, local)).toBeUndefined();
    // Other machines may listen on the same ports.
    expect(refusedBackendAddress('10.0.0.9', 80, local)).toBeUndefined();
  });
});

describe('resolveServiceBackend under the address policy', () => {
  it('gives an ExternalName pointing at loopback or the metadata service no target, with a problem naming the field', () => {
    for (const target of ['127.0.0.1', '169.254.169.254', 'localhost']) {
      const result = resolveServiceBackend(app, externalService('app', target, 80, 'tenant'), []);
      expect(result.backend).toEqual({ id: 'tenant/app:80', endpoints: [] });
      expect(result.problem).toContain('Service tenant/app spec.externalName');
      expect(result.problem).toContain(target);
    }
  });

  it('serves an ExternalName of a public name, unless ExternalName Services are turned off', () => {
    const external = externalService('app', 'db.example.com', 80, 'tenant');
    expect(resolveServiceBackend(app, external, []).backend.externalName).toEqual({
      hostname: 'db.example.com',
      port: 80,
    });
    const off = resolveServiceBackend(app, external, [], { ...policy, allowExternalName: false });
    expect(off.backend.externalName).toBeUndefined();
    expect(off.problem).toContain('--allow-external-name-services=false');
  });

  it('leaves refused endpoint addresses out, keeps the others and says which were left out', () => {
    const slices = [
      endpointSlice('app', 8080, ['10.0.0.1', '127.0.0.1', '169.254.169.254'], { namespace: 'tenant' }),
    ];
    const result = resolveServiceBackend(app, service('app', undefined, 'tenant'), slices);
    expect(result.backend.endpoints).toEqual([{ address: '10.0.0.1', port: 8080 }]);
    expect(result.problem).toBe(
      'EndpointSlices of Service tenant/app name addresses a backend may not point at, left out: 127.0.0.1 is a loopback address; 169.254.169.254 is a link-local address',
    );
    expect(result.problemCode).toBe('backend-address-refused');
  });

  it('keeps loopback endpoints when local addresses are allowed', () => {
    const slices = [endpointSlice('app', 8080, ['127.0.0.1'], { namespace: 'tenant' })];
    const local = { ...policy, allowLocalAddresses: true };
    expect(resolveServiceBackend(app, service('app', undefined, 'tenant'), slices, local)).toEqual({
      backend: { id: 'tenant/app:80', endpoints: [{ address: '127.0.0.1', port: 8080 }] },
    });
  });
});
