/**
 * Route precedence: the one order in which the routes of a virtual host are tried. It serves both
 * Ingress semantics (Exact before Prefix, the longest Prefix wins, conflicts go to the oldest
 * object) and Gateway API HTTPRoute precedence (Exact, then the longest prefix, then a method
 * condition, then the most header conditions, then the most query conditions, then the oldest
 * route, then namespace/name, then rule order).
 */
import type { HeaderMatch, PathMatch, QueryParamMatch, Route, RouteMatch, RouteOrigin } from './types.js';

/**
 * The value of a PathPrefix condition as it is compared: without a trailing `/`, except for `/`
 * itself. `/foo/` and `/foo` are the same condition.
 */
export function normalizePrefix(value: string): string {
  let end = value.length;
  while (end > 1 && value.charCodeAt(end - 1) === 47 /* / */) end--;
  return value.slice(0, end);
}

/**
 * Rank of a path condition's kind. Exact paths come first, then regular expressions (Gateway API
 * leaves their place to the implementation; we try them before prefixes, as nginx does with
 * regex locations), then prefixes.
 */
const PATH_RANK: Record<PathMatch['type'], number> = { Exact: 0, RegularExpression: 1, PathPrefix: 2 };

function pathLength(path: PathMatch): number {
  return path.type === 'PathPrefix' ? normalizePrefix(path.value).length : path.value.length;
}

/** Compares strings by UTF-16 code units, independent of locale: the same order everywhere. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareIndexes(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const difference = a[i]! - b[i]!;
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

function createdAtOf(origin: RouteOrigin): number {
  // An unknown or invalid time sorts after every known one, never before the oldest object.
  return Number.isFinite(origin.createdAt) ? origin.createdAt : Number.MAX_VALUE;
}

/** Orders origins: older first, then namespace, name, and position inside the object. */
export function compareOrigins(a: RouteOrigin, b: RouteOrigin): number {
  const createdA = createdAtOf(a);
  const createdB = createdAtOf(b);
  if (createdA !== createdB) return createdA < createdB ? -1 : 1;
  return (
    compareText(a.namespace, b.namespace) ||
    compareText(a.name, b.name) ||
    compareText(a.kind, b.kind) ||
    compareIndexes(a.index, b.index)
  );
}

/**
 * Orders two matches by specificity alone: the path kind, a longer path (or pattern), a method
 * condition, more header conditions, more query conditions. 0 means neither is more specific.
 */
export function compareMatches(a: RouteMatch, b: RouteMatch): number {
  return (
    PATH_RANK[a.path.type] - PATH_RANK[b.path.type] ||
    (a.path.type === 'Exact' ? 0 : pathLength(b.path) - pathLength(a.path)) ||
    (a.method === undefined ? 1 : 0) - (b.method === undefined ? 1 : 0) ||
    (b.headers?.length ?? 0) - (a.headers?.length ?? 0) ||
    (b.queryParams?.length ?? 0) - (a.queryParams?.length ?? 0)
  );
}

/**
 * The precedence order of routes within a virtual host: the first route whose match a request
 * satisfies answers it. More specific matches first ({@link compareMatches}), then the older
 * origin; the id breaks what remains, so the order is total and deterministic.
 */
export function compareRoutes(a: Route, b: Route): number {
  return (
    compareMatches(a.match, b.match) ||
    compareOrigins(a.origin, b.origin) ||
    compareText(a.match.path.value, b.match.path.value) ||
    compareText(a.id, b.id)
  );
}

function pathKey(path: PathMatch): string {
  switch (path.type) {
    case 'Exact':
      return `E ${path.value}`;
    case 'PathPrefix':
      return `P ${normalizePrefix(path.value)}`;
    case 'RegularExpression':
      return `R${path.ignoreCase === true ? 'i' : ''} ${path.value}`;
  }
}

function conditionsKey(
  conditions: readonly (HeaderMatch | QueryParamMatch)[] | undefined,
  fold: boolean,
): string {
  if (conditions === undefined || conditions.length === 0) return '';
  return conditions
    .map(
      (condition) =>
        `${fold ? condition.name.toLowerCase() : condition.name}\u0000${condition.type}\u0000${condition.value}`,
    )
    .sort()
    .join('\u0001');
}

/**
 * A key equal for two routes exactly when every request one of them matches the other matches
 * too (same path condition, method, header and query conditions, and listeners), so only the
 * first in precedence order can ever answer.
 */
export function matchKey(route: Route): string {
  const { match } = route;
  return [
    pathKey(match.path),
    match.method ?? '',
    conditionsKey(match.headers, true),
    conditionsKey(match.queryParams, false),
    route.listeners === undefined ? '' : [...route.listeners].sort().join(','),
  ].join('\u0002');
}
