import type { EndpointSlice, Ingress, IngressClass } from '@ingresskit/store';
import { describe, expect, it } from 'vitest';
import { viewOfObjects, type ClusterObjects } from './cluster-view.js';
import { IngressRouting } from './ingress-routing.js';

const ours: IngressClass = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: { name: 'nginx', resourceVersion: '1' },
  spec: { controller: 'ingresskit.dev/ingress-controller' },
};

function ingress(name: string, paths: number, createdSecond: number, service = 'web'): Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: 'team',
      resourceVersion: String(createdSecond),
      creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, createdSecond)).toISOString(),
    },
    spec: {
      ingressClassName: 'nginx',
      rules: [
        {
          host: `${name}.example.com`,
          http: {
            paths: Array.from({ length: paths }, (_, index) => ({
              path: `/p${index}`,
              pathType: 'Prefix',
              backend: { service: { name: service, port: { number: 80 } } },
            })),
          },
        },
      ],
    },
  };
}

function objects(ingresses: Ingress[]): ClusterObjects {
  return {
    ingresses,
    ingressClasses: [ours],
    services: [],
    endpointSlices: [],
    secrets: [],
    ingressCheckSums: [],
  };
}

describe('IngressRouting with --max-paths-per-namespace', () => {
  const listeners = [{ name: 'http', port: 80, protocol: 'HTTP' as const }];

  function hostnames(routing: IngressRouting): string[] {
    return routing
      .table()
      .virtualHosts.map((host) => host.hostname)
      .filter((hostname) => hostname !== '*')
      .sort();
  }

  it('leaves out the Ingress that would pass the limit, with a problem, and serves it once room is made', () => {
    const routing = new IngressRouting({
      classConfig: {},
      listeners,
      now: Date.now,
      maxPathsPerNamespace: 5,
    });
    const first = objects([ingress('old', 3, 1), ingress('young', 3, 2)]);
    routing.initialize(viewOfObjects(first));
    routing.updateIngresses(viewOfObjects(first), ['team/old', 'team/young']);
    routing.commit();
    expect(hostnames(routing)).toEqual(['old.example.com']);
    expect(routing.problemsOf('team/young')).toEqual([
      expect.objectContaining({
        field: 'spec.rules',
        severity: 'error',
        message: expect.stringContaining('--max-paths-per-namespace'),
      }),
    ]);
    routing.takeAffectedIngresses();

    const shrunk = objects([ingress('old', 1, 1), ingress('young', 3, 2)]);
    routing.updateIngresses(viewOfObjects(shrunk), ['team/old']);
    routing.commit();
    expect(hostnames(routing)).toEqual(['old.example.com', 'young.example.com']);
    expect(routing.problemsOf('team/young').filter(({ field }) => field === 'spec.rules')).toEqual([]);
    // young's problem went away without a change of its own: it must be looked at again.
    expect(routing.takeAffectedIngresses()).toEqual(new Set(['team/old', 'team/young']));
  });
});

function shop(resourceVersion: string, paths: string[]): Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'shop', namespace: 'team', uid: 'u-1', resourceVersion },
    spec: {
      ingressClassName: 'nginx',
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: paths.map((path) => ({
              path,
              pathType: 'Prefix',
              backend: { service: { name: 'web', port: { number: 80 } } },
            })),
          },
        },
      ],
    },
  };
}

function viewOf(object: Ingress) {
  return viewOfObjects(objects([object]));
}

