import type { Route, RouteContribution } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import { RouteRefusals } from './route-refusals.js';

function contributionWithRoutes(...ids: string[]): RouteContribution {
  return {
    source: { kind: 'Ingress', namespace: 'team', name: 'web' },
    hosts: [{ hostname: 'a.example', routes: ids.map((id) => ({ id }) as unknown as Route) }],
    tls: [],
  };
}

describe('RouteRefusals', () => {
  it('keeps a contribution as it is when no route is refused', () => {
    const contribution = contributionWithRoutes('Ingress/team/web/r0');
    expect(new RouteRefusals().keptOf(contribution)).toBe(contribution);
  });

  it('leaves out refused routes until they are forgotten', () => {
    const refusals = new RouteRefusals();
    expect(refusals.addRoute({ routeId: 'Ingress/team/web/r1', message: 'bad regex' })).toBe(true);
    expect(refusals.addRoute({ routeId: 'Ingress/team/web/r1', message: 'bad regex' })).toBe(false);
    const contribution = contributionWithRoutes('Ingress/team/web/r0', 'Ingress/team/web/r1');
    expect(refusals.keptOf(contribution).hosts[0]!.routes.map((route) => route.id)).toEqual([
      'Ingress/team/web/r0',
    ]);
    refusals.forgetRoutes('Ingress/team/other/');
    expect([...refusals.routes()]).toHaveLength(1);
    refusals.forgetRoutes('Ingress/team/web/');
    expect(refusals.keptOf(contribution)).toBe(contribution);
  });

  it('returns the certificates whose refusal started, ended or changed reason', () => {
    const refusals = new RouteRefusals();
    expect([...refusals.setCertificates(new Map([['c1', 'bad key']]))]).toEqual(['c1']);
    expect(refusals.setCertificates(new Map([['c1', 'bad key']])).size).toBe(0);
    expect([...refusals.setCertificates(new Map([['c2', 'expired']]))].sort()).toEqual(['c1', 'c2']);
    expect(refusals.certificateReason('c1')).toBeUndefined();
    expect(refusals.certificateReason('c2')).toBe('expired');
  });
});
