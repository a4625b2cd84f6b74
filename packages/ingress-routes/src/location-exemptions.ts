/**
 * The controller ConfigMap's no-tls-redirect-locations and no-auth-locations: the Ingress paths
 * that are never redirected to HTTPS, and those that ask for no authentication.
 */
import type { RoutePolicy } from '@ingresskit/route-model';
import { checkLiteralPath, splitCommaList } from './grammar.js';
import { type IngressAnnotations } from './annotation-types.js';

/**
 * ingress-nginx's default of both lists: an ACME HTTP-01 solver (cert-manager's Ingress) must be
 * reachable over plain HTTP and without credentials, or no certificate is ever issued.
 */
export const DEFAULT_EXEMPT_LOCATIONS: readonly string[] = Object.freeze(['/.well-known/acme-challenge']);

/** Most prefixes one list may hold. */
const MAX_LOCATIONS = 64;

/** A comma-separated list of path prefixes (spaces around each ignored, "" for none), or why not. */
export function parseLocationList(value: string): string[] | string {
  const locations = splitCommaList(value);
  if (locations.length > MAX_LOCATIONS) return `must hold at most ${MAX_LOCATIONS} paths`;
  for (const location of locations) {
    const problem = checkLiteralPath(location);
    if (problem !== undefined) return `holds ${JSON.stringify(location)}, which ${problem}`;
  }
  return [...new Set(locations)];
}

/**
 * Whether `path` (an Ingress path as written) starts with one of `locations`: ingress-nginx's
 * isLocationInLocationList compares the location's path as written, a regex's too.
 */
export function isInLocationList(path: string, locations: readonly string[]): boolean {
  return locations.some((location) => path.startsWith(location));
}

/**
 * `policy` for a route of the Ingress path `path`: without the redirect to HTTPS when the path is
 * in no-tls-redirect-locations, without authentication (auth-url or global-auth-url, basic and
 * digest, as ingress-nginx's location skips them) when it is in no-auth-locations. The same
 * object when neither list holds it (policies are shared and frozen), else a copy.
 */
export function exemptLocation(
  policy: RoutePolicy,
  path: string,
  annotations: Pick<IngressAnnotations, 'noTlsRedirectLocations' | 'noAuthLocations'>,
): RoutePolicy {
  const noTlsRedirect =
    policy.redirectToHttps !== undefined &&
    isInLocationList(path, annotations.noTlsRedirectLocations ?? DEFAULT_EXEMPT_LOCATIONS);
  const hasAuth =
    policy.externalAuth !== undefined || policy.basicAuth !== undefined || policy.digestAuth !== undefined;
  const noAuth = hasAuth && isInLocationList(path, annotations.noAuthLocations ?? DEFAULT_EXEMPT_LOCATIONS);
  if (!noTlsRedirect && !noAuth) return policy;
  const copy = { ...policy };
  if (noTlsRedirect) delete copy.redirectToHttps;
  if (noAuth) {
    delete copy.externalAuth;
    delete copy.basicAuth;
    delete copy.digestAuth;
    // satisfy any with nothing to authenticate: the source lists alone decide, as nginx's.
    delete copy.satisfy;
  }
  return copy;
}
