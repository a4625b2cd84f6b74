/**
 * Which hostnames a route serves on a listener: the intersection of the route's hostnames with the
 * listener's, as Gateway API defines it. A `*.` wildcard matches one or more labels (suffix).
 */
import { ANY_HOSTNAME } from '@ingresskit/route-model';

/** Whether the wildcard `pattern` (`*.example.com`) covers `hostname` (exact or wildcard). */
function isCoveredBy(hostname: string, pattern: string): boolean {
  const suffix = pattern.slice(1);
  return hostname.length > suffix.length && hostname.endsWith(suffix);
}

/**
 * The hostnames a route with `routeHostnames` (valid, possibly empty: any) serves on a listener
 * with `listenerHostname` (undefined: any), most specific wins per pair:
 * - no listener hostname: the route's hostnames, or `*` when it has none;
 * - no route hostnames: the listener's hostname;
 * - otherwise each route hostname the listener's covers is kept as it is (an exact name, or a
 *   narrower wildcard), and a route wildcard that covers the listener's hostname gives the
 *   listener's hostname.
 * Sorted and unique; empty when nothing intersects (the route does not attach to that listener).
 */
export function intersectHostnames(
  listenerHostname: string | undefined,
  routeHostnames: readonly string[],
): string[] {
  if (listenerHostname === undefined) {
    return routeHostnames.length === 0 ? [ANY_HOSTNAME] : [...new Set(routeHostnames)].sort();
  }
  if (routeHostnames.length === 0) return [listenerHostname];
  const result = new Set<string>();
  const listenerIsWildcard = listenerHostname.startsWith('*.');
  for (const hostname of routeHostnames) {
    if (hostname === listenerHostname) result.add(hostname);
    else if (listenerIsWildcard && isCoveredBy(hostname, listenerHostname)) result.add(hostname);
    else if (hostname.startsWith('*.') && isCoveredBy(listenerHostname, hostname))
      result.add(listenerHostname);
  }
  return [...result].sort();
}