describe('IngressRouting.updateIngresses', () => {
  const listeners = [{ name: 'http', port: 80, protocol: 'HTTP' as const }];

  it('works on a key named twice once, and on an unchanged Ingress not at all', () => {
    const routing = new IngressRouting({ classConfig: {}, listeners, now: Date.now });
    const first = viewOf(shop('1', ['/']));
    routing.initialize(first);
    routing.updateIngresses(first, ['team/shop', 'team/shop']);
    const delta = routing.commit();
    expect(delta.virtualHosts.upsert.map((host) => host.hostname)).toEqual(['*', 'shop.example.com']);
    const contribution = routing.contributionOf('team/shop');

    routing.updateIngresses(first, ['team/shop']);
    expect(routing.commit().virtualHosts.upsert).toEqual([]);
    expect(routing.contributionOf('team/shop')).toBe(contribution);

    const edited = viewOf(shop('2', ['/', '/api']));
    routing.updateIngresses(edited, ['team/shop']);
    const [host] = routing.commit().virtualHosts.upsert;
    expect(host?.routes.map((route) => route.id)).toEqual([
      'Ingress/team/shop/r0/p1',
      'Ingress/team/shop/r0/p0',
    ]);
  });

  it('sets the same translation again without the routes the data plane refused', () => {
    const routing = new IngressRouting({ classConfig: {}, listeners, now: Date.now });
    const view = viewOf(shop('1', ['/', '/api']));
    routing.initialize(view);
    routing.updateIngresses(view, ['team/shop']);
    routing.commit();
    routing.routingTable.refuseRoutes(view, [
      { routeId: 'Ingress/team/shop/r0/p1', message: 'refused by the data plane' },
    ]);
    routing.updateIngresses(view, ['team/shop']);
    routing.commit();
    expect(routing.routingTable.virtualHost('shop.example.com')?.routes.map((route) => route.id)).toEqual([
      'Ingress/team/shop/r0/p0',
    ]);
  });
});

describe('IngressRouting with a data budget', () => {
  const listeners = [{ name: 'http', port: 80, protocol: 'HTTP' as const }];

  /** 1 MiB of shared dict: 768 KiB handed out, at most half of it to one namespace. */
  function createBudgetedRouting(): IngressRouting {
    return new IngressRouting({
      classConfig: {},
      listeners,
      now: Date.now,
      dataBudget: { capacityBytes: 1024 ** 2, namespaceShare: 0.5 },
    });
  }

  function inNamespace(namespace: string, source: Ingress): Ingress {
    return { ...source, metadata: { ...source.metadata, namespace } };
  }

  it("leaves out a namespace's youngest Ingresses past its part of the dict, and never another namespace's", () => {
    const routing = createBudgetedRouting();
    const tenant = Array.from({ length: 8 }, (_, index) => ingress(`bulk-${index}`, 500, index + 10));
    const victim = inNamespace('victim', ingress('shop', 3, 60));
    const cluster = objects([...tenant, victim]);
    routing.initialize(viewOfObjects(cluster));
    routing.updateIngresses(viewOfObjects(cluster), [
      ...tenant.map((item) => `team/${item.metadata.name}`),
      'victim/shop',
    ]);
    routing.commit();
    const served = routing
      .table()
      .virtualHosts.map((host) => host.hostname)
      .filter((hostname) => hostname.startsWith('bulk-'));
    expect(served.length).toBeGreaterThan(0);
    expect(served.length).toBeLessThan(8);
    // Oldest first: the ones served are the first ones.
    expect(served.sort()).toEqual(
      tenant.slice(0, served.length).map((item) => `${item.metadata.name}.example.com`),
    );
    expect(routing.routingTable.virtualHost('shop.example.com')).toBeDefined();
    expect(routing.problemsOf('victim/shop').map((problem) => problem.code)).toEqual(['service-not-found']);
    expect(routing.problemsOf('team/bulk-7')).toContainEqual(
      expect.objectContaining({
        code: 'namespace-dict-share',
        message: expect.stringMatching(
          /would take namespace team past its part of it: .* the Ingress is not served$/,
        ),
      }),
    );
    // Deleting an old one makes room for the next.
    const fewer = objects([...tenant.slice(1), victim]);
    routing.updateIngresses(viewOfObjects(fewer), ['team/bulk-0']);
    routing.commit();
    expect(routing.routingTable.virtualHost(`bulk-${served.length}.example.com`)).toBeDefined();
  });

  it('counts Gateway API sources too, and reports those it leaves out', () => {
    const routing = createBudgetedRouting();
    const view = viewOfObjects(objects([]));
    routing.initialize(view);
    const route = (name: string, index: number) => ({
      id: `HTTPRoute/team/${name}/r${index}`,
      origin: { kind: 'HTTPRoute', namespace: 'team', name, createdAt: 1000, index: [index] },
      match: { path: { type: 'PathPrefix' as const, value: `/${'x'.repeat(200)}/${index}` } },
      action: { type: 'respond' as const, statusCode: 200 },
      policy: {},
    });
    for (const name of ['a', 'b', 'c']) {
      routing.setContribution(view, {
        source: { kind: 'HTTPRoute', namespace: 'team', name },
        hosts: [
          {
            hostname: `${name}.example.com`,
            routes: Array.from({ length: 250 }, (_, index) => route(name, index)),
          },
        ],
        tls: [],
      });
    }
    routing.commit();
    expect(routing.routingTable.virtualHost('a.example.com')).toBeDefined();
    expect(routing.routingTable.virtualHost('c.example.com')).toBeUndefined();
    const budgetProblems = () =>
      ['a', 'b', 'c'].flatMap(
        (name) => routing.routingTable.budgetProblemOf({ kind: 'HTTPRoute', namespace: 'team', name }) ?? [],
      );
    expect(budgetProblems()).toEqual([
      expect.objectContaining({
        object: { kind: 'HTTPRoute', namespace: 'team', name: 'c' },
        message: expect.stringMatching(/past its part of it: .*; the HTTPRoute is not served$/),
      }),
    ]);
    routing.routingTable.withdraw(view, 'HTTPRoute/team/a');
    routing.routingTable.update(view, []);
    routing.commit();
    expect(routing.routingTable.virtualHost('c.example.com')).toBeDefined();
    expect(budgetProblems()).toEqual([]);
  });

  it("counts a backend's endpoints, again when they change", () => {
    const routing = createBudgetedRouting();
    const old = ingress('old', 1, 1);
    const young = ingress('young', 1, 2, 'crowd');
    const slice = (addresses: number) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'crowd-1', namespace: 'team', labels: { 'kubernetes.io/service-name': 'crowd' } },
      addressType: 'IPv4',
      endpoints: Array.from({ length: addresses }, (_, index) => ({
        addresses: [`10.${index >> 16}.${(index >> 8) & 255}.${index & 255}`],
      })),
      ports: [{ port: 80 }],
    });
    const view = (addresses: number) =>
      viewOfObjects({
        ...objects([old, young]),
        endpointSlices: [slice(addresses) as unknown as EndpointSlice],
      });
    routing.initialize(view(10));
    routing.updateIngresses(view(10), ['team/old', 'team/young']);
    routing.commit();
    expect(routing.routingTable.virtualHost('young.example.com')).toBeDefined();
    // The tenant scales the Service behind its younger Ingress to 10,000 endpoints.
    routing.routingTable.updateServices(view(10_000), ['team/crowd']);
    routing.commit();
    expect(routing.routingTable.virtualHost('young.example.com')).toBeUndefined();
    expect(routing.routingTable.virtualHost('old.example.com')).toBeDefined();
    expect(routing.problemsOf('team/young')).toContainEqual(
      expect.objectContaining({ code: 'namespace-dict-share' }),
    );
  });
});

