/**
 * Which hostnames a route serves on a listener: the intersection of the route's hostnames with the
 * listener's, as Gateway API defines it. A `*.` wildcard matches one or more labels (suffix).
 */
import { ANY_HOSTNAME, compareHostnames } from '@ingresskit/route-model';

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

/** Whether the listener hostname `pattern` covers `hostname` (exact or wildcard) entirely. */
function isWithin(hostname: string, pattern: string): boolean {
  return hostname === pattern || (pattern.startsWith('*.') && isCoveredBy(hostname, pattern));
}

/**
 * Listener isolation: the hostnames of `hostnames` (served through a listener with hostname
 * `listenerHostname`) that no more specific listener hostname on the same port covers. Requests
 * for a hostname go to the most specific listener that covers it, so a route attached to
 * `*.example.com` cannot serve `admin.example.com` when a listener has that hostname.
 */
export function isolateHostnames(
  listenerHostname: string | undefined,
  hostnames: readonly string[],
  listenerHostnames: readonly string[],
): string[] {
  const moreSpecific = listenerHostnames.filter(
    (other) => listenerHostname === undefined || compareHostnames(other, listenerHostname) < 0,
  );
  return hostnames.filter((hostname) => !moreSpecific.some((other) => isWithin(hostname, other)));
}
