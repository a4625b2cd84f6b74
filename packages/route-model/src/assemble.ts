/**
 * Assembly: the contributions of every source for one hostname become one virtual host (routes in
 * precedence order, hidden duplicates dropped, one fallback), and the TLS claims for one hostname
 * become one binding (the oldest claim wins).
 */
import { attachCanaries, type SourcedCanary } from './canary.js';
import { hostnameMatchOf } from './hostnames.js';
import { compareOrigins, compareRoutes, matchKey } from './precedence.js';
import type {
  AssemblyNote,
  HostContribution,
  Route,
  SourceRef,
  TlsBinding,
  TlsClaim,
  VirtualHost,
} from './types.js';

/** One source's contribution to a hostname. */
export interface SourcedHostContribution {
  source: SourceRef;
  host: HostContribution;
}

/** One source's claims on a hostname's certificate. */
export interface SourcedTlsClaim {
  source: SourceRef;
  claim: TlsClaim;
}

/** The virtual host of one hostname, and what assembling it decided against its sources. */
export interface AssembledVirtualHost {
  /** Undefined when no contribution is left for the hostname. */
  virtualHost: VirtualHost | undefined;
  notes: AssemblyNote[];
}

/**
 * Merges every contribution to `hostname` into one virtual host. Routes are sorted by
 * {@link compareRoutes}; a route with the same match as one before it (see `matchKey`) could never
 * answer, so it is left out and reported. The fallback is the oldest explicit fallback route, else
 * `defaultFallback` when a contribution asks for the table default, else none. A `*.` hostname
 * matches one label unless every contribution asks for `suffix` (so a Gateway API route cannot
 * widen what an Ingress wildcard covers).
 */
export function assembleVirtualHost(
  hostname: string,
  contributions: readonly SourcedHostContribution[],
  defaultFallback?: Route,
): AssembledVirtualHost {
  if (contributions.length === 0) return { virtualHost: undefined, notes: [] };
  const sourceOf = new Map<Route, SourceRef>();
  const candidates: Route[] = [];
  const fallbacks: Route[] = [];
  const canaries: SourcedCanary[] = [];
  let wantsTableDefault = false;
  let wildcard: 'one-label' | 'suffix' = 'suffix';
  for (const { source, host } of contributions) {
    if ((host.wildcard ?? 'one-label') === 'one-label') wildcard = 'one-label';
    for (const route of host.routes) {
      sourceOf.set(route, source);
      candidates.push(route);
    }
    for (const canary of host.canaries ?? []) canaries.push({ source, canary });
    if (host.fallback === 'table-default') wantsTableDefault = true;
    else if (host.fallback !== undefined) {
      sourceOf.set(host.fallback, source);
      fallbacks.push(host.fallback);
    }
  }
  candidates.sort(compareRoutes);
  const notes: AssemblyNote[] = [];
  const winners = new Map<string, Route>();
  let routes: Route[] = [];
  for (const route of candidates) {
    const key = matchKey(route);
    const winner = winners.get(key);
    if (winner === undefined) {
      winners.set(key, route);
      routes.push(route);
    } else {
      notes.push({ type: 'route-shadowed', source: sourceOf.get(route)!, route, by: winner, hostname });
    }
  }
  const attached = attachCanaries(hostname, routes, sourceOf, canaries);
  routes = attached.routes;
  notes.push(...attached.notes);
  // A hostname only canaries name serves nothing.
  if (routes.length === 0 && fallbacks.length === 0 && !wantsTableDefault)
    return { virtualHost: undefined, notes };
  fallbacks.sort((a, b) => compareOrigins(a.origin, b.origin));
  const fallbackRoute = fallbacks[0] ?? (wantsTableDefault ? defaultFallback : undefined);
  for (const route of fallbacks.slice(1)) {
    notes.push({
      type: 'fallback-overridden',
      source: sourceOf.get(route)!,
      route,
      by: fallbackRoute!,
      hostname,
    });
  }
  const hostnameMatch = hostnameMatchOf(hostname, wildcard);
  routes = reusedRoutes(routes, contributions);
  // One literal per shape: a property added later goes to a separate backing store.
  const virtualHost: VirtualHost =
    fallbackRoute === undefined
      ? { hostname, hostnameMatch, routes }
      : { hostname, hostnameMatch, routes, fallbackRoute };
  return { virtualHost, notes };
}

/**
 * The routes of a virtual host without a second list when they are those of its one contribution,
 * in the same order (the usual case: one Ingress per hostname); else `routes` at its exact length
 * (a list grown by `push` keeps room for 17). Contributions and virtual hosts are read-only.
 */
function reusedRoutes(routes: Route[], contributions: readonly SourcedHostContribution[]): Route[] {
  const own = contributions.length === 1 ? contributions[0]!.host.routes : undefined;
  if (own !== undefined && own.length === routes.length && own.every((route, i) => route === routes[i]))
    return own;
  return routes.slice();
}

/** The certificate binding of one hostname, and the claims it overrode. */
export interface AssembledTlsBinding {
  binding: TlsBinding | undefined;
  notes: AssemblyNote[];
}

/**
 * Picks the certificate for `hostname`: the claim of the oldest origin wins. Losing claims with a
 * different certificate are reported; a claim for the same certificate loses nothing.
 */
export function assembleTlsBinding(
  hostname: string,
  claims: readonly SourcedTlsClaim[],
): AssembledTlsBinding {
  const sorted = [...claims].sort((a, b) => compareOrigins(a.claim.origin, b.claim.origin));
  const winner = sorted[0];
  if (winner === undefined) return { binding: undefined, notes: [] };
  const binding: TlsBinding = {
    hostname,
    certificate: winner.claim.certificate.id,
    origin: winner.claim.origin,
  };
  const notes: AssemblyNote[] = [];
  for (const { source, claim } of sorted.slice(1)) {
    if (claim.certificate.id === binding.certificate) continue;
    notes.push({ type: 'tls-overridden', source, hostname, claim, by: binding });
  }
  return { binding, notes };
}
