import { describe, expect, it } from 'vitest';
import type { RouteAction, RouteTimeouts } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute } from './testing/routes.js';

const forward: RouteAction = { type: 'forward', backends: [{ backend: 'b', weight: 1 }] };

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
        action: forward,
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
      profile: 'ik_http_d',
      protocol: 'HTTP',
    });
  });

  it('accumulates weights, drops zero weights and keeps members without a backend as statuses', () => {
    const { entry } = compileRoute(
      createTestRoute('r', {
        action: {
          type: 'forward',
          backends: [
            { backend: 'a', weight: 3 },
            { backend: 'z', weight: 0 },
            { weight: 2 },
            { weight: 5, statusCode: 503 },
          ],
        },
      }),
    );
    expect(entry.action).toEqual({
      type: 'forward',
      members: [
        { backend: 'a', upto: 3 },
        { status: 500, upto: 5 },
        { status: 503, upto: 10 },
      ],
      total: 10,
    });
  });

  it('compiles path changes with route-model modifyPath semantics and ngx.re.sub templates', () => {
    const prefix = compileRoute(
      createTestRoute('r', {
        match: { path: { type: 'PathPrefix', value: '/foo/' } },
        action: forward,
        policy: { rewrite: { type: 'ReplacePrefixMatch', value: '/' } },
      }),
    );
    expect(prefix.entry.policy?.rewrite).toEqual({ type: 'prefix', strip: 4, value: '' });
    const regex = compileRoute(
      createTestRoute('r', {
        action: forward,
        policy: { rewrite: { type: 'RegexReplace', pattern: '^/(a)(b)?', replacement: '/$1$10$x$$/$2' } },
      }),
    );
    expect(regex.entry.policy?.rewrite).toEqual({
      type: 'regex',
      pattern: '^/(a)(b)?',
      replacement: '/${1}${1}0$$x$$$$/${2}',
    });
    const redirect = compileRoute(
      createTestRoute('r', {
        match: { path: { type: 'PathPrefix', value: '/old' } },
        action: {
          type: 'redirect',
          redirect: {
            statusCode: 301,
            scheme: 'https',
            port: 8443,
            path: { type: 'ReplacePrefixMatch', value: '/new/' },
          },
        },
      }),
    );
    expect(redirect.entry.action).toEqual({
      type: 'redirect',
      status: 301,
      scheme: 'https',
      port: 8443,
      path: { type: 'prefix', strip: 4, value: '/new' },
    });
  });

  it('compiles a redirect query that replaces the request query, and refuses one that needs escaping', () => {
    const redirect = (query: string) =>
      compileRoute(
        createTestRoute('r', { action: { type: 'redirect', redirect: { statusCode: 302, query } } }),
      );
    expect(redirect('a=1&b=%2F').entry.action).toEqual({ type: 'redirect', status: 302, query: 'a=1&b=%2F' });
    expect(redirect('').entry.action).toEqual({ type: 'redirect', status: 302, query: '' });
    for (const bad of ['a b', 'a=%zz', 'a\r\nSet-Cookie: x', 'a#b', 'a="x"']) {
      const compiled = redirect(bad);
      expect(compiled.entry.action).toEqual({ type: 'respond', status: 500 });
      expect(compiled.issues).toEqual([
        expect.objectContaining({ field: 'action.redirect.query', severity: 'error' }),
      ]);
    }
  });

  it('compiles policies into the compact forms workers read', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        action: forward,
        policy: {
          redirectToHttps: { statusCode: 308, onlyIfHostHasTls: true },
          allowSources: ['10.0.0.0/8', '::1'],
          maxBodyBytes: 100,
          upstreamHost: 'internal:8080',
          requestHeaders: { set: [{ name: 'X-A', value: '1' }], remove: ['X-B'] },
          responseHeaders: { add: [{ name: 'X-C', value: '2' }] },
          timeouts: { connectMs: 1500, readMs: 30000 },
          backendProtocol: 'GRPC',
        },
      }),
    );
    expect(issues).toEqual([]);
    expect(entry.policy).toEqual({
      https: { status: 308, tlsOnly: true },
      allow: [
        ['0a000000', 8],
        ['00000000000000000000000000000001', 128],
      ],
      maxBody: 100,
      host: 'internal:8080',
      request: { remove: ['X-B'], set: [['X-A', '1']] },
      response: { add: [['X-C', '2']] },
      timeouts: [1.5, 0, 30],
    });
    expect(entry).toMatchObject({ profile: 'ik_grpc_b100', protocol: 'GRPC' });
  });

  it('makes a route answer 500 when a header change could split a message', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        action: forward,
        policy: { responseHeaders: { set: [{ name: 'X-A', value: 'a\r\nSet-Cookie: x' }] } },
      }),
    );
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(entry.policy).toBeUndefined();
    expect(entry.profile).toBeUndefined();
    expect(issues).toEqual([
      expect.objectContaining({ field: 'policy.responseHeaders.set[0].value', severity: 'error' }),
    ]);
  });

  it.each([
    ['an invalid header name', { requestHeaders: { remove: ['a b'] } }],
    ['an invalid upstream host', { upstreamHost: 'a/b' }],
    ['a rewrite to a non-path', { rewrite: { type: 'ReplaceFullPath', value: 'x' } }],
    ['an HTTPS redirect status that is not a redirect', { redirectToHttps: { statusCode: 200 } }],
  ])('makes a route answer 500 for %s', (_, policy) => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', { action: forward, policy: policy as never }),
    );
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(issues.some((issue) => issue.severity === 'error')).toBe(true);
  });

  it('admits no client through an allowlist entry it cannot parse, and reports it', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', { action: forward, policy: { allowSources: ['nonsense'] } }),
    );
    expect(entry.policy?.allow).toEqual([]);
    expect(entry.action.type).toBe('forward');
    expect(issues).toEqual([
      expect.objectContaining({ field: 'policy.allowSources[0]', severity: 'error', value: 'nonsense' }),
    ]);
  });

  it('compiles CORS origins into one anchored regex and the fixed headers, and refuses bad origins', () => {
    const cors = {
      allowOrigins: ['https://a.example.com', 'http://*.example.org:8080'],
      allowMethods: 'GET, POST',
      allowHeaders: 'Content-Type',
      exposeHeaders: '',
      allowCredentials: true,
      maxAgeSeconds: 60,
    };
    const { entry } = compileRoute(createTestRoute('r', { action: forward, policy: { cors } }));
    expect(entry.policy?.cors).toEqual({
      origin: '^(?:https://a\\.example\\.com|http://[A-Za-z0-9-]+\\.example\\.org:8080)$',
      headers: [
        ['Access-Control-Allow-Credentials', 'true'],
        ['Access-Control-Allow-Methods', 'GET, POST'],
        ['Access-Control-Allow-Headers', 'Content-Type'],
        ['Access-Control-Max-Age', '60'],
      ],
    });
    const any = compileRoute(
      createTestRoute('r', { action: forward, policy: { cors: { ...cors, allowOrigins: ['*'] } } }),
    );
    expect(any.entry.policy?.cors?.origin).toBeUndefined();
    for (const allowOrigins of [
      [],
      ['*', 'https://a.example.com'],
      ['https://a.example.com/path'],
      ['https://(a|b).com'],
    ]) {
      const bad = compileRoute(
        createTestRoute('r', { action: forward, policy: { cors: { ...cors, allowOrigins } } }),
      );
      expect(bad.entry.action).toEqual({ type: 'respond', status: 500 });
    }
    const split = compileRoute(
      createTestRoute('r', {
        action: forward,
        policy: { cors: { ...cors, allowHeaders: 'a\r\nSet-Cookie: x' } },
      }),
    );
    expect(split.entry.action).toEqual({ type: 'respond', status: 500 });
  });

  it("compiles Gateway API's CORS: any-label wildcards, default ports, asked-for and echoed headers, 200", () => {
    const cors = {
      allowOrigins: ['https://*.bar.com', 'http://www.foo.com', 'https://*:8443'],
      allowMethods: 'GET, OPTIONS',
      allowHeaders: '*',
      exposeHeaders: '*',
      allowCredentials: true,
      maxAgeSeconds: 5,
      dialect: 'gateway-api' as const,
    };
    const { entry } = compileRoute(createTestRoute('r', { action: forward, policy: { cors } }));
    expect(entry.policy?.cors).toEqual({
      origin:
        '^(?:https://(?:[A-Za-z0-9-]+\\.)+bar\\.com(?::443)?|http://www\\.foo\\.com(?::80)?|https://[A-Za-z0-9.-]+:8443)$',
      headers: [
        ['Access-Control-Allow-Credentials', 'true'],
        ['Access-Control-Max-Age', '5'],
      ],
      methods: 'GET, OPTIONS',
      allowHeaders: true,
      preflight: 200,
    });
    const origin = new RegExp(entry.policy!.cors!.origin!, 'i');
    expect(
      ['https://a.b.bar.com', 'https://www.bar.com:443', 'http://www.foo.com:80'].map((o) => origin.test(o)),
    ).toEqual([true, true, true]);
    expect(
      ['https://bar.com', 'http://www.foo.com:8080', 'https://x.com:443'].map((o) => origin.test(o)),
    ).toEqual([false, false, false]);
    // Without credentials a `*` is answered as `*`; every origin: `*`, with credentials: echoed.
    const open = compileRoute(
      createTestRoute('r', {
        action: forward,
        policy: { cors: { ...cors, allowOrigins: ['*'], allowCredentials: false } },
      }),
    );
    expect(open.entry.policy?.cors).toMatchObject({ allowHeaders: '*' });
    expect(open.entry.policy?.cors?.echoOrigin).toBeUndefined();
    expect(open.entry.policy?.cors?.headers).toContainEqual(['Access-Control-Expose-Headers', '*']);
    const echoed = compileRoute(
      createTestRoute('r', { action: forward, policy: { cors: { ...cors, allowOrigins: ['*'] } } }),
    );
    expect(echoed.entry.policy?.cors).toMatchObject({ echoOrigin: true });
  });

  it('compiles a mirror into the backend id the data plane copies requests to', () => {
    const { entry } = compileRoute(
      createTestRoute('r', { action: forward, policy: { mirror: { backend: 'm' } } }),
    );
    expect(entry.policy?.mirror).toBe('m');
  });

  it('compiles HSTS into its header value, and leaves out an invalid max-age with a warning', () => {
    const hsts = (value: { maxAgeSeconds: number; includeSubdomains: boolean; preload: boolean }) =>
      compileRoute(createTestRoute('r', { action: forward, policy: { hsts: value } }));
    expect(hsts({ maxAgeSeconds: 600, includeSubdomains: true, preload: true }).entry.policy?.hsts).toBe(
      'max-age=600; includeSubDomains; preload',
    );
    expect(hsts({ maxAgeSeconds: 0, includeSubdomains: false, preload: false }).entry.policy?.hsts).toBe(
      'max-age=0',
    );
    const invalid = hsts({ maxAgeSeconds: -1, includeSubdomains: false, preload: false });
    expect(invalid.entry.policy?.hsts).toBeUndefined();
    expect(invalid.issues).toEqual([
      expect.objectContaining({ field: 'policy.hsts.maxAgeSeconds', severity: 'warning' }),
    ]);
  });

  it('compiles the trailing-slash stripping of an HTTPS redirect', () => {
    const { entry } = compileRoute(
      createTestRoute('r', {
        action: forward,
        policy: { redirectToHttps: { statusCode: 301, stripTrailingSlash: true } },
      }),
    );
    expect(entry.policy?.https).toEqual({ status: 301, strip: true });
  });

  it('compiles a denylist, and denies every client for an entry it cannot parse, and reports it', () => {
    const denied = compileRoute(
      createTestRoute('r', { action: forward, policy: { denySources: ['10.0.0.0/8', '::1'] } }),
    );
    expect(denied.entry.policy?.deny).toEqual([
      ['0a000000', 8],
      ['00000000000000000000000000000001', 128],
    ]);
    const { entry, issues } = compileRoute(
      createTestRoute('r', { action: forward, policy: { denySources: ['nonsense'] } }),
    );
    expect(entry.policy?.deny).toEqual([
      ['00000000', 0],
      ['0'.repeat(32), 0],
    ]);
    expect(entry.action.type).toBe('forward');
    expect(issues).toEqual([
      expect.objectContaining({ field: 'policy.denySources[0]', severity: 'error', value: 'nonsense' }),
    ]);
  });

  it("bounds every wait of nginx by the smaller of a route's request and backend request timeouts", () => {
    const timeoutsOf = (timeouts: RouteTimeouts) =>
      compileRoute(createTestRoute('r', { action: forward, policy: { timeouts } })).entry.policy?.timeouts;
    expect(timeoutsOf({ requestMs: 2_000, backendRequestMs: 500 })).toEqual([0.5, 0.5, 0.5]);
    expect(timeoutsOf({ connectMs: 100, readMs: 60_000, requestMs: 1_500 })).toEqual([0.1, 1.5, 1.5]);
    expect(timeoutsOf({ requestMs: 0, backendRequestMs: 0 })).toBeUndefined();
    expect(timeoutsOf({ readMs: 3_000, backendRequestMs: 0 })).toEqual([0, 0, 3]);
  });

  it('warns and falls back to defaults for values that only lose precision', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        action: forward,
        policy: {
          backendProtocol: 'SPDY' as never,
          maxBodyBytes: -5,
          timeouts: { readMs: 0.5, requestMs: 10_000, backendRequestMs: 0 },
          mirror: { backend: '' },
        },
      }),
    );
    expect(entry).toMatchObject({ profile: 'ik_http_d', action: { type: 'forward' } });
    expect(entry.policy).toEqual({ timeouts: [10, 10, 10] });
    expect(issues.map((issue) => [issue.field, issue.severity])).toEqual([
      ['policy.maxBodyBytes', 'warning'],
      ['policy.timeouts.readMs', 'warning'],
      ['policy.backendProtocol', 'warning'],
      ['policy.mirror.backend', 'warning'],
    ]);
  });
});
