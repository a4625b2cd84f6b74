/**
 * Canaries at assembly: each canary contribution of a hostname becomes the `canary` of the
 * forwarding route of another source in the same namespace with the same match (ingress-nginx
 * merges a canary Ingress into the main Ingress of the same host and path). The namespace rule
 * keeps one namespace from drawing off another's traffic.
 */
import { compareOrigins, matchKey } from './precedence.js';
import type { AssemblyNote, CanaryContribution, Route, SourceRef } from './types.js';

/** A canary and the source it comes from. */
export interface SourcedCanary {
  source: SourceRef;
  canary: CanaryContribution;
}

/**
 * `routes` (assembled, in precedence order) with the canaries attached: a new route object for
 * each route that gets one. Canaries are taken oldest first, so the oldest wins a route; the
 * others are noted.
 */
export function attachCanaries(
  hostname: string,
  routes: Route[],
  sourceOf: ReadonlyMap<Route, SourceRef>,
  canaries: readonly SourcedCanary[],
): { routes: Route[]; notes: AssemblyNote[] } {
  if (canaries.length === 0) return { routes, notes: [] };
  const byMatch = new Map<string, number>();
  routes.forEach((route, index) => {
    if (!byMatch.has(matchKey(route))) byMatch.set(matchKey(route), index);
  });
  const result = [...routes];
  const takenBy = new Map<number, Route>();
  const notes: AssemblyNote[] = [];
  const ordered = [...canaries].sort((a, b) => compareOrigins(a.canary.route.origin, b.canary.route.origin));
  for (const { source, canary } of ordered) {
    const { route: canaryRoute, rule } = canary;
    const index = byMatch.get(matchKey(canaryRoute));
    const main = index === undefined ? undefined : routes[index]!;
    const mainSource = main === undefined ? undefined : sourceOf.get(main);
    const usable =
      main !== undefined &&
      main.action.type === 'forward' &&
      canaryRoute.action.type === 'forward' &&
      mainSource !== undefined &&
      mainSource.namespace === source.namespace &&
      !(mainSource.kind === source.kind && mainSource.name === source.name);
    if (!usable) {
      notes.push({ type: 'canary-unmatched', source, route: canaryRoute, hostname });
      continue;
    }
    const earlier = takenBy.get(index!);
    if (earlier !== undefined) {
      notes.push({ type: 'canary-unmatched', source, route: canaryRoute, hostname, by: earlier });
      continue;
    }
    takenBy.set(index!, canaryRoute);
    const backends = canaryRoute.action.type === 'forward' ? canaryRoute.action.backends : [];
    result[index!] = { ...main, action: { ...main.action, canary: { ...rule, backends } } } as Route;
  }
  return { routes: result, notes };
}
