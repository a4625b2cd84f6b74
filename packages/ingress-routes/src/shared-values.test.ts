import { describe, expect, it } from 'vitest';
import { translateIngress, type IngressLike } from './index.js';
import { ingress, path, secrets } from './testing/fixtures.js';

function routesOf(object: IngressLike) {
  const { contribution } = translateIngress(object, secrets(), {});
  return contribution?.hosts.flatMap((host) => host.routes) ?? [];
}

describe('translateIngress (shared route parts)', () => {
  it('gives equal paths of different Ingresses one frozen match', () => {
    const [shop] = routesOf(ingress('shop', { 'shop.example.com': [path('/api', 'Prefix', 'api')] }));
    const [blog] = routesOf(
      ingress('blog', { 'blog.example.com': [path('/api', 'Prefix', 'posts')] }, { namespace: 'blog' }),
    );
    expect(shop!.match).toEqual({ path: { type: 'PathPrefix', value: '/api' } });
    expect(blog!.match).toBe(shop!.match);
    expect(Object.isFrozen(shop!.match.path)).toBe(true);
    const [exact] = routesOf(ingress('exact', { 'shop.example.com': [path('/api', 'Exact', 'api')] }));
    expect(exact!.match).toEqual({ path: { type: 'Exact', value: '/api' } });
  });

  it('gives Ingresses with the same annotations one frozen policy, but not scoped ones', () => {
    const annotations = { 'nginx.ingress.kubernetes.io/proxy-body-size': '8m' };
    const policyOf = (name: string, extra: Record<string, string> = {}) =>
      routesOf(
        ingress(
          name,
          { [`${name}.example.com`]: [path('/', 'Prefix', name)] },
          {
            annotations: { ...annotations, ...extra },
          },
        ),
      )[0]!.policy;
    const first = policyOf('one');
    expect(first.maxBodyBytes).toBe(8 * 1024 * 1024);
    expect(policyOf('two')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const limited = { 'nginx.ingress.kubernetes.io/limit-rps': '5' };
    const scoped = policyOf('three', limited);
    expect(scoped.clientLimits?.scope).toBe('Ingress/default/three');
    expect(policyOf('four', limited).clientLimits?.scope).toBe('Ingress/default/four');
    expect(Object.isFrozen(scoped.clientLimits)).toBe(true);
  });

  it('keeps the routes of a host in the order of its rules', () => {
    const routes = routesOf(
      ingress('shop', {
        'shop.example.com': [path('/', 'Prefix', 'web'), path('/api', 'Prefix', 'api')],
      }),
    );
    expect(routes.map((route) => route.id)).toEqual([
      'Ingress/default/shop/r0/p0',
      'Ingress/default/shop/r0/p1',
    ]);
  });

  it('shares one frozen empty list for no problems, TLS claims or Secrets', () => {
    const first = translateIngress(
      ingress('one', { 'one.example.com': [path('/', 'Prefix', 'web')] }),
      secrets(),
      {},
    );
    const second = translateIngress(
      ingress('two', { 'two.example.com': [path('/', 'Prefix', 'web')] }),
      secrets(),
      {},
    );
    expect(first.problems).toEqual([]);
    expect(second.problems).toBe(first.problems);
    expect(second.contribution?.tls).toBe(first.contribution?.tls);
    expect(second.references.secrets).toBe(first.references.secrets);
    expect(Object.isFrozen(first.problems)).toBe(true);
  });
});
