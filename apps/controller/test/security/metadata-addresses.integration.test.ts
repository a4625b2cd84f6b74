/**
 * Finding: link-local addresses were refused, but the clouds' other metadata addresses were
 * accepted as endpoints: `fd00:ec2::254` (AWS over IPv6), `100.100.100.200` (Alibaba Cloud),
 * Azure's WireServer `168.63.129.16`, GCP's and Oracle's IPv6 ones. And addresses were compared
 * as text: the pod's own address written another way (`fd00:0:0:0:0:0:0:2`) was not the pod's,
 * so it skipped the own-ports check that holds even with local backends allowed; nor was the
 * loopback HTTPS listener of nginx behind the ssl-passthrough proxy counted as an own port.
 *
 * Now every address is read in canonical form, compared with a table of metadata addresses that
 * no flag lifts, and every port the gateway listens on is its own: each such route answers 503
 * (a passthrough host closes the connection) and the tenant's Ingress gets an Event naming the
 * address. These controllers allow local backends (see tenant.ts), which makes the own-port rule
 * the only one between the tenant and the controller's ports; the health port listens on every
 * address here, as it would in a pod, so the own address really leads to it.
 */
import { networkInterfaces } from 'node:os';
import { formatIpAddress, parseIpAddress } from '@ingresskit/ingress-routes';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/ports.js';
import { request } from '../harness.js';
import {
  expectTenantEvent,
  expectVictimsUnharmed,
  lookupInZone,
  TENANT,
  tenantExternalNameService,
  tenantIngress,
  useSecurityCase,
} from './tenant.js';

/** What each tenant name resolves to. */
const zone = new Map<string, string[]>([
  ['imds6.mallory.example', ['fd00:ec2::254']],
  ['wire.mallory.example', ['168.63.129.16']],
  ['mixed.mallory.example', ['fd20:ce::254', '127.0.0.1']],
]);

const testCase = useSecurityCase(
  'metadata-addresses',
  { sslPassthrough: true, sslPassthroughProxyPort: await findFreePort(), healthzHost: '::' },
  {
    externalNames: {
      lookup: lookupInZone(zone),
    },
  },
);

/** An address of this machine's (the pod's) own, not loopback nor link-local: IPv6 if it has one. */
function ownAddress(): string {
  const entries = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  const own = entries.filter((entry) => !entry.internal && !entry.address.startsWith('fe80'));
  const chosen = own.find((entry) => entry.family === 'IPv6') ?? own[0];
  if (chosen === undefined) throw new Error('this machine has no address but loopback');
  return chosen.address;
}

/** The same address spelled otherwise: IPv6 without zero compression, IPv4 mapped into IPv6. */
function spellOtherwise(address: string): string {
  const parsed = parseIpAddress(address)!;
  if (parsed.family === 4) {
    const [a, b, c, d] = parsed.bytes as [number, number, number, number];
    return `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groups = Array.from({ length: 8 }, (_, i) =>
    (parsed.bytes[2 * i]! * 256 + parsed.bytes[2 * i + 1]!).toString(16),
  );
  const full = groups.join(':');
  return full === formatIpAddress(parsed) ? groups.map((group) => group.padStart(4, '0')).join(':') : full;
}

function serviceWithSlice(name: string, addressType: 'IPv4' | 'IPv6', addresses: string[], port: number) {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: TENANT },
      spec: { ports: [{ name: 'http', port: 80 }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${name}-1`, namespace: TENANT, labels: { 'kubernetes.io/service-name': name } },
      addressType,
      endpoints: [{ addresses, conditions: { ready: true } }],
      ports: [{ name: 'http', port }],
    },
  ];
}

