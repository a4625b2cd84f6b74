import { describe, expect, it } from 'vitest';
import type { BackendTlsPolicy, Route, RoutePolicy } from '@ingresskit/route-model';
import { compileBackendTlsRelay, relaySocketName } from './backend-tls.js';
import { compileRoute } from './compile-route.js';
import { DEFAULT_PROFILE } from './profiles.js';
import { createSelfSignedCertificate } from './self-signed-certificate.js';
import { compileDataPlaneUpdate } from './data-plane-update.js';
import type { HostEntry } from './data-entries.js';
import { createTestHost, createTestRoute, createTestTable, forwardAction } from './testing/routes.js';

const CA = createSelfSignedCertificate({ commonName: 'Backend CA' }).certificatePem;
const OTHER_CA = createSelfSignedCertificate({ commonName: 'Other CA' }).certificatePem;
const CLIENT = createSelfSignedCertificate({ commonName: 'gateway' });

function policy(overrides: Partial<BackendTlsPolicy> = {}): BackendTlsPolicy {
  return {
    caCertificatesPem: CA,
    verify: true,
    depth: 2,
    protocols: ['TLSv1.3', 'TLSv1.2'],
    ciphers: 'HIGH:!aNULL',
    serverName: 'backend.internal',
    sendServerName: true,
    clientCertificate: { certificatePem: CLIENT.certificatePem, privateKeyPem: CLIENT.privateKeyPem },
    ...overrides,
  };
}

function tlsRoute(
  backendTls: BackendTlsPolicy,
  backendProtocol: RoutePolicy['backendProtocol'] = 'HTTPS',
  more: RoutePolicy = {},
): Route {
  return createTestRoute('r', { action: forwardAction, policy: { backendProtocol, backendTls, ...more } });
}

function relayOf(route: Route, hostname: string | undefined = 'app.test') {
  const relay = compileBackendTlsRelay(route, hostname);
  if (relay === undefined || relay === 'closed') throw new Error(`no relay: ${String(relay)}`);
  return relay;
}

describe('compileBackendTlsRelay', () => {
  it('carries every setting, the protocols sorted and the CA certificates canonical', () => {
    expect(relayOf(tlsRoute(policy()))).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{20}$/),
      verify: true,
      depth: 2,
      caCertificatesPem: expect.stringMatching(
        /^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/,
      ),
      protocols: ['TLSv1.2', 'TLSv1.3'],
      ciphers: 'HIGH:!aNULL',
      serverName: 'backend.internal',
      sendServerName: true,
      clientCertificate: { certificatePem: CLIENT.certificatePem, privateKeyPem: CLIENT.privateKeyPem },
    });
  });

  it('gives equal settings the same id, and any other setting another', () => {
    const id = relayOf(tlsRoute(policy())).id;
    expect(relayOf(tlsRoute(policy())).id).toBe(id);
    const others = [
      tlsRoute(policy({ caCertificatesPem: OTHER_CA })),
      tlsRoute(policy({ ciphers: 'HIGH' })),
      tlsRoute(policy({ depth: 3 })),
      tlsRoute(policy({ protocols: ['TLSv1.3'] })),
      tlsRoute(policy({ serverName: 'other.internal' })),
      tlsRoute(policy({ sendServerName: false })),
      tlsRoute(policy({ clientCertificate: undefined })),
      tlsRoute(policy(), 'GRPCS'),
      tlsRoute(policy(), 'HTTPS', { timeouts: { connectMs: 2000 } }),
    ];
    const ids = new Set(others.map((route) => relayOf(route).id));
    expect(ids.size).toBe(others.length);
    expect(ids.has(id)).toBe(false);
  });

  it('offers h2 to gRPC backends only', () => {
    expect(relayOf(tlsRoute(policy(), 'GRPCS')).alpn).toBe('h2');
    expect(relayOf(tlsRoute(policy())).alpn).toBeUndefined();
  });

  it('verifies the upstream Host, else the exact host name, without a server name of its own', () => {
    const unnamed = policy({ serverName: undefined });
    expect(relayOf(tlsRoute(unnamed), 'shop.test').serverName).toBe('shop.test');
    expect(relayOf(tlsRoute(unnamed, 'HTTPS', { upstreamHost: 'api.internal:8443' }), '*').serverName).toBe(
      'api.internal',
    );
  });

  it('is closed when it verifies on a wildcard or catch-all host without a name', () => {
    const unnamed = tlsRoute(policy({ serverName: undefined }));
    expect(compileBackendTlsRelay(unnamed, '*.test')).toBe('closed');
    expect(compileBackendTlsRelay(unnamed, '*')).toBe('closed');
    expect(compileBackendTlsRelay(unnamed, undefined)).toBe('closed');
    const unverified = relayOf(tlsRoute(policy({ serverName: undefined, verify: false })), '*');
    expect(unverified.serverName).toBeUndefined();
  });

  it.each([
    ['verification without CA certificates', { caCertificatesPem: '' }],
    ['an unknown protocol', { protocols: ['TLSv1'] as unknown as BackendTlsPolicy['protocols'] }],
    ['no protocol', { protocols: [] }],
    ['a cipher list outside the grammar', { ciphers: 'HIGH; evil' }],
    ['a depth out of range', { depth: 0 }],
    ['a server name that is no DNS name', { serverName: 'a b' }],
  ])('is closed for %s', (_, overrides) => {
    expect(compileBackendTlsRelay(tlsRoute(policy(overrides)), 'app.test')).toBe('closed');
  });

  it('leaves plain HTTP and gRPC backends alone', () => {
    expect(compileBackendTlsRelay(tlsRoute(policy(), 'HTTP'), 'app.test')).toBeUndefined();
    expect(compileBackendTlsRelay(tlsRoute(policy(), 'GRPC'), 'app.test')).toBeUndefined();
  });
});

