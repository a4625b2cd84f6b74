import type { EndpointSliceLike } from '@ingresskit/kube-objects';
import {
  routeIdOf,
  serviceBackendIdOf,
  type Route,
  type RouteContribution,
  type SourceRef,
} from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import type { BackendView } from './backend-view.js';
import { RoutingTable } from './routing-table.js';

const listeners = [{ name: 'http', port: 80, protocol: 'HTTP' as const }];

/** A view whose Services have one endpoint each, at the address `endpoints` names. */
function viewOf(endpoints: Map<string, string>): BackendView {
  return {
    service: (key) => (endpoints.has(key) ? { metadata: { name: key } } : undefined),
    endpointSlicesForService: () => [] as EndpointSliceLike[],
  };
}

function createTable(endpoints: Map<string, string>, options: { maxPathsPerNamespace?: number } = {}) {
  return new RoutingTable({
    listeners,
    hostOwnership: 'oldest-tenant',
    ...options,
    resolveBackend: (ref) => {
      const id = serviceBackendIdOf(ref);
      const address = endpoints.get(`${ref.namespace}/${ref.name}`);
      return address === undefined
        ? { backend: { id, endpoints: [] }, problem: 'no such Service', problemCode: 'service-not-found' }
        : { backend: { id, endpoints: [{ address, port: 8080 }] } };
    },
  });
}

function contribution(
  source: SourceRef,
  hostname: string,
  createdAt: number,
  paths = ['/'],
): RouteContribution {
  const routes = paths.map((path, index): Route => ({
    id: routeIdOf(source, `p${index}`),
    origin: { ...source, createdAt, index: [index] },
    match: { path: { type: 'PathPrefix', value: path } },
    action: {
      type: 'forward',
      backends: [
        { backend: serviceBackendIdOf({ namespace: source.namespace, name: 'web', port: 80 }), weight: 1 },
      ],
    },
    policy: {},
  }));
  return { source, tenant: source.namespace, hosts: [{ hostname, routes }], tls: [] };
}

describe('RoutingTable', () => {
  it('gives a host to the oldest tenant whatever kind its sources are', () => {
    const endpoints = new Map([
      ['a/web', '10.0.0.1'],
      ['b/web', '10.0.0.2'],
    ]);
    const view = viewOf(endpoints);
    const table = createTable(endpoints);
    const ingress = { kind: 'Ingress', namespace: 'a', name: 'shop' };
    const route = { kind: 'HTTPRoute', namespace: 'b', name: 'shop' };
    table.update(view, [
      { source: route, contribution: contribution(route, 'shop.example.com', 2), isNewVersion: true },
      { source: ingress, contribution: contribution(ingress, 'shop.example.com', 1), isNewVersion: true },
    ]);
    table.commit();
    expect(table.virtualHost('shop.example.com')?.routes.map((r) => r.id)).toEqual(['Ingress/a/shop/p0']);
    expect(table.problemsOf(route)).toEqual([
      expect.objectContaining({ code: 'host-owned-elsewhere', value: 'shop.example.com' }),
    ]);
    expect(table.takeAffected()).toEqual(new Set(['HTTPRoute/b/shop']));
  });

  it('resolves backends from the view, again when their Service changes, and reports one that answers 503', () => {
    const endpoints = new Map<string, string>();
    const view = viewOf(endpoints);
    const table = createTable(endpoints);
    const source = { kind: 'Demo', namespace: 'a', name: 'shop' };
    table.update(view, [
      { source, contribution: contribution(source, 'shop.example.com', 1), isNewVersion: true },
    ]);
    table.commit();
    expect(table.problemsOf(source)).toEqual([expect.objectContaining({ code: 'service-not-found' })]);
    expect(table.isServiceReferenced('a/web')).toBe(true);
    endpoints.set('a/web', '10.0.0.9');
    table.updateServices(view, ['a/web']);
    table.commit();
    expect(table.table().backends).toEqual([
      { id: 'a/web:80', endpoints: [{ address: '10.0.0.9', port: 8080 }] },
    ]);
    expect(table.problemsOf(source)).toEqual([]);
  });

  it('leaves a refused route out until its source is set as a new version', () => {
    const endpoints = new Map([['a/web', '10.0.0.1']]);
    const view = viewOf(endpoints);
    const table = createTable(endpoints);
    const source = { kind: 'Demo', namespace: 'a', name: 'shop' };
    const entry = { source, contribution: contribution(source, 'shop.example.com', 1, ['/', '/x']) };
    table.update(view, [{ ...entry, isNewVersion: true }]);
    table.commit();
    expect(table.refuseRoutes(view, [{ routeId: 'Demo/a/shop/p1', message: 'bad regex' }])).toBe(true);
    table.commit();
    expect(table.virtualHost('shop.example.com')?.routes.map((r) => r.id)).toEqual(['Demo/a/shop/p0']);
    expect(table.problemsOf(source)).toEqual([expect.objectContaining({ field: 'p1' })]);
    table.update(view, [{ ...entry, isNewVersion: false }]);
    table.commit();
    expect(table.virtualHost('shop.example.com')?.routes).toHaveLength(1);
    table.update(view, [{ ...entry, isNewVersion: true }]);
    table.commit();
    expect(table.virtualHost('shop.example.com')?.routes).toHaveLength(2);
  });

  it('counts paths of the sources that say how many, oldest first, and lets the next in once one is withdrawn', () => {
    const endpoints = new Map([['a/web', '10.0.0.1']]);
    const view = viewOf(endpoints);
    const table = createTable(endpoints, { maxPathsPerNamespace: 2 });
    const old = { kind: 'Ingress', namespace: 'a', name: 'old' };
    const young = { kind: 'Ingress', namespace: 'a', name: 'young' };
    table.update(view, [
      {
        source: old,
        contribution: contribution(old, 'old.example.com', 1, ['/', '/x']),
        isNewVersion: true,
        paths: 2,
        createdAt: 1,
      },
      {
        source: young,
        contribution: contribution(young, 'young.example.com', 2),
        isNewVersion: true,
        paths: 1,
        createdAt: 2,
      },
    ]);
    table.commit();
    expect(table.virtualHost('young.example.com')).toBeUndefined();
    expect(table.budgetProblemOf(young)?.message).toMatch(/past the 2 paths .*; the Ingress is not served$/);
    table.withdraw(view, 'Ingress/a/old');
    table.update(view, []);
    table.commit();
    expect(table.virtualHost('young.example.com')).toBeDefined();
    expect(table.budgetProblemOf(young)).toBeUndefined();
  });
});
