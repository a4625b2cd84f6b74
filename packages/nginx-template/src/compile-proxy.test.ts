import { describe, expect, it } from 'vitest';
import type { RoutePolicy } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute } from './testing/routes.js';

function compile(policy: RoutePolicy) {
  return compileRoute(
    createTestRoute('r', { action: { type: 'forward', backends: [{ backend: 'b', weight: 1 }] }, policy }),
  );
}

describe('compileRoute: proxy policies', () => {
  it("names nginx's variables of the hash key, and keeps tries and rewrites", () => {
    const { entry, issues } = compile({
      hashKey: [
        { type: 'text', value: 'k-' },
        { type: 'header', name: 'X-User' },
        { type: 'query', name: 'id' },
        { type: 'clientAddress' },
      ],
      upstreamTries: 2,
      locationRewrite: { from: 'http://a/', to: '/' },
      cookiePathRewrite: { from: '/a', to: '/b' },
    });
    expect(issues).toEqual([]);
    expect(entry.policy).toEqual({
      hash: [
        ['text', 'k-'],
        ['var', 'http_x_user'],
        ['var', 'arg_id'],
        ['var', 'remote_addr'],
      ],
      tries: 2,
      location: ['http://a/', '/'],
      cookiePath: ['/a', '/b'],
    });
  });

  it('compiles the Connection header, the access log and satisfy any', () => {
    const { entry } = compile({ upstreamConnectionHeader: 'close', accessLog: false, satisfy: 'any' });
    expect(entry.policy).toEqual({ connection: 'close', noLog: true, satisfyAny: true });
  });

  it('compiles subsets and ewma', () => {
    const { entry } = compile({ hashKey: [{ type: 'path' }], hashSubsetSize: 2, loadBalancing: 'ewma' });
    expect(entry.policy).toEqual({ hash: [['var', 'uri']], subset: 2, balance: 'ewma' });
  });

  it.each([
    [{ hashKey: [{ type: 'text', value: 'only' }] }, 'policy.hashKey'],
    [{ hashKey: [{ type: 'cookie', name: 'a b' }] }, 'policy.hashKey[0].name'],
    [{ upstreamTries: -1 }, 'policy.upstreamTries'],
    [{ hashKey: [{ type: 'path' }], hashSubsetSize: 0 }, 'policy.hashSubsetSize'],
    [{ loadBalancing: 'random' }, 'policy.loadBalancing'],
    [{ upstreamConnectionHeader: 'close\r\nX: 1' }, 'policy.upstreamConnectionHeader'],
    [{ satisfy: 'all' }, 'policy.satisfy'],
    [{ locationRewrite: { from: '/a', to: '/b\r\nX-Evil: 1' } }, 'policy.locationRewrite.to'],
    [{ cookieDomainRewrite: { from: 'a', to: 'b; Secure' } }, 'policy.cookieDomainRewrite.to'],
  ])('answers 500 for %j', (policy, field) => {
    const { entry, issues } = compile(policy as RoutePolicy);
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(issues).toContainEqual(expect.objectContaining({ field }));
  });
});
