import { describe, expect, it } from 'vitest';
import type { GlobalRateLimit } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

const STORE = { host: '10.0.0.7', port: 11211, timeoutMs: 50, idleTimeoutMs: 10_000, poolSize: 50 };
const LIMIT: GlobalRateLimit = {
  scope: 'Ingress/shop/cart',
  limit: 100,
  windowSeconds: 60,
  key: [{ type: 'clientAddress' }, { type: 'text', value: '-' }, { type: 'header', name: 'X-Api-Client' }],
  statusCode: 429,
  store: STORE,
};

function compileLimit(globalRateLimit: GlobalRateLimit) {
  return compileRoute(createTestRoute('r', { action: forwardAction, policy: { globalRateLimit } }));
}

describe('compileRoute: globalRateLimit', () => {
  it('compiles the limit, the key as nginx variables, the store and exempt networks', () => {
    const { entry, issues } = compileLimit({ ...LIMIT, exemptSources: ['10.0.0.0/8'] });
    expect(issues).toEqual([]);
    expect(entry.policy?.glimit).toEqual({
      scope: 'Ingress/shop/cart',
      limit: 100,
      window: 60,
      key: [
        ['var', 'remote_addr'],
        ['text', '-'],
        ['var', 'http_x_api_client'],
      ],
      status: 429,
      store: ['10.0.0.7', 11211, 50, 10_000, 50],
      exempt: [['0a000000', 8]],
    });
  });

  it.each([
    [{ ...LIMIT, scope: 'a\nb' }, 'policy.globalRateLimit.scope'],
    [{ ...LIMIT, limit: 0 }, 'policy.globalRateLimit.limit'],
    [{ ...LIMIT, windowSeconds: 0.5 }, 'policy.globalRateLimit.windowSeconds'],
    [{ ...LIMIT, windowSeconds: 15 * 24 * 3600 }, 'policy.globalRateLimit.windowSeconds'],
    [{ ...LIMIT, statusCode: 200 }, 'policy.globalRateLimit.statusCode'],
    [{ ...LIMIT, key: [{ type: 'text', value: 'x' }] }, 'policy.globalRateLimit.key'],
    [{ ...LIMIT, key: [{ type: 'header', name: 'a b' }] }, 'policy.globalRateLimit.key[0].name'],
    [{ ...LIMIT, store: { ...STORE, host: 'memcached\r\nflush_all' } }, 'policy.globalRateLimit.store.host'],
    [{ ...LIMIT, store: { ...STORE, host: 'a:1' } }, 'policy.globalRateLimit.store.host'],
    [{ ...LIMIT, store: { ...STORE, port: 0 } }, 'policy.globalRateLimit.store.port'],
    [{ ...LIMIT, store: { ...STORE, poolSize: 0 } }, 'policy.globalRateLimit.store.poolSize'],
  ])('answers 500 rather than serve unlimited when a limit cannot be read: %j', (limit, field) => {
    const { entry, issues } = compileLimit(limit as GlobalRateLimit);
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(issues).toEqual([expect.objectContaining({ severity: 'error', field })]);
  });

  it('accepts an IPv6 address and a host name as the store', () => {
    for (const host of ['::1', 'memcached.infra.svc.cluster.local']) {
      const { entry, issues } = compileLimit({ ...LIMIT, store: { ...STORE, host } });
      expect(issues).toEqual([]);
      expect(entry.policy?.glimit?.store[0]).toBe(host);
    }
  });
});
