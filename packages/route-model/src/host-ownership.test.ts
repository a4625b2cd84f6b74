import { describe, expect, it } from 'vitest';
import { createRouteTableBuilder, type RouteTableBuilder } from './builder.js';
import { selectRoute } from './select.js';
import { createForwardRoute, createOrigin } from './testing.js';
import { NO_CERTIFICATE } from './tls-bindings.js';
import type { PathMatch, RouteContribution, RouteOrigin, TlsClaim } from './types.js';

/** A claim of the certificate `id` (made up) for `hostname`. */
function claimOf(hostname: string, id: string, origin: RouteOrigin): TlsClaim {
  return { hostname, certificate: { id, certificatePem: `cert ${id}`, privateKeyPem: `key ${id}` }, origin };
}

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
    tls: options.certificate === undefined ? [] : [claimOf(hostname, options.certificate, origin([]))],
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

/**
 * A contribution of `namespace/name` (kind `kind`) naming `hostname` with one route `/` to
 * `namespace/name:80`, a wildcard of `wildcard` kind, and maybe a certificate for it.
 */
function named(
  namespace: string,
  name: string,
  createdAt: number,
  hostname: string,
  options: { wildcard?: 'one-label' | 'suffix'; certificate?: string; kind?: string } = {},
): RouteContribution {
  const kind = options.kind ?? (options.wildcard === 'suffix' ? 'Gateway' : 'Ingress');
  const origin = createOrigin(name, createdAt, [0], { kind, namespace });
  const route = createForwardRoute(
    `${kind}/${namespace}/${name}@${hostname}`,
    '/',
    `${namespace}/${name}:80`,
    {
      origin,
    },
  );
  const host: RouteContribution['hosts'][number] = { hostname, routes: [route] };
  if (options.wildcard !== undefined) host.wildcard = options.wildcard;
  return {
    source: { kind, namespace, name },
    tenant: namespace,
    hosts: [host],
    tls: options.certificate === undefined ? [] : [claimOf(hostname, options.certificate, origin)],
  };
}

/** The backend that answers `GET host/` on `http`, or undefined. */
function servedBy(builder: RouteTableBuilder, host: string): string | undefined {
  const selection = selectRoute(builder.table(), { listener: 'http', host, path: '/', method: 'GET' });
  if (!selection.found || selection.route.action.type !== 'forward') return undefined;
  return selection.route.action.backends[0]?.backend;
}

function certificateOf(builder: RouteTableBuilder, hostname: string): string | undefined {
  return builder.table().tls.find((binding) => binding.hostname === hostname)?.certificate;
}

function ownedBuilder(...contributions: RouteContribution[]): RouteTableBuilder {
  const builder = createRouteTableBuilder({ hostOwnership: 'oldest-tenant' });
  for (const contribution of contributions) builder.setContribution(contribution);
  builder.commit();
  return builder;
}

