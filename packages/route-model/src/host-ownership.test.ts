import { describe, expect, it } from 'vitest';
import { createRouteTableBuilder, type RouteTableBuilder } from './builder.js';
import { selectRoute } from './select.js';
import { createForwardRoute, createOrigin } from './testing.js';
import type { PathMatch, RouteContribution } from './types.js';

/** An Ingress-like contribution of `namespace/name`: one host, some paths, maybe a certificate. */
function source(
  namespace: string,
  name: string,
  createdAt: number,
  hostname: string,
  paths: (string | PathMatch)[],
  options: { certificate?: string; tenant?: string | null } = {},
): RouteContribution {
  const origin = (index: number[]) => createOrigin(name, createdAt, index, { namespace });
  const contribution: RouteContribution = {
    source: { kind: 'Ingress', namespace, name },
    hosts:
      paths.length === 0
        ? []
        : [
            {
              hostname,
              routes: paths.map((path, index) =>
                createForwardRoute(`${namespace}/${name}/p${index}`, path, `${namespace}/${name}:80`, {
                  origin: origin([0, index]),
                }),
              ),
            },
          ],
    tls:
      options.certificate === undefined
        ? []
        : [
            {
              hostname,
              certificate: {
                id: options.certificate,
                certificatePem: `cert ${options.certificate}`,
                privateKeyPem: `key ${options.certificate}`,
              },
              origin: origin([]),
            },
          ],
  };
  if (options.tenant !== null) contribution.tenant = options.tenant ?? namespace;
  return contribution;
}

function backendFor(builder: RouteTableBuilder, path: string): string | undefined {
  const selection = selectRoute(builder.table(), {
    listener: 'http',
    host: 'shop.test',
    path,
    method: 'GET',
  });
  if (!selection.found || selection.route.action.type !== 'forward') return undefined;
  return selection.route.action.backends[0]?.backend;
}

describe("hostOwnership: 'oldest-tenant'", () => {
  it("leaves out a younger namespace's paths and regexes for a host, and notes why", () => {
    const builder = createRouteTableBuilder({ hostOwnership: 'oldest-tenant' });
    builder.setContribution(source('victim', 'shop', 1000, 'shop.test', ['/']));
    builder.setContribution(
      source('attacker', 'grab', 2000, 'shop.test', ['/admin', { type: 'RegularExpression', value: '/.*' }]),
    );
    builder.commit();
    expect(backendFor(builder, '/admin')).toBe('victim/shop:80');
    expect(backendFor(builder, '/anything')).toBe('victim/shop:80');
    expect(builder.notes()).toEqual([
      {
        type: 'host-owned-elsewhere',
        source: { kind: 'Ingress', namespace: 'attacker', name: 'grab' },
        hostname: 'shop.test',
        owner: { tenant: 'victim', source: { kind: 'Ingress', namespace: 'victim', name: 'shop' } },
      },
    ]);
  });

  it('tells who owns a host, before and after a commit, and nobody in shared mode', () => {
    const builder = createRouteTableBuilder({ hostOwnership: 'oldest-tenant' });
    builder.setContribution(source('attacker', 'grab', 2000, 'shop.test', ['/']));
    builder.setContribution(source('victim', 'tls', 1000, 'shop.test', [], { certificate: 'mine' }));
    const owner = { tenant: 'victim', source: { kind: 'Ingress', namespace: 'victim', name: 'tls' } };
    expect(builder.hostOwner('shop.test')).toEqual(owner);
    builder.commit();
    expect(builder.hostOwner('shop.test')).toEqual(owner);
    expect(builder.hostOwner('other.test')).toBeUndefined();
    const shared = createRouteTableBuilder();
    shared.setContribution(source('victim', 'shop', 1000, 'shop.test', ['/']));
    expect(shared.hostOwner('shop.test')).toBeUndefined();
  });

  it('merges Ingresses of the owning namespace, as ingress-nginx does', () => {
    const builder = createRouteTableBuilder({ hostOwnership: 'oldest-tenant' });
    builder.setContribution(source('victim', 'shop', 1000, 'shop.test', ['/']));
    builder.setContribution(source('victim', 'admin', 2000, 'shop.test', ['/admin']));
    builder.commit();
    expect(backendFor(builder, '/admin')).toBe('victim/admin:80');
    expect(builder.notes()).toEqual([]);
  });

  it('never lets another namespace bind its certificate to the host, not even when the owner has none', () => {
    const builder = createRouteTableBuilder({ hostOwnership: 'oldest-tenant' });
    builder.setContribution(source('victim', 'shop', 1000, 'shop.test', ['/']));
    builder.setContribution(source('attacker', 'tls', 2000, 'shop.test', [], { certificate: 'evil' }));
    const delta = builder.commit();
    expect(delta.tls.upsert).toEqual([]);
    expect(delta.certificates.upsert).toEqual([]);
    expect(builder.notes()).toEqual([
      expect.objectContaining({
        type: 'host-owned-elsewhere',
        source: { kind: 'Ingress', namespace: 'attacker', name: 'tls' },
      }),
    ]);
  });

  it("hands the host to the next oldest namespace when the owner's Ingress goes, and back", () => {
    const builder = createRouteTableBuilder({ hostOwnership: 'oldest-tenant' });
    builder.setContribution(source('first', 'a', 1000, 'shop.test', ['/'], { certificate: 'first' }));
    builder.setContribution(source('second', 'b', 2000, 'shop.test', ['/'], { certificate: 'second' }));
    builder.commit();
    expect(backendFor(builder, '/')).toBe('first/a:80');
    expect(builder.table().tls).toEqual([expect.objectContaining({ certificate: 'first' })]);

    builder.deleteContribution('Ingress/first/a');
    const handedOver = builder.commit();
    expect(backendFor(builder, '/')).toBe('second/b:80');
    expect(handedOver.tls.upsert).toEqual([expect.objectContaining({ certificate: 'second' })]);
    expect(handedOver.certificates.remove).toEqual(['first']);
    expect(builder.notes()).toEqual([]);

    builder.setContribution(source('first', 'a', 1000, 'shop.test', ['/'], { certificate: 'first' }));
    builder.commit();
    expect(backendFor(builder, '/')).toBe('first/a:80');
    expect(builder.table().tls).toEqual([expect.objectContaining({ certificate: 'first' })]);
  });

  it('lets sources without a tenant (Gateway API routes) contribute to any host and own none', () => {
    const builder = createRouteTableBuilder({ hostOwnership: 'oldest-tenant' });
    builder.setContribution(source('gateway', 'route', 500, 'shop.test', ['/api'], { tenant: null }));
    builder.setContribution(source('victim', 'shop', 1000, 'shop.test', ['/']));
    builder.commit();
    expect(backendFor(builder, '/api')).toBe('gateway/route:80');
    expect(backendFor(builder, '/')).toBe('victim/shop:80');
    expect(builder.notes()).toEqual([]);
  });

  it('merges every namespace when hosts are shared (the default, as ingress-nginx)', () => {
    const builder = createRouteTableBuilder();
    builder.setContribution(source('victim', 'shop', 1000, 'shop.test', ['/']));
    builder.setContribution(source('attacker', 'grab', 2000, 'shop.test', ['/admin']));
    builder.commit();
    expect(backendFor(builder, '/admin')).toBe('attacker/grab:80');
  });
});
