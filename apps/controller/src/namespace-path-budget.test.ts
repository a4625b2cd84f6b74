import type { Ingress, IngressClass } from '@ingresskit/store';
import { describe, expect, it } from 'vitest';
import { viewOfObjects, type ClusterObjects } from './cluster-view.js';
import { IngressRouting } from './ingress-routing.js';
import { NamespacePathBudget } from './namespace-path-budget.js';

describe('NamespacePathBudget', () => {
  it('serves the oldest Ingresses first and lets younger ones in that still fit', () => {
    const budget = new NamespacePathBudget(10);
    budget.set('team/old', 6, 1_000);
    budget.set('team/big', 5, 2_000);
    budget.set('team/small', 4, 3_000);
    budget.set('other/big', 10, 3_000);
    expect(budget.settle().sort()).toEqual(['team/big']);
    expect(budget.refusal('team/old')).toBeUndefined();
    expect(budget.refusal('team/big')).toBe(
      'its 5 paths would take namespace team past the 10 paths this controller serves per namespace (--max-paths-per-namespace; older Ingresses come first); the Ingress is not served',
    );
    expect(budget.refusal('team/small')).toBeUndefined();
    expect(budget.refusal('other/big')).toBeUndefined();
  });

  it('lets a left-out Ingress in when an older one shrinks or goes, and says which moved', () => {
    const budget = new NamespacePathBudget(10);
    budget.set('team/old', 6, 1_000);
    budget.set('team/young', 6, 2_000);
    budget.settle();
    budget.set('team/old', 4, 1_000);
    expect(budget.settle()).toEqual(['team/young']);
    expect(budget.refusal('team/young')).toBeUndefined();
    budget.set('team/old', 5, 1_000);
    expect(budget.settle()).toEqual(['team/young']);
    budget.delete('team/old');
    expect(budget.settle()).toEqual(['team/young']);
    expect(budget.refusal('team/young')).toBeUndefined();
  });

  it('never lets a new Ingress push an older one out', () => {
    const budget = new NamespacePathBudget(10);
    budget.set('team/b-old', 8, 1_000);
    budget.settle();
    // a-new sorts first by name, but it is younger: age decides, the name only breaks ties.
    budget.set('team/a-new', 8, 2_000);
    expect(budget.settle()).toEqual(['team/a-new']);
    expect(budget.refusal('team/b-old')).toBeUndefined();
  });
});

const ours: IngressClass = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: { name: 'nginx', resourceVersion: '1' },
  spec: { controller: 'ingresskit.dev/ingress-controller' },
};

function ingress(name: string, paths: number, createdSecond: number): Ingress {
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
              backend: { service: { name: 'web', port: { number: 80 } } },
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
