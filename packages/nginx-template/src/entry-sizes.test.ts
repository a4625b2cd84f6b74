import { describe, expect, it } from 'vitest';
import type { Route, RouteAction } from '@ingresskit/route-model';
import { compileDataPlaneUpdate, measureRoutes, type HostEntry } from './index.js';
import { createSelfSignedCertificate } from './self-signed-certificate.js';
import { createTestHost, createTestRoute, createTestTable } from './testing/routes.js';

const forward: RouteAction = { type: 'forward', backends: [{ backend: 'app', weight: 1 }] };
const allowSources = Array.from({ length: 64 }, (_, index) => `10.${index}.0.0/16`);

function createRoutes(): Route[] {
  const routes: Route[] = [
    createTestRoute('exact', { match: { path: { type: 'Exact', value: '/exact' } }, action: forward }),
  ];
  for (let index = 0; index < 40; index++) {
    routes.push(
      createTestRoute(`regex-${index}`, {
        match: { path: { type: 'RegularExpression', value: `^/r${index}/(\\d+)/[a-z]+\\.json$` } },
        action: forward,
        policy: { allowSources, upstreamSettings: { bufferSizeBytes: 8192 } },
      }),
    );
  }
  routes.push(createTestRoute('prefix', { action: forward, policy: { allowSources } }));
  return routes;
}

/** The bytes of the host entry of `routes`, and of the shared policies it names, as pushed. */
function pushedBytes(
  routes: Route[],
  upstreamDefaults?: Route['policy']['upstreamSettings'],
  hostname = 'a.example.com',
) {
  const table = createTestTable({ virtualHosts: [createTestHost(hostname, routes)] });
  const update = compileDataPlaneUpdate(table, { upstreamDefaults });
  const host = update.set[`host:${hostname}`] as HostEntry;
  const empty: HostEntry = { ...host, routes: [], exact: {}, prefix: {}, regex: [] };
  const policies = Object.keys(update.set).filter((key) => key.startsWith('policy:'));
  return { routes: JSON.stringify(host).length - JSON.stringify(empty).length, policies };
}

describe('measureRoutes', () => {
  it('counts at least what the routes take in their host entry, regex groups included, and each shared policy once', () => {
    const routes = createRoutes();
    const pushed = pushedBytes(routes);
    const measured = measureRoutes([{ hostname: 'a.example.com', routes }]);
    expect(measured.routes).toBeGreaterThanOrEqual(pushed.routes);
    // An estimate, not a multiple of it.
    expect(measured.routes).toBeLessThan(pushed.routes * 1.5);
    expect([...measured.policies.keys()]).toEqual(pushed.policies);
    expect(measured.policies.get(pushed.policies[0]!)).toBeGreaterThan(64 * 12);
  });

  it("compiles with the operator's upstream defaults, as the push does", () => {
    const routes = createRoutes();
    // The routes' 8k header buffer is the operator's default: their profile needs no buffer of its own.
    const upstreamDefaults = { bufferSizeBytes: 16384 };
    const plain = measureRoutes([{ hostname: 'a.example.com', routes }]).routes;
    const tuned = measureRoutes([{ hostname: 'a.example.com', routes }], upstreamDefaults).routes;
    expect(tuned).toBeLessThan(plain);
    expect(tuned - plain).toBe(pushedBytes(routes, upstreamDefaults).routes - pushedBytes(routes).routes);
  });

  it('compiles each route on its own host, as the push does: the name a backend TLS policy verifies', () => {
    // Without serverName the relay verifies the exact host name; a wildcard host has none to
    // verify, so its route answers 503 and names no relay.
    const backendTls = {
      caCertificatesPem: createSelfSignedCertificate({ commonName: 'Backend CA' }).certificatePem,
      verify: true,
      depth: 1,
      protocols: ['TLSv1.2' as const],
      ciphers: 'DEFAULT',
      sendServerName: true,
    };
    const routes = [
      createTestRoute('tls', { action: forward, policy: { backendProtocol: 'HTTPS', backendTls } }),
    ];
    const measure = (hostname: string) => measureRoutes([{ hostname, routes }]).routes;
    const pushed = (hostname: string) => pushedBytes(routes, undefined, hostname).routes;
    expect(measure('a.example.com')).toBeGreaterThan(measure('*.example.com'));
    expect(measure('a.example.com') - measure('*.example.com')).toBe(
      pushed('a.example.com') - pushed('*.example.com'),
    );
  });
});
