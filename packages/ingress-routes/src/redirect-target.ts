/**
 * The redirect targets annotations name: a URL (permanent-redirect, temporal-redirect) or a path on
 * the same host (app-root). ingress-nginx writes them after nginx's `return`, where any nginx
 * variable expands; we take the URLs people write — `https://host[:port][/path][?query]`, or
 * `https://host$request_uri` to keep the request's path and query — and split them into the parts
 * of a route-model Redirect, refusing anything else by name.
 */
import { isIP } from 'node:net';
import { checkHost, MAX_PATH_LENGTH } from './grammar.js';

/** A redirect target, as the parts of a route-model Redirect. */
export interface RedirectTarget {
  scheme?: 'http' | 'https';
  hostname?: string;
  port?: number;
  /** The whole path of the Location; absent: the request's path (`$request_uri`). */
  path?: string;
  /** The query of the Location, `''` for none; absent: the request's query (`$request_uri`). */
  query?: string;
}

// Path characters that pass through the data plane's Location escaping unchanged.
const PATH = '/[A-Za-z0-9._~\\-/]*';
// Query characters that need no escaping in a Location, and %XX escapes.
const QUERY = '(?:[A-Za-z0-9._~\\-=&+,:@/!]|%[0-9A-Fa-f]{2})*';
const URL = new RegExp(
  `^(https?)://([^/:?#$]+)(?::([0-9]{1,5}))?(\\$request_uri|(${PATH})?(?:\\?(${QUERY}))?)$`,
  'i',
);
const PATH_AND_QUERY = new RegExp(`^(${PATH})(?:\\?(${QUERY}))?$`);

function checkRedirectHost(host: string): string | undefined {
  if (isIP(host) === 4) return undefined;
  if (host.startsWith('*.') || checkHost(host.toLowerCase()) !== undefined) {
    return `host "${host}" is not a host name or an IPv4 address`;
  }
  return undefined;
}

/** Parses a redirect URL; returns the target or a reason for a problem message. */
export function parseRedirectUrl(value: string): RedirectTarget | string {
  const usage =
    'must be an http or https URL: scheme://host[:port][/path][?query], or scheme://host[:port]$request_uri';
  if (value.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`;
  const match = URL.exec(value);
  if (match === null) {
    if (/\$(?!request_uri$)/.test(value)) return `${usage}; $request_uri (at the end) is the only variable`;
    return usage;
  }
  const [, scheme, host, port, rest, path, query] = match;
  const hostProblem = checkRedirectHost(host!);
  if (hostProblem !== undefined) return `${usage}; ${hostProblem}`;
  const target: RedirectTarget = {
    scheme: scheme!.toLowerCase() as 'http' | 'https',
    hostname: host!.toLowerCase(),
  };
  if (port !== undefined) {
    const number = Number(port);
    if (number < 1 || number > 65535) return `${usage}; port must be 1-65535`;
    target.port = number;
  }
  // nginx's `return` sends the URL as written: no query unless it has one, `/` when it has no path.
  if (rest !== '$request_uri') {
    target.path = path ?? '/';
    target.query = query ?? '';
  }
  return target;
}

/** Parses a path on the same host with an optional query (app-root); the target or a reason. */
export function parseRedirectPath(value: string): RedirectTarget | string {
  if (value.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`;
  const match = PATH_AND_QUERY.exec(value);
  if (match === null) {
    return 'must be a path starting with "/" of A-Z a-z 0-9 . _ ~ - /, optionally followed by ?query';
  }
  return { path: match[1]!, query: match[2] ?? '' };
}
