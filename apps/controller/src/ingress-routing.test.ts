import type { Ingress, IngressClass } from '@ingresskit/store';
import { describe, expect, it } from 'vitest';
import { viewOfObjects } from './cluster-view.js';
import { IngressRouting } from './ingress-routing.js';

const ours: IngressClass = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: { name: 'nginx', resourceVersion: '1' },
  spec: { controller: 'ingresskit.dev/ingress-controller' },
};

function ingress(resourceVersion: string, paths: string[]): Ingress {
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
  return viewOfObjects({
    ingresses: [object],
    ingressClasses: [ours],
    services: [],
    endpointSlices: [],
    secrets: [],
    ingressCheckSums: [],
  });
}

describe('IngressRouting.updateIngresses', () => {
  const listeners = [{ name: 'http', port: 80, protocol: 'HTTP' as const }];

  it('works on a key named twice once, and on an unchanged Ingress not at all', () => {
    const routing = new IngressRouting({ classConfig: {}, listeners, now: Date.now });
    const first = viewOf(ingress('1', ['/']));
    routing.initialize(first);
    routing.updateIngresses(first, ['team/shop', 'team/shop']);
    const delta = routing.commit();
    expect(delta.virtualHosts.upsert.map((host) => host.hostname)).toEqual(['*', 'shop.example.com']);
    const contribution = routing.contributionOf('team/shop');

    routing.updateIngresses(first, ['team/shop']);
    expect(routing.commit().virtualHosts.upsert).toEqual([]);
    expect(routing.contributionOf('team/shop')).toBe(contribution);

    const edited = viewOf(ingress('2', ['/', '/api']));
    routing.updateIngresses(edited, ['team/shop']);
    const [host] = routing.commit().virtualHosts.upsert;
    expect(host?.routes.map((route) => route.id)).toEqual([
      'Ingress/team/shop/r0/p1',
      'Ingress/team/shop/r0/p0',
    ]);
  });

  it('sets the same translation again without the routes the data plane refused', () => {
    const routing = new IngressRouting({ classConfig: {}, listeners, now: Date.now });
    const view = viewOf(ingress('1', ['/', '/api']));
    routing.initialize(view);
    routing.updateIngresses(view, ['team/shop']);
    routing.commit();
    routing.refuseRoutes(view, [{ routeId: 'Ingress/team/shop/r0/p1', message: 'refused by the data plane' }]);
    routing.updateIngresses(view, ['team/shop']);
    routing.commit();
    expect(routing.virtualHost('shop.example.com')?.routes.map((route) => route.id)).toEqual([
      'Ingress/team/shop/r0/p0',
    ]);
  });
});