describe("a tenant aiming routes at the clouds' metadata services and the gateway's own addresses", () => {
  it('gets 503 and an Event for every one, in every spelling, while the victims keep being served', async () => {
    const { controller, cluster, evil } = testCase();
    const { healthzPort, sslPassthroughProxyPort } = controller.config;
    const own = spellOtherwise(ownAddress());
    const traffic = testCase().probeVictims();
    await cluster.server.apply([
      // EndpointSlices naming metadata addresses, canonical and otherwise.
      ...serviceWithSlice('imds-v4', 'IPv4', ['100.100.100.200', '168.63.129.16', '192.0.0.192'], 80),
      tenantIngress('imds-v4', { host: 'imds-v4.mallory.test', service: 'imds-v4' }),
      ...serviceWithSlice(
        'imds-v6',
        'IPv6',
        ['fd00:ec2::254', 'FD20:CE:0:0:0:0:0:254', 'fd00:c1::a9fe:a9fe'],
        80,
      ),
      tenantIngress('imds-v6', { host: 'imds-v6.mallory.test', service: 'imds-v6' }),
      // ExternalNames: metadata IP literals, one spelled in octal, and names that resolve there.
      tenantExternalNameService('alibaba', '100.100.100.200', 80),
      tenantIngress('alibaba', { host: 'alibaba.mallory.test', service: 'alibaba' }),
      tenantExternalNameService('octal', '0250.077.0201.020', 80),
      tenantIngress('octal', { host: 'octal.mallory.test', service: 'octal' }),
      tenantExternalNameService('imds6', 'imds6.mallory.example', 80),
      tenantIngress('imds6', { host: 'imds6.mallory.test', service: 'imds6' }),
      tenantExternalNameService('wire', 'wire.mallory.example', 80),
      tenantIngress('wire', { host: 'wire.mallory.test', service: 'wire' }),
      tenantExternalNameService('mixed', 'mixed.mallory.example', evil.port),
      tenantIngress('mixed', { host: 'mixed.mallory.test', service: 'mixed', port: evil.port }),
      // An auth-url at the AWS metadata service over IPv6.
      ...serviceWithSlice('authed', 'IPv4', ['127.0.0.1'], evil.port),
      tenantIngress('authed', {
        host: 'authed.mallory.test',
        service: 'authed',
        annotations: { 'nginx.ingress.kubernetes.io/auth-url': 'http://[fd00:ec2::254]/latest/meta-data/' },
      }),
      // The pod's own address written otherwise, on the health port.
      ...serviceWithSlice('own', own.includes(':') ? 'IPv6' : 'IPv4', [own], healthzPort),
      tenantIngress('own', { host: 'own.mallory.test', service: 'own', path: '/metrics' }),
      // nginx's HTTPS listener behind the ssl-passthrough proxy, as a route and as a passthrough host.
      ...serviceWithSlice('loop', 'IPv4', ['127.0.0.1'], sslPassthroughProxyPort),
      tenantIngress('loop', { host: 'loop.mallory.test', service: 'loop' }),
      tenantIngress('loop-passthrough', {
        host: 'loop-passthrough.mallory.test',
        service: 'loop',
        annotations: { 'nginx.ingress.kubernetes.io/ssl-passthrough': 'true' },
      }),
    ]);

    const metadata = 'is a cloud metadata address';
    await expectTenantEvent(
      testCase(),
      'imds-v4',
      `100.100.100.200 ${metadata} (the Alibaba Cloud metadata service)`,
    );
    await expectTenantEvent(testCase(), 'imds-v4', `168.63.129.16 ${metadata} (the Azure WireServer)`);
    await expectTenantEvent(testCase(), 'imds-v4', `192.0.0.192 ${metadata}`);
    await expectTenantEvent(testCase(), 'imds-v6', `fd00:ec2::254 ${metadata}`);
    await expectTenantEvent(testCase(), 'imds-v6', `FD20:CE:0:0:0:0:0:254 (fd20:ce::254) ${metadata}`);
    await expectTenantEvent(testCase(), 'imds-v6', `fd00:c1::a9fe:a9fe ${metadata}`);
    await expectTenantEvent(testCase(), 'alibaba', `spec.externalName: 100.100.100.200 ${metadata}`);
    await expectTenantEvent(
      testCase(),
      'octal',
      `spec.externalName: 0250.077.0201.020 (168.63.129.16) ${metadata}`,
    );
    await expectTenantEvent(
      testCase(),
      'imds6',
      `resolves to addresses a backend may not point at (fd00:ec2::254 ${metadata}`,
    );
    await expectTenantEvent(
      testCase(),
      'wire',
      `(168.63.129.16 ${metadata} (the Azure WireServer)); requests get 503`,
    );
    await expectTenantEvent(
      testCase(),
      'mixed',
      `(fd20:ce::254 ${metadata} (the Google Compute Engine metadata server (IPv6))); the other addresses are used`,
    );
    await expectTenantEvent(testCase(), 'authed', `fd00:ec2::254 ${metadata}`);
    // Written IPv6 (or IPv4 mapped into IPv6): in brackets before the port.
    await expectTenantEvent(testCase(), 'own', `[${own}]:${healthzPort} is a port of the gateway itself`);
    await expectTenantEvent(
      testCase(),
      'loop',
      `127.0.0.1:${sslPassthroughProxyPort} is a port of the gateway itself`,
    );
    await expectTenantEvent(
      testCase(),
      'loop-passthrough',
      `127.0.0.1:${sslPassthroughProxyPort} is a port of the gateway itself`,
      'SslPassthroughIgnored',
    );

    for (const [host, path] of [
      ['imds-v4.mallory.test', '/latest/meta-data/'],
      ['imds-v6.mallory.test', '/latest/meta-data/'],
      ['alibaba.mallory.test', '/latest/meta-data/'],
      ['octal.mallory.test', '/'],
      ['imds6.mallory.test', '/latest/meta-data/'],
      ['wire.mallory.test', '/'],
      ['own.mallory.test', '/metrics'],
      ['loop.mallory.test', '/'],
    ] as const) {
      const response = await request(controller, host, path);
      expect({ host, status: response.status }).toEqual({ host, status: 503 });
      expect(response.body).not.toContain('ingresskit_');
    }
    // The address the policy allows is used; the metadata one is left out.
    expect((await request(controller, 'mixed.mallory.test')).body).toMatch(/^evil:/);
    await expectVictimsUnharmed(traffic, 'metadata and own addresses');
  });
});
