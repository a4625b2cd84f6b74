import { describe, expect, it } from 'vitest';
import type { Route, RouteAction } from '@ingresskit/route-model';
import { compileDataPlaneUpdate, measureRoutes, type HostEntry } from './index.js';
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
function pushedBytes(routes: Route[], upstreamDefaults?: Route['policy']['upstreamSettings']) {
  const table = createTestTable({ virtualHosts: [createTestHost('a.example.com', routes)] });
  const update = compileDataPlaneUpdate(table, { upstreamDefaults });
  const host = update.set['host:a.example.com'] as HostEntry;
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
});
