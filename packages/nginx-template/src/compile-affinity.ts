/**
 * SessionAffinity → the affinity entry the Lua router and balancer read: the cookie name and its
 * fixed attributes, written once here; Expires and Secure depend on the request and are added in
 * Lua. Anything that could break the Set-Cookie header makes the route answer 500.
 */
import { normalizePrefix, type Route, type SessionAffinity } from '@ingresskit/route-model';
import type { AffinityEntry } from './data-entries.js';

/** What compiling reports: a fatal error, by field. */
export interface AffinityIssues {
  error(field: string, message: string, value?: unknown): undefined;
}

const COOKIE_NAME = /^[A-Za-z0-9._-]{1,256}$/;
const DOMAIN = /^\.?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
// A cookie path: no `;`, spaces, quotes or control characters.
const PATH = /^\/[\x21\x23-\x2b\x2d-\x3a\x3c-\x7e]{0,1023}$/;
const SAME_SITE = ['None', 'Lax', 'Strict'];
const MAX_SECONDS = 2 ** 31 - 1;

function isSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SECONDS;
}

/** The cookie path when none is set: the route's literal path, `/` for a regex. */
function defaultPath(route: Route): string {
  const path = route.match.path;
  if (path.type === 'PathPrefix') return normalizePrefix(path.value);
  if (path.type === 'Exact') return path.value;
  return '/';
}

/** Compiles `policy.sessionAffinity`; undefined after an error reported through `out`. */
export function compileAffinity(
  affinity: SessionAffinity,
  route: Route,
  out: AffinityIssues,
): AffinityEntry | undefined {
  const field = 'policy.sessionAffinity';
  if (affinity.mode !== 'balanced' && affinity.mode !== 'persistent') {
    return out.error(`${field}.mode`, 'must be balanced or persistent', affinity.mode);
  }
  const cookie = affinity.cookie ?? {};
  if (typeof cookie.name !== 'string' || !COOKIE_NAME.test(cookie.name)) {
    return out.error(`${field}.cookie.name`, 'must be letters, digits, ".", "-" and "_"', cookie.name);
  }
  const path = cookie.path ?? defaultPath(route);
  if (typeof path !== 'string' || !PATH.test(path)) {
    return out.error(`${field}.cookie.path`, 'must be a path without ";", spaces or quotes', path);
  }
  let attributes = `; Path=${path}`;
  if (cookie.domain !== undefined) {
    if (typeof cookie.domain !== 'string' || !DOMAIN.test(cookie.domain)) {
      return out.error(`${field}.cookie.domain`, 'must be a domain name', cookie.domain);
    }
    attributes += `; Domain=${cookie.domain}`;
  }
  if (cookie.maxAgeSeconds !== undefined) {
    if (!isSeconds(cookie.maxAgeSeconds))
      return out.error(`${field}.cookie.maxAgeSeconds`, 'must be whole seconds', cookie.maxAgeSeconds);
    attributes += `; Max-Age=${cookie.maxAgeSeconds}`;
  }
  attributes += '; HttpOnly';
  const entry: AffinityEntry = { name: cookie.name, attributes };
  if (cookie.sameSite !== undefined) {
    if (!SAME_SITE.includes(cookie.sameSite))
      return out.error(`${field}.cookie.sameSite`, 'must be None, Lax or Strict', cookie.sameSite);
    // SameSite=None may be left out per client, so it is added in Lua.
    if (cookie.sameSite === 'None' && cookie.conditionalSameSiteNone === true) entry.sameSiteNone = true;
    else entry.attributes += `; SameSite=${cookie.sameSite}`;
  }
  if (cookie.expiresSeconds !== undefined) {
    if (!isSeconds(cookie.expiresSeconds))
      return out.error(`${field}.cookie.expiresSeconds`, 'must be whole seconds', cookie.expiresSeconds);
    entry.expires = cookie.expiresSeconds;
  }
  if (cookie.secure === true) entry.secure = true;
  if (affinity.mode === 'persistent') entry.persistent = true;
  if (affinity.changeOnFailure === true) entry.change = true;
  return entry;
}