describe('IngressRouting.setOwnPorts', () => {
  const listeners = [{ name: 'http', port: 80, protocol: 'HTTP' as const }];

  it('judges every backend again when the ports change (a stream service took one)', () => {
    const routing = new IngressRouting({
      classConfig: {},
      listeners,
      now: Date.now,
      backendAddressPolicy: {
        allowExternalName: true,
        allowLocalAddresses: true,
        forbiddenAddresses: new Set(),
        ownPorts: new Set([80]),
      },
    });
    const view = viewOfObjects({
      ...objects([shop('1', ['/'])]),
      services: [{ metadata: { name: 'web', namespace: 'team' }, spec: { ports: [{ port: 80 }] } }],
      endpointSlices: [
        {
          metadata: { name: 'web-1', namespace: 'team', labels: { 'kubernetes.io/service-name': 'web' } },
          addressType: 'IPv4',
          endpoints: [{ addresses: ['127.0.0.1'] }],
          ports: [{ port: 9000 }],
        },
      ],
    } as never);
    routing.initialize(view);
    routing.updateIngresses(view, ['team/shop']);
    routing.commit();
    expect(routing.problemsOf('team/shop')).toEqual([]);
    expect(routing.setOwnPorts(view, new Set([80]))).toBe(false);
    expect(routing.setOwnPorts(view, new Set([80, 9000]))).toBe(true);
    expect(routing.backendAddressPolicy.ownPorts).toEqual(new Set([80, 9000]));
    routing.updateIngresses(view, ['team/shop']);
    routing.commit();
    expect(routing.problemsOf('team/shop').map((problem) => problem.message)).toEqual([
      expect.stringContaining('127.0.0.1:9000 is a port of the gateway itself'),
    ]);
  });
});
