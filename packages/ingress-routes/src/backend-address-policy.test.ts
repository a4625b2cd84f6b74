import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKEND_ADDRESS_POLICY, refusedBackendAddress } from './backend-address-policy.js';
import { resolveServiceBackend } from './service-backend.js';
import { endpointSlice, externalService, service } from './testing/fixtures.js';

const policy = DEFAULT_BACKEND_ADDRESS_POLICY;
const app = { namespace: 'tenant', name: 'app', port: 80 };

describe('refusedBackendAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['FEBF::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
  ])('refuses %s as a %s address', (address, kind) => {
    expect(refusedBackendAddress(address, 80, policy)).toBe(
      `${address} is ${kind === 'unspecified' ? 'an' : 'a'} ${kind} address`,
    );
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
    'db.example.com',
    'localhost.example',
  ])('lets %s through', (address) => {
    expect(refusedBackendAddress(address, 80, policy)).toBeUndefined();
  });

  it("refuses the gateway pod's own addresses, in any spelling", () => {
    const own = { ...policy, forbiddenAddresses: new Set(['10.1.2.3', 'fd00::5']) };
    expect(refusedBackendAddress('10.1.2.3', 80, own)).toBe(
      "10.1.2.3 is an address of the gateway's own pod",
    );
    expect(refusedBackendAddress('::ffff:10.1.2.3', 80, own)).toMatch(/own pod/);
    expect(refusedBackendAddress('10.1.2.4', 80, own)).toBeUndefined();
  });

  it("allows loopback and the pod's addresses when local addresses are allowed (backends beside the controller)", () => {
    const local = { ...policy, allowLocalAddresses: true, forbiddenAddresses: new Set(['10.1.2.3']) };
    for (const address of ['127.0.0.1', '::1', 'localhost', '10.1.2.3']) {
      expect(refusedBackendAddress(address, 80, local)).toBeUndefined();
    }
  });

  it('still refuses link-local and unspecified addresses when local addresses are allowed', () => {
    const local = { ...policy, allowLocalAddresses: true };
    expect(refusedBackendAddress('169.254.169.254', 80, local)).toBe(
      '169.254.169.254 is a link-local address',
    );
    expect(refusedBackendAddress('fe80::1', 80, local)).toBe('fe80::1 is a link-local address');
    expect(refusedBackendAddress('0.0.0.0', 80, local)).toBe('0.0.0.0 is an unspecified address');
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
