import { describe, expect, it } from 'vitest';
import { createRouteTableBuilder } from './builder.js';
import { sourceKey } from './ids.js';
import { applyRouteTableDelta, diffRouteTables } from './diff.js';
import { createContribution, createForwardRoute, createOrigin } from './testing.js';
import type { Certificate, RouteContribution, RouteTable } from './types.js';

const empty: RouteTable = { listeners: [], virtualHosts: [], tls: [], certificates: [], backends: [] };

function ingress(name: string, createdAt: number, hosts: Record<string, string[]>): RouteContribution {
  const origin = createOrigin(name, createdAt);
  return createContribution(
    origin,
    Object.entries(hosts).map(([hostname, paths], rule) => ({
      hostname,
      routes: paths.map((path, index) =>
        createForwardRoute(`${name}/r${rule}/p${index}`, path, `default/${name}:80`, {
          origin: createOrigin(name, createdAt, [rule, index]),
        }),
      ),
      fallback: 'table-default' as const,
    })),
  );
}

function certificate(id: string): Certificate {
  return { id, certificatePem: `cert ${id}`, privateKeyPem: `key ${id}` };
}

describe('createRouteTableBuilder', () => {
  it('assembles contributions of several sources per hostname, in precedence order', () => {
    const builder = createRouteTableBuilder();
    builder.setContribution(ingress('a', 1, { 'shop.test': ['/'] }));
    builder.setContribution(ingress('b', 2, { 'shop.test': ['/cart'], 'other.test': ['/'] }));
    const delta = builder.commit();
    expect(delta.virtualHosts.upsert.map((host) => host.hostname)).toEqual(['other.test', 'shop.test']);
    expect(builder.virtualHost('shop.test')?.routes.map((route) => route.id)).toEqual(['b/r0/p0', 'a/r0/p0']);
  });

  it("shares a hostname's only contribution's routes when they are in precedence order, else sorts a copy", () => {
    const builder = createRouteTableBuilder();
    const inOrder = ingress('a', 1, { 'a.test': ['/cart', '/'] });
    const outOfOrder = ingress('b', 2, { 'b.test': ['/', '/cart'] });
    builder.setContribution(inOrder);
    builder.setContribution(outOfOrder);
    builder.commit();
    expect(builder.virtualHost('a.test')?.routes).toBe(inOrder.hosts[0]!.routes);
    const sorted = builder.virtualHost('b.test')?.routes;
    expect(sorted).not.toBe(outOfOrder.hosts[0]!.routes);
    expect(sorted?.map((route) => route.id)).toEqual(['b/r0/p1', 'b/r0/p0']);
    expect(outOfOrder.hosts[0]!.routes.map((route) => route.id)).toEqual(['b/r0/p0', 'b/r0/p1']);
  });

  it("publishes a host again when only a route's request or backend-request timeout changes", () => {
    const builder = createRouteTableBuilder();
    const withTimeouts = (requestMs: number, backendRequestMs: number): RouteContribution => {
      const route = createForwardRoute('a/r0/p0', '/', 'default/a:80');
      return createContribution(route.origin, [
        {
          hostname: 'shop.test',
          routes: [{ ...route, policy: { timeouts: { requestMs, backendRequestMs } } }],
        },
      ]);
    };
    builder.setContribution(withTimeouts(10_000, 2_000));
    builder.commit();
    builder.setContribution(withTimeouts(10_000, 2_000));
    expect(builder.commit().virtualHosts.upsert).toEqual([]);
    builder.setContribution(withTimeouts(10_000, 3_000));
    const [host] = builder.commit().virtualHosts.upsert;
    expect(host?.routes[0]?.policy.timeouts).toEqual({ requestMs: 10_000, backendRequestMs: 3_000 });
  });

  it('re-assembles only the hosts a change touches', () => {
    const builder = createRouteTableBuilder();
    builder.setContribution(ingress('a', 1, { 'one.test': ['/'], 'two.test': ['/'] }));
    builder.setContribution(ingress('b', 2, { 'three.test': ['/'] }));
    builder.commit();
    builder.setContribution(ingress('b', 2, { 'three.test': ['/', '/x'] }));
    const delta = builder.commit();
    expect(delta.virtualHosts.upsert.map((host) => host.hostname)).toEqual(['three.test']);
    expect(delta.virtualHosts.remove).toEqual([]);
    expect(builder.commit().virtualHosts.upsert).toEqual([]);
  });

  it('gives an identical match to the oldest source and notes the younger one', () => {
    const builder = createRouteTableBuilder();
    builder.setContribution(ingress('young', 2000, { 'shop.test': ['/api'] }));
    builder.setContribution(ingress('old', 1000, { 'shop.test': ['/api/'] }));
    builder.commit();
    expect(builder.virtualHost('shop.test')?.routes.map((route) => route.id)).toEqual(['old/r0/p0']);
    expect(builder.notes()).toEqual([
      expect.objectContaining({
        type: 'route-shadowed',
        source: { kind: 'Ingress', namespace: 'default', name: 'young' },
        hostname: 'shop.test',
      }),
    ]);
    // When the older source goes, the younger route serves and its note disappears.
    builder.deleteContribution(sourceKey({ kind: 'Ingress', namespace: 'default', name: 'old' }));
    builder.commit();
    expect(builder.virtualHost('shop.test')?.routes.map((route) => route.id)).toEqual(['young/r0/p0']);
    expect(builder.notes()).toEqual([]);
  });

  it('removes a host when its last contribution goes', () => {
    const builder = createRouteTableBuilder();
    builder.setContribution(ingress('a', 1, { 'shop.test': ['/'] }));
    builder.commit();
    builder.deleteContribution('Ingress/default/a');
    expect(builder.commit().virtualHosts.remove).toEqual(['shop.test']);
    expect(builder.table().virtualHosts).toEqual([]);
  });

  it('uses the default fallback for hosts that ask for it, and re-assembles them when it changes', () => {
    const notFound = {
      ...createForwardRoute('default', '/', 'unused'),
      action: { type: 'respond' as const, statusCode: 404 },
    };
    const builder = createRouteTableBuilder({ defaultFallback: notFound });
    builder.setContribution(ingress('a', 1, { 'shop.test': ['/x'] }));
    builder.commit();
    expect(builder.virtualHost('shop.test')?.fallbackRoute?.id).toBe('default');
    const toBackend = createForwardRoute('default', '/', 'ns/default-backend:80');
    expect(builder.setDefaultFallback(toBackend).added).toEqual(['ns/default-backend:80']);
    expect(builder.commit().virtualHosts.upsert.map((host) => host.fallbackRoute?.action.type)).toEqual([
      'forward',
    ]);
  });

  it('prefers an explicit fallback of the oldest source and notes the others', () => {
    const builder = createRouteTableBuilder();
    const fallbackOf = (name: string, createdAt: number) => ({
      ...createContribution(createOrigin(name, createdAt), [
        {
          hostname: '*',
          routes: [],
          fallback: createForwardRoute(`${name}/default`, '/', `default/${name}:80`, {
            origin: createOrigin(name, createdAt),
          }),
        },
      ]),
    });
    builder.setContribution(fallbackOf('young', 2));
    builder.setContribution(fallbackOf('old', 1));
    builder.commit();
    expect(builder.virtualHost('*')?.fallbackRoute?.id).toBe('old/default');
    expect(builder.virtualHost('*')?.hostnameMatch).toBe('any');
    expect(builder.notes()).toEqual([
      expect.objectContaining({ type: 'fallback-overridden', hostname: '*' }),
    ]);
  });

  it('counts backend references per source and reports the first and the last', () => {
    const builder = createRouteTableBuilder();
    expect(builder.setContribution(ingress('a', 1, { 'x.test': ['/'] })).added).toEqual(['default/a:80']);
    const shared = createContribution(createOrigin('b', 2), [
      { hostname: 'y.test', routes: [createForwardRoute('b/r0/p0', '/', 'default/a:80')] },
    ]);
    expect(builder.setContribution(shared)).toEqual({ added: [], removed: [] });
    expect(builder.sourcesOfBackend('default/a:80')).toEqual(['Ingress/default/a', 'Ingress/default/b']);
    expect(builder.deleteContribution('Ingress/default/a').removed).toEqual([]);
    expect(builder.deleteContribution('Ingress/default/b').removed).toEqual(['default/a:80']);
    // Replacing a contribution that keeps its backend neither adds nor removes it.
    builder.setContribution(shared);
    expect(builder.setContribution(shared)).toEqual({ added: [], removed: [] });
  });

  it('binds each TLS hostname to the oldest claim, carries certificates while bound, and notes losers', () => {
    const builder = createRouteTableBuilder();
    const withTls = (name: string, createdAt: number, id: string, hostname = 'shop.test') => ({
      ...ingress(name, createdAt, { [hostname]: ['/'] }),
      tls: [{ hostname, certificate: certificate(id), origin: createOrigin(name, createdAt) }],
    });
    builder.setContribution(withTls('young', 2, 'c2'));
    builder.setContribution(withTls('old', 1, 'c1'));
    let delta = builder.commit();
    expect(delta.tls.upsert).toEqual([expect.objectContaining({ hostname: 'shop.test', certificate: 'c1' })]);
    expect(delta.certificates.upsert.map((entry) => entry.id)).toEqual(['c1']);
    const tlsNotes = builder.notes().filter((note) => note.type === 'tls-overridden');
    expect(tlsNotes).toEqual([
      expect.objectContaining({ hostname: 'shop.test', by: expect.objectContaining({ certificate: 'c1' }) }),
    ]);

    builder.deleteContribution('Ingress/default/old');
    delta = builder.commit();
    expect(delta.tls.upsert.map((binding) => binding.certificate)).toEqual(['c2']);
    expect(delta.certificates).toEqual({ upsert: [expect.objectContaining({ id: 'c2' })], remove: ['c1'] });

    builder.deleteContribution('Ingress/default/young');
    delta = builder.commit();
    expect(delta.tls.remove).toEqual(['shop.test']);
    expect(delta.certificates.remove).toEqual(['c2']);
    expect(builder.table().certificates).toEqual([]);
  });

  it('keeps a certificate shared by two hostnames until neither is bound to it', () => {
    const builder = createRouteTableBuilder();
    const claim = (name: string, hostname: string) => ({
      ...ingress(name, 1, { [hostname]: ['/'] }),
      tls: [{ hostname, certificate: certificate('shared'), origin: createOrigin(name, 1) }],
    });
    builder.setContribution(claim('a', 'a.test'));
    builder.setContribution(claim('b', 'b.test'));
    expect(builder.commit().certificates.upsert).toHaveLength(1);
    builder.deleteContribution('Ingress/default/a');
    expect(builder.commit().certificates).toEqual({ upsert: [], remove: [] });
    builder.deleteContribution('Ingress/default/b');
    expect(builder.commit().certificates.remove).toEqual(['shared']);
  });

  it('passes backends through, upserting only real changes', () => {
    const builder = createRouteTableBuilder();
    builder.setBackend({ id: 'ns/svc:80', endpoints: [{ address: '10.0.0.1', port: 8080 }] });
    expect(builder.commit().backends.upsert).toHaveLength(1);
    builder.setBackend({ id: 'ns/svc:80', endpoints: [{ address: '10.0.0.1', port: 8080 }] });
    expect(builder.commit().backends.upsert).toEqual([]);
    builder.deleteBackend('ns/svc:80');
    expect(builder.commit().backends.remove).toEqual(['ns/svc:80']);
  });

  it('produces deltas that, applied one after another, give the same table as a diff from scratch', () => {
    const builder = createRouteTableBuilder({ listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] });
    let replayed = empty;
    const steps: (() => void)[] = [
      () => builder.setContribution(ingress('a', 1, { 'a.test': ['/', '/x'], 'b.test': ['/'] })),
      () => builder.setContribution(ingress('b', 2, { 'a.test': ['/x', '/y'] })),
      () => builder.setBackend({ id: 'default/a:80', endpoints: [{ address: '10.0.0.1', port: 80 }] }),
      () => builder.deleteContribution('Ingress/default/a'),
      () => builder.setContribution(ingress('a', 3, { 'c.test': ['/'] })),
      () => builder.setListeners([{ name: 'http', port: 8080, protocol: 'HTTP' }]),
    ];
    for (const step of steps) {
      step();
      replayed = applyRouteTableDelta(replayed, builder.commit());
      expect(replayed).toEqual(builder.table());
    }
    expect(diffRouteTables(empty, builder.table())).toEqual(diffRouteTables(undefined, replayed));
  });
});
