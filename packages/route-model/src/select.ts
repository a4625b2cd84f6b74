/**
 * The reference router: which route of a table answers a request, and how a path is rewritten. A
 * data plane must decide exactly as these functions do; tests hold the nginx data plane to them,
 * and a proxy written in JavaScript can use them as they are.
 */
import { hostnameCandidates, isHostCovered } from './hostnames.js';
import { normalizePrefix } from './precedence.js';
import type {
  HeaderMatch,
  PathMatch,
  PathModifier,
  PathRewrite,
  QueryParamMatch,
  Route,
  RouteMatch,
  RouteTable,
  VirtualHost,
} from './types.js';

/** A request as routing sees it. */
export interface RouteRequest {
  /** The listener it arrived on. */
  listener: string;
  /** Host header (or :authority) without port, lower case. */
  host: string;
  /** Decoded, normalised path without the query string. */
  path: string;
  method: string;
  /** Header values by name (any case). */
  headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Query parameter values by name. */
  query?: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** The outcome of {@link selectRoute}: the route that answers, or none (404). */
export type RouteSelection =
  { found: true; virtualHost: VirtualHost; route: Route; isFallback: boolean } | { found: false };

/**
 * Tests a regular expression condition. PCRE and JavaScript agree on the patterns translators
 * accept; a pattern JavaScript cannot compile matches nothing.
 */
function matchesPattern(pattern: string, subject: string, ignoreCase: boolean): boolean {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '').test(subject);
  } catch {
    return false;
  }
}

/** Whether `path` satisfies a path condition. */
export function matchesPath(condition: PathMatch, path: string): boolean {
  switch (condition.type) {
    case 'Exact':
      return path === condition.value;
    case 'PathPrefix': {
      const prefix = normalizePrefix(condition.value);
      if (prefix === '/') return true;
      return path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47);
    }
    case 'RegularExpression':
      return matchesPattern(condition.value, path, condition.ignoreCase === true);
  }
}

function firstValue(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.[0];
}

function headerValue(request: RouteRequest, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(request.headers ?? {})) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(',');
  }
  return undefined;
}

function matchesValue(condition: HeaderMatch | QueryParamMatch, value: string | undefined): boolean {
  if (value === undefined) return false;
  return condition.type === 'Exact'
    ? value === condition.value
    : matchesPattern(condition.value, value, false);
}

/** Whether a request satisfies every condition of `match`. */
export function matchesRequest(match: RouteMatch, request: RouteRequest): boolean {
  if (!matchesPath(match.path, request.path)) return false;
  if (match.method !== undefined && match.method !== request.method) return false;
  for (const header of match.headers ?? []) {
    if (!matchesValue(header, headerValue(request, header.name))) return false;
  }
  for (const param of match.queryParams ?? []) {
    if (!matchesValue(param, firstValue(request.query?.[param.name]))) return false;
  }
  return true;
}

function isOnListener(route: Route, listener: string): boolean {
  return route.listeners === undefined || route.listeners.includes(listener);
}

/**
 * Finds the route that answers `request`: the virtual hosts covering its host are tried from the
 * most specific; in each, the first route (in the table's order) whose match and listeners the
 * request satisfies wins, else the fallback route; a host without a fallback passes the request
 * on to the next. Nothing found means 404.
 */
export function selectRoute(table: Pick<RouteTable, 'virtualHosts'>, request: RouteRequest): RouteSelection {
  const byHostname = new Map(table.virtualHosts.map((virtualHost) => [virtualHost.hostname, virtualHost]));
  for (const candidate of hostnameCandidates(request.host)) {
    const virtualHost = byHostname.get(candidate);
    if (virtualHost === undefined || !isHostCovered(candidate, virtualHost.hostnameMatch, request.host))
      continue;
    const route = virtualHost.routes.find(
      (entry) => isOnListener(entry, request.listener) && matchesRequest(entry.match, request),
    );
    if (route !== undefined) return { found: true, virtualHost, route, isFallback: false };
    const fallback = virtualHost.fallbackRoute;
    if (fallback !== undefined && isOnListener(fallback, request.listener)) {
      return { found: true, virtualHost, route: fallback, isFallback: true };
    }
  }
  return { found: false };
}

/**
 * Applies a path modifier to `path`. `ReplacePrefixMatch` replaces the part `prefix` (the route's
 * PathPrefix value) matched: with prefix `/foo` and value `/bar`, `/foo/x` becomes `/bar/x` and
 * `/foo` becomes `/bar`; with value `/`, `/foo/x` becomes `/x`.
 */
export function modifyPath(modifier: PathModifier, path: string, prefix = '/'): string {
  if (modifier.type === 'ReplaceFullPath') return modifier.value;
  const matched = normalizePrefix(prefix);
  const rest = matched === '/' ? path : path.slice(matched.length);
  const base = normalizePrefix(modifier.value);
  const result = (base === '/' ? '' : base) + rest;
  return result === '' ? '/' : result;
}

/**
 * The path a rewrite sends upstream for a request whose path is `path`, on a route whose
 * PathPrefix value is `prefix` (used by `ReplacePrefixMatch` only). See {@link PathRewrite}.
 */
export function rewritePath(rewrite: PathRewrite, path: string, prefix = '/'): string {
  if (rewrite.type !== 'RegexReplace') return modifyPath(rewrite, path, prefix);
  let match: RegExpExecArray | null;
  try {
    match = new RegExp(rewrite.pattern, rewrite.ignoreCase === true ? 'i' : '').exec(path);
  } catch {
    return path;
  }
  if (match === null) return path;
  const groups = match;
  return rewrite.replacement.replace(/\$([1-9])/g, (_, digit: string) => groups[Number(digit)] ?? '');
}
