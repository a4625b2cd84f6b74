import type { Route } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import { convertRoute, type RuleContext } from './httproute-rules.js';

const context: RuleContext = {
  namespace: 'shop',
  hostHasTls: false,
  servicePort: (serviceKey, portName) =>
    serviceKey === 'shop/cart' && portName === 'http' ? 8080 : undefined,
};

function route(overrides: Partial<Route> = {}): Route {
  return {
    id: 'Ingress/shop/cart/r0/p0',
    origin: {
      kind: 'Ingress',
      namespace: 'shop',
      name: 'cart',
      createdAt: 0,
      index: [0, 0],
      field: 'spec.rules[0].http.paths[0]',
    },
    match: { path: { type: 'PathPrefix', value: '/cart' } },
    action: { type: 'forward', backends: [{ backend: 'shop/cart:http', weight: 1 }] },
    policy: {},
    ...overrides,
  };
}

describe('convertRoute', () => {
  it('resolves a named Service port to its number, and names the namespace only when it differs', () => {
    const converted = convertRoute(
      route({
        action: {
          type: 'forward',
          backends: [
            { backend: 'shop/cart:http', weight: 1 },
            { backend: 'other/api:80', weight: 3 },
          ],
        },
      }),
      context,
    );
    expect(converted).toEqual({
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/cart' } }],
          backendRefs: [
            { name: 'cart', port: 8080, weight: 1 },
            { name: 'api', namespace: 'other', port: 80, weight: 3 },
          ],
        },
      ],
      findings: [],
      blocked: false,
    });
  });

  it('leaves out a backend whose named port is unknown, with an error naming it', () => {
    const converted = convertRoute(
      route({ action: { type: 'forward', backends: [{ backend: 'shop/gone:web', weight: 1 }] } }),
      context,
    );
    expect(converted.rules[0]!.backendRefs).toEqual([]);
    expect(converted.findings).toEqual([
      expect.objectContaining({
        kind: 'error',
        message: expect.stringContaining('shop/gone has no port named "web"'),
      }),
    ]);
  });

  it('blocks the conversion for a protection, and for any policy it does not know (fail closed)', () => {
    for (const policy of [
      { allowSources: ['10.0.0.0/8'] },
      { basicAuth: { realm: 'r', users: [] } },
      { digestAuth: { realm: 'r', users: [] } },
      { clientLimits: { scope: 's', connections: 1, statusCode: 503 } },
      { somethingNew: true } as never,
    ]) {
      const converted = convertRoute(route({ policy }), context);
      expect(converted.blocked, JSON.stringify(policy)).toBe(true);
      expect(converted.findings[0]!.kind).toBe('error');
    }
  });

  it('warns about what only changes how requests are proxied, and still converts', () => {
    const converted = convertRoute(
      route({
        policy: {
          maxBodyBytes: 1024,
          sessionAffinity: { mode: 'balanced', cookie: { name: 'c' } },
          timeouts: { readMs: 5_000, requestMs: 30_000 },
        },
      }),
      context,
    );
    expect(converted.blocked).toBe(false);
    expect(converted.rules[0]!.timeouts).toEqual({ request: '30000ms' });
    expect(converted.findings.map((finding) => finding.kind)).toEqual(['warning', 'warning', 'warning']);
    expect(converted.findings.map((finding) => finding.message).join('\n')).toMatch(
      /body size.*\n.*affinity.*\n.*read timeouts/s,
    );
  });

  it("turns ingress-nginx's /prefix(/|$)(.*) → /$2 rewrite into PathPrefix with ReplacePrefixMatch /", () => {
    const converted = convertRoute(
      route({
        match: { path: { type: 'RegularExpression', value: '^/api(/|$)(.*)', ignoreCase: true } },
        policy: {
          rewrite: { type: 'RegexReplace', pattern: '/api(/|$)(.*)', replacement: '/$2' },
          upstreamHost: 'internal',
        },
      }),
      context,
    );
    expect(converted.rules[0]).toMatchObject({
      matches: [{ path: { type: 'PathPrefix', value: '/api' } }],
      filters: [
        {
          type: 'URLRewrite',
          urlRewrite: { hostname: 'internal', path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } },
        },
      ],
    });
    expect(converted.findings).toEqual([]);
    const other = convertRoute(
      route({
        match: { path: { type: 'RegularExpression', value: '^/v[0-9]+/(.*)' } },
        policy: { rewrite: { type: 'RegexReplace', pattern: '^/v[0-9]+/(.*)', replacement: '/$1' } },
      }),
      context,
    );
    expect(other.findings.map((finding) => finding.kind)).toEqual(['difference', 'warning']);
  });

  it('splits a weighted canary into backend weights, and routes a header canary by its own rule first', () => {
    const converted = convertRoute(
      route({
        action: {
          type: 'forward',
          backends: [{ backend: 'shop/cart:80', weight: 1 }],
          canary: {
            backends: [{ backend: 'shop/cart-next:80', weight: 1 }],
            weight: 20,
            weightTotal: 100,
            header: { name: 'X-Canary', value: 'yes' },
          },
        },
      }),
      context,
    );
    expect(converted.rules).toEqual([
      {
        matches: [
          {
            path: { type: 'PathPrefix', value: '/cart' },
            headers: [{ name: 'X-Canary', type: 'Exact', value: 'yes' }],
          },
        ],
        backendRefs: [{ name: 'cart-next', port: 80, weight: 1 }],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/cart' } }],
        backendRefs: [
          { name: 'cart', port: 80, weight: 80 },
          { name: 'cart-next', port: 80, weight: 20 },
        ],
      },
    ]);
  });

  it('answers a redirect with RequestRedirect and no rewrite, and refuses a fixed answer', () => {
    const redirect = convertRoute(
      route({
        action: {
          type: 'redirect',
          redirect: {
            scheme: 'https',
            hostname: 'example.com',
            statusCode: 301,
            path: { type: 'ReplaceFullPath', value: '/new' },
          },
        },
        policy: { rewrite: { type: 'ReplaceFullPath', value: '/ignored' } },
      }),
      context,
    );
    expect(redirect.rules[0]!.filters).toEqual([
      {
        type: 'RequestRedirect',
        requestRedirect: {
          statusCode: 301,
          scheme: 'https',
          hostname: 'example.com',
          path: { type: 'ReplaceFullPath', replaceFullPath: '/new' },
        },
      },
    ]);
    expect(redirect.rules[0]!.backendRefs).toBeUndefined();
    const respond = convertRoute(route({ action: { type: 'respond', statusCode: 503 } }), context);
    expect(respond.rules).toEqual([]);
    expect(respond.findings[0]!.kind).toBe('error');
  });

  it('sends HSTS as a response header only for a host with a certificate', () => {
    const hsts = { hsts: { maxAgeSeconds: 60, includeSubdomains: false, preload: true } };
    expect(convertRoute(route({ policy: hsts }), context).rules[0]!.filters).toBeUndefined();
    expect(convertRoute(route({ policy: hsts }), { ...context, hostHasTls: true }).rules[0]!.filters).toEqual(
      [
        {
          type: 'ResponseHeaderModifier',
          responseHeaderModifier: {
            set: [{ name: 'Strict-Transport-Security', value: 'max-age=60; preload' }],
          },
        },
      ],
    );
  });
});
