import { describe, expect, it } from 'vitest';
import { compileRoute } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

describe('compileRoute', () => {
  it('compiles the match: the normalised prefix, folded header names, listeners', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        match: {
          path: { type: 'PathPrefix', value: '/api//' },
          method: 'PUT',
          headers: [{ name: 'X-Env', type: 'RegularExpression', value: '^c' }],
          queryParams: [{ name: 'Q', type: 'Exact', value: '1' }],
        },
        listeners: ['https'],
        action: forwardAction,
      }),
    );
    expect(issues).toEqual([]);
    expect(entry).toEqual({
      id: 'r',
      kind: 'prefix',
      path: '/api',
      method: 'PUT',
      headers: [['x-env', 'regex', '^c']],
      query: [['Q', 'exact', '1']],
      listeners: ['https'],
      action: { type: 'forward', members: [{ backend: 'b', upto: 1 }], total: 1 },
      profile: 'ik_p_q1s1v11_b0_r3',
      protocol: 'HTTP',
      origin: ['default', 'r', '', '', ''],
    });
  });

  it("carries the origin's namespace, name, service, port and path for the access log", () => {
    const route = createTestRoute('r', { action: forwardAction });
    route.origin = {
      ...route.origin,
      namespace: 'shop',
      name: 'cart',
      path: '/api/',
      service: 'cart',
      servicePort: 'http',
    };
    expect(compileRoute(route).entry.origin).toEqual(['shop', 'cart', 'cart', 'http', '/api/']);
    // The data plane's own routes have no namespace: their requests log the fields empty.
    route.origin = { ...route.origin, namespace: '' };
    expect(compileRoute(route).entry.origin).toBeUndefined();
  });

  it.each([
    ['an invalid header name', { requestHeaders: { remove: ['a b'] } }],
    ['an invalid upstream host', { upstreamHost: 'a/b' }],
    ['a rewrite to a non-path', { rewrite: { type: 'ReplaceFullPath', value: 'x' } }],
    ['an HTTPS redirect status that is not a redirect', { redirectToHttps: { statusCode: 200 } }],
  ])('makes a route answer 500 for %s', (_, policy) => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', { action: forwardAction, policy: policy as never }),
    );
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(issues.some((issue) => issue.severity === 'error')).toBe(true);
  });

  it('warns and falls back to defaults for values that only lose precision', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: {
          backendProtocol: 'SPDY' as never,
          maxBodyBytes: -5,
          timeouts: { readMs: 0.5, requestMs: 10_000, backendRequestMs: 0 },
          mirror: { backend: '' },
        },
      }),
    );
    expect(entry).toMatchObject({ profile: 'ik_p_q1s1v11_b0_r3', action: { type: 'forward' } });
    expect(entry.policy).toEqual({ timeouts: [10, 10, 10] });
    expect(issues.map((issue) => [issue.field, issue.severity])).toEqual([
      ['policy.maxBodyBytes', 'warning'],
      ['policy.timeouts.readMs', 'warning'],
      ['policy.backendProtocol', 'warning'],
      ['policy.mirror.backend', 'warning'],
    ]);
  });
});
