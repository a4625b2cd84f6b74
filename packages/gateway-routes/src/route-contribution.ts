/**
 * The route-model contribution of an HTTPRoute: one host per attached hostname, with a route per
 * rule match served on the data-plane listeners that hostname attached to.
 */
import {
  type HostContribution,
  type Route,
  type RouteContribution,
  routeIdOf,
  type SourceRef,
} from '@ingresskit/route-model';
import { HTTP_ROUTE_KIND } from './allowed-routes.js';
import { compareText } from './grammar.js';
import type { ParentDecision } from './parent-attachment.js';
import type { TranslatedRules } from './rules.js';

/** Builds the contribution from the ready listeners attached to; undefined when none is ready. */
export function buildContribution(
  source: SourceRef,
  createdAt: number,
  decisions: readonly ParentDecision[],
  rules: TranslatedRules,
): RouteContribution | undefined {
  const listenersByHostname = new Map<string, Set<string>>();
  for (const decision of decisions) {
    for (const { listener, hostnames } of decision.attached) {
      // A listener without its certificate counts the route but serves nothing.
      if (!listener.isReady) continue;
      for (const hostname of hostnames) {
        const set = listenersByHostname.get(hostname) ?? new Set<string>();
        set.add(listener.dataPlaneListener!);
        listenersByHostname.set(hostname, set);
      }
    }
  }
  if (listenersByHostname.size === 0) return undefined;
  const hosts: HostContribution[] = [...listenersByHostname.keys()].sort(compareText).map((hostname) => {
    const listeners = [...listenersByHostname.get(hostname)!].sort(compareText);
    const routes = rules.matches.map((entry): Route => ({
      id: routeIdOf(source, `r${entry.index[0]}/m${entry.index[1]}@${hostname}`),
      origin: {
        kind: HTTP_ROUTE_KIND,
        namespace: source.namespace,
        name: source.name,
        createdAt,
        index: entry.index,
        field: entry.field,
      },
      match: entry.match,
      action: entry.action,
      policy: entry.policy,
      listeners,
    }));
    return { hostname, wildcard: 'suffix', routes };
  });
  return { source: { ...source }, hosts, tls: [] };
}