describe("hostOwnership: 'oldest-tenant' with wildcards", () => {
  it("gives a name under an older namespace's wildcard to that namespace, routes and certificate", () => {
    const builder = ownedBuilder(
      named('victim', 'wild', 1000, '*.apps.test', { certificate: 'victim' }),
      named('mallory', 'shop', 2000, 'shop.apps.test', { certificate: 'evil' }),
    );
    expect(servedBy(builder, 'shop.apps.test')).toBe('victim/wild:80');
    expect(certificateOf(builder, 'shop.apps.test')).toBeUndefined();
    expect(builder.table().certificates.map(({ id }) => id)).toEqual(['victim']);
    const owner = {
      tenant: 'victim',
      source: { kind: 'Ingress', namespace: 'victim', name: 'wild' },
      via: '*.apps.test',
    };
    expect(builder.hostOwner('shop.apps.test')).toEqual(owner);
    expect(builder.notes()).toEqual([
      {
        type: 'host-owned-elsewhere',
        source: { kind: 'Ingress', namespace: 'mallory', name: 'shop' },
        hostname: 'shop.apps.test',
        owner,
      },
    ]);
  });

  it("keeps an older exact name from a younger wildcard, and the wildcard's certificate off it", () => {
    const builder = ownedBuilder(
      named('victim', 'shop', 1000, 'shop.apps.test'),
      named('mallory', 'wild', 2000, '*.apps.test', { certificate: 'evil' }),
    );
    expect(servedBy(builder, 'shop.apps.test')).toBe('victim/shop:80');
    expect(servedBy(builder, 'other.apps.test')).toBe('mallory/wild:80');
    expect(builder.hostOwner('shop.apps.test')?.tenant).toBe('victim');
    expect(builder.notes()).toEqual([]);
    // A data plane would fall back to `*.apps.test` for the name: it gets no certificate instead.
    expect(certificateOf(builder, 'shop.apps.test')).toBe(NO_CERTIFICATE);

    builder.setContribution(named('victim', 'shop', 1000, 'shop.apps.test', { certificate: 'victim' }));
    builder.commit();
    expect(certificateOf(builder, 'shop.apps.test')).toBe('victim');
    builder.setContribution(named('victim', 'shop', 1000, 'shop.apps.test'));
    builder.commit();
    expect(certificateOf(builder, 'shop.apps.test')).toBe(NO_CERTIFICATE);
    builder.deleteContribution('Ingress/mallory/wild');
    const delta = builder.commit();
    expect(delta.tls.remove).toEqual(['*.apps.test', 'shop.apps.test']);
    expect(builder.table().tls).toEqual([]);
  });

  it("serves an exact name the same namespace's wildcard certificate, and shields it once another namespace's wildcard arrives", () => {
    const builder = ownedBuilder(
      named('victim', 'wild', 1000, '*.apps.test', { certificate: 'victim' }),
      named('victim', 'shop', 2000, 'shop.apps.test'),
      named('mallory', 'own', 500, 'own.apps.test'),
    );
    expect(certificateOf(builder, 'shop.apps.test')).toBeUndefined();
    // mallory's older exact name is mallory's, and must not get victim's wildcard certificate.
    expect(certificateOf(builder, 'own.apps.test')).toBe(NO_CERTIFICATE);
    builder.deleteContribution('Ingress/victim/wild');
    builder.setContribution(named('mallory', 'wild', 3000, '*.apps.test', { certificate: 'evil' }));
    const delta = builder.commit();
    // No source touched shop.apps.test: the wildcard's certificate changing tenant is enough.
    expect(delta.tls.upsert.map(({ hostname, certificate }) => [hostname, certificate])).toEqual([
      ['*.apps.test', 'evil'],
      ['shop.apps.test', NO_CERTIFICATE],
    ]);
    expect(delta.tls.remove).toEqual(['own.apps.test']);
  });

  it('hands a covered name to the next oldest namespace when the wildcard goes, and back when it returns', () => {
    const wild = named('victim', 'wild', 1000, '*.apps.test');
    const builder = ownedBuilder(wild, named('mallory', 'shop', 2000, 'shop.apps.test'));
    expect(servedBy(builder, 'shop.apps.test')).toBe('victim/wild:80');

    builder.deleteContribution('Ingress/victim/wild');
    const handedOver = builder.commit();
    expect(handedOver.virtualHosts.upsert.map(({ hostname }) => hostname)).toEqual(['shop.apps.test']);
    expect(servedBy(builder, 'shop.apps.test')).toBe('mallory/shop:80');
    expect(builder.notes()).toEqual([]);

    builder.setContribution(wild);
    const back = builder.commit();
    expect(back.virtualHosts.remove).toEqual(['shop.apps.test']);
    expect(servedBy(builder, 'shop.apps.test')).toBe('victim/wild:80');
    expect(builder.notes()).toEqual([
      expect.objectContaining({ type: 'host-owned-elsewhere', hostname: 'shop.apps.test' }),
    ]);
  });

  it('covers one label with an Ingress wildcard and any number with a Gateway API one', () => {
    const builder = ownedBuilder(
      named('victim', 'ingress', 1000, '*.one.test'),
      named('victim', 'gateway', 1000, '*.any.test', { wildcard: 'suffix' }),
      named('mallory', 'a', 2000, 'a.one.test'),
      named('mallory', 'deep', 2000, 'x.y.one.test'),
      named('mallory', 'wild', 2000, '*.y.one.test'),
      named('mallory', 'b', 2000, 'b.any.test'),
      named('mallory', 'deeper', 2000, 'x.y.any.test'),
      named('mallory', 'wilder', 2000, '*.y.any.test', { wildcard: 'suffix' }),
    );
    const owners = Object.fromEntries(
      ['a.one.test', 'x.y.one.test', '*.y.one.test', 'b.any.test', 'x.y.any.test', '*.y.any.test'].map(
        (hostname) => [hostname, builder.hostOwner(hostname)?.tenant],
      ),
    );
    expect(owners).toEqual({
      'a.one.test': 'victim',
      'x.y.one.test': 'mallory',
      '*.y.one.test': 'mallory',
      'b.any.test': 'victim',
      'x.y.any.test': 'victim',
      '*.y.any.test': 'victim',
    });
    expect(servedBy(builder, 'x.y.one.test')).toBe('mallory/deep:80');
    expect(servedBy(builder, 'z.y.any.test')).toBe('victim/gateway:80');
  });

  it('gives a wildcard under an older, wider wildcard of another namespace to that namespace, and what it covers', () => {
    const builder = ownedBuilder(
      named('mallory', 'narrow', 2000, '*.apps.good.test', { certificate: 'evil' }),
      named('victim', 'wide', 1000, '*.good.test', { wildcard: 'suffix' }),
      named('third', 'shop', 1500, 'shop.apps.good.test'),
    );
    expect(builder.hostOwner('*.apps.good.test')).toMatchObject({ tenant: 'victim', via: '*.good.test' });
    expect(builder.hostOwner('shop.apps.good.test')?.tenant).toBe('victim');
    expect(servedBy(builder, 'any.apps.good.test')).toBe('victim/wide:80');
    expect(certificateOf(builder, '*.apps.good.test')).toBeUndefined();
    // Without the wide wildcard, the older exact name is third's and the rest mallory's.
    builder.deleteContribution('Gateway/victim/wide');
    builder.commit();
    expect(servedBy(builder, 'shop.apps.good.test')).toBe('third/shop:80');
    expect(servedBy(builder, 'any.apps.good.test')).toBe('mallory/narrow:80');
    expect(certificateOf(builder, 'shop.apps.good.test')).toBe(NO_CERTIFICATE);
  });

  it('decides as if a new object named the host, not counting what its source has in the table (admission)', () => {
    const builder = ownedBuilder(
      named('victim', 'wild', 2000, '*.apps.test'),
      named('mallory', 'shop', 500, 'old.apps.test'),
    );
    const claimant = (createdAt: number) => ({
      source: { kind: 'Ingress', namespace: 'mallory', name: 'shop' },
      tenant: 'mallory',
      origin: createOrigin('shop', createdAt, [], { namespace: 'mallory' }),
    });
    expect(builder.hostOwner('new.apps.test')?.tenant).toBe('victim');
    expect(builder.hostOwner('new.apps.test', claimant(1000))?.tenant).toBe('mallory');
    expect(builder.hostOwner('new.apps.test', claimant(3000))?.tenant).toBe('victim');
    expect(builder.hostOwner('old.apps.test')?.tenant).toBe('mallory');
    expect(builder.hostOwner('old.apps.test', claimant(3000))?.tenant).toBe('victim');
  });

  it('assembles only the wildcard when its routes change, not the names under it', () => {
    const hosts = Array.from({ length: 50 }, (_, i) => named('victim', `h${i}`, 500, `h${i}.apps.test`));
    const builder = ownedBuilder(
      ...hosts,
      named('mallory', 'wild', 1000, '*.apps.test', { certificate: 'evil' }),
    );
    const wild = named('mallory', 'wild', 1000, '*.apps.test', { certificate: 'evil' });
    wild.hosts[0]!.routes.push(
      createForwardRoute('mallory/wild/2', '/more', 'mallory/wild:80', {
        origin: createOrigin('wild', 1000, [1], { namespace: 'mallory' }),
      }),
    );
    builder.setContribution(wild);
    const delta = builder.commit();
    expect(delta.virtualHosts.upsert.map(({ hostname }) => hostname)).toEqual(['*.apps.test']);
    expect(delta.tls.upsert).toEqual([]);
    // Nor when a younger wildcard over all of them comes and goes: each name keeps its owner.
    builder.setContribution(named('mallory', 'wide', 3000, '*.test', { wildcard: 'suffix' }));
    expect(builder.commit().virtualHosts.upsert.map(({ hostname }) => hostname)).toEqual(['*.test']);
    builder.deleteContribution('Gateway/mallory/wide');
    expect(builder.commit().virtualHosts.remove).toEqual(['*.test']);
  });

  it('agrees with a table built from scratch after every change, in any order', () => {
    const hostnames = ['x.test', 'a.x.test', 'b.x.test', '*.x.test', 'c.y.x.test', '*.y.x.test', '*.test'];
    const pool: RouteContribution[] = [];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      // The low bits of this generator repeat with a short period: use the high ones.
      return Math.floor(seed / 65536) % n;
    };
    for (let i = 0; i < 24; i += 1) {
      const hostname = hostnames[next(hostnames.length)]!;
      const wildcard = hostname.startsWith('*.') ? (['one-label', 'suffix'] as const)[next(2)] : undefined;
      pool.push(
        named(`t${next(3)}`, `s${i}`, 1000 + next(5) * 100, hostname, {
          ...(wildcard === undefined ? {} : { wildcard }),
          ...(next(2) === 0 ? { certificate: `c${i}` } : {}),
          kind: 'Ingress',
        }),
      );
    }
    const builder = createRouteTableBuilder({ hostOwnership: 'oldest-tenant' });
    const live = new Map<string, RouteContribution>();
    for (let step = 0; step < 400; step += 1) {
      const contribution = pool[next(pool.length)]!;
      const key = `Ingress/${contribution.source.namespace}/${contribution.source.name}`;
      if (live.has(key)) {
        live.delete(key);
        builder.deleteContribution(key);
      } else {
        live.set(key, contribution);
        builder.setContribution(contribution);
      }
      if (next(3) !== 0) continue;
      builder.commit();
      const fresh = ownedBuilder(...live.values());
      expect(builder.table()).toEqual(fresh.table());
      const byText = (notes: unknown[]) => notes.map((note) => JSON.stringify(note)).sort();
      expect(byText(builder.notes())).toEqual(byText(fresh.notes()));
    }
  });
});