describe('relaySocketName', () => {
  it('names the relay and the endpoint without a colon, which nginx would read as a URI', () => {
    expect(relaySocketName('0123456789abcdef0123', '10.0.0.1', 8443)).toBe(
      '0123456789abcdef0123_10.0.0.1_8443',
    );
    expect(relaySocketName('0123456789abcdef0123', 'fd00::1', 443)).toBe('0123456789abcdef0123_fd00--1_443');
  });

  it('stays within a unix socket path in a short prefix for the longest address', () => {
    const name = relaySocketName(
      '0123456789abcdef0123',
      'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255',
      65535,
    );
    expect(name.length).toBe(72);
  });
});

describe('compileRoute with backendTls', () => {
  it('sends the route to its relay over plain HTTP, with no TLS setting in the route data', () => {
    const { entry } = compileRoute(tlsRoute(policy()), 'app.test');
    expect(entry.profile).toBe(DEFAULT_PROFILE.name);
    expect(entry.protocol).toBe('HTTP');
    expect(entry.policy).toEqual({ relay: relayOf(tlsRoute(policy())).id });
  });

  it('sends a gRPCS route to its relay over h2c', () => {
    const { entry } = compileRoute(tlsRoute(policy(), 'GRPCS'), 'app.test');
    expect(entry.protocol).toBe('GRPC');
    expect(entry.policy?.relay).toMatch(/^[0-9a-f]{20}$/);
  });

  it('answers 503 for a policy that cannot be served, never plain TLS', () => {
    const { entry, issues } = compileRoute(tlsRoute(policy({ caCertificatesPem: '' })), 'app.test');
    expect(entry.action).toEqual({ type: 'respond', status: 503 });
    expect(entry.profile).toBeUndefined();
    expect(issues).toContainEqual(expect.objectContaining({ severity: 'error', field: 'policy.backendTls' }));
  });

  it('leaves a plain-HTTP backend as it was', () => {
    const { entry } = compileRoute(tlsRoute(policy(), 'HTTP'), 'app.test');
    expect(entry.profile).toBe(DEFAULT_PROFILE.name);
    expect(entry.policy?.relay).toBeUndefined();
  });
});

describe('compileDataPlaneUpdate with backendTls', () => {
  it("keeps each route's relay its own, so the hosts of an Ingress share one copy of the rest", () => {
    // Without serverName each host's relay verifies its own name.
    const route = tlsRoute(policy({ serverName: undefined }), 'HTTPS', { allowSources: ['10.0.0.0/8'] });
    const table = createTestTable({
      virtualHosts: [createTestHost('a.test', [route]), createTestHost('b.test', [route])],
    });
    const update = compileDataPlaneUpdate(table);
    const [a, b] = ['a.test', 'b.test'].map(
      (hostname) => (update.set[`host:${hostname}`] as HostEntry).routes[0]!,
    );
    expect(a!.policy).toEqual({ relay: relayOf(route, 'a.test').id });
    expect(b!.policy).toEqual({ relay: relayOf(route, 'b.test').id });
    expect(a!.policy?.relay).not.toBe(b!.policy?.relay);
    expect(a!.sharedPolicy).toBe(b!.sharedPolicy);
    expect(update.set[`policy:${a!.sharedPolicy!}`]).toEqual({ allow: [['0a000000', 8]] });
  });
});
