/**
 * How many regex matches one request may run on a virtual host of the nginx data plane, each
 * bounded by `lua_regex_match_limit` steps: what a per-host regex budget counts. Routing runs one
 * match per group of regex paths (regex-groups.ts) and one per header or query regex condition it
 * evaluates; the route chosen then runs at most one each of its regex rewrite, CORS origin,
 * canary header pattern and client certificate subject.
 */
import type { Route, VirtualHost } from '@ingresskit/route-model';
import type { RouteEntry } from './data-entries.js';
import { groupRegexPaths, type RegexPath } from './regex-groups.js';

/**
 * The regex matches routing one request may run by default (the regexMatchesPerRequest render
 * option): with the default match limit of 100,000 steps, at most about 8 ms of a worker.
 */
export const DEFAULT_REGEX_MATCHES_PER_REQUEST = 16;

/** The regex matches one request may run on a virtual host, at most. */
export interface RegexWork {
  /** While the route is chosen: one per regex path group, one per regex condition. */
  routing: number;
  /** For the chosen route (the most of any route): rewrite, CORS origin, canary pattern, subject. */
  chosen: number;
}

/** A compiled regex route as grouping sees it; `index` is its 1-based place in the host. */
export function regexPathOfEntry(entry: RouteEntry, index: number): RegexPath {
  return {
    index,
    pattern: entry.path,
    ignoreCase: entry.ignoreCase === true,
    conditioned:
      entry.method !== undefined ||
      entry.headers !== undefined ||
      entry.query !== undefined ||
      entry.listeners !== undefined,
  };
}

function isRegexCondition(condition: { type: string }): boolean {
  return condition.type === 'RegularExpression';
}

/** Whether compileMatch gives `route` conditions besides its path (it drops empty lists). */
function isConditioned(route: Route): boolean {
  const { match } = route;
  return (
    match.method !== undefined ||
    (match.headers?.length ?? 0) > 0 ||
    (match.queryParams?.length ?? 0) > 0 ||
    route.listeners !== undefined
  );
}

function countChosenRouteRegexes(route: Route): number {
  const policy = route.policy;
  const origins = policy?.cors?.allowOrigins;
  const canary = route.action.type === 'forward' ? route.action.canary : undefined;
  return (
    (policy?.rewrite?.type === 'RegexReplace' ? 1 : 0) +
    (origins !== undefined && !(origins.length === 1 && origins[0] === '*') ? 1 : 0) +
    (canary?.header?.pattern !== undefined ? 1 : 0) +
    (policy?.clientCertificate?.subjectPattern !== undefined ? 1 : 0)
  );
}

/**
 * The regex matches one request may run on `virtualHost` as the nginx data plane serves it
 * (every route tried, each condition evaluated): the worst case a budget can hold it to.
 */
export function measureRegexWork(virtualHost: VirtualHost): RegexWork {
  const paths: RegexPath[] = [];
  let conditions = 0;
  let chosen = 0;
  for (const [position, route] of virtualHost.routes.entries()) {
    const { path, headers, queryParams } = route.match;
    if (path.type === 'RegularExpression') {
      paths.push({
        index: position + 1,
        pattern: String(path.value),
        ignoreCase: path.ignoreCase === true,
        conditioned: isConditioned(route),
      });
    }
    conditions += (headers ?? []).filter(isRegexCondition).length;
    conditions += (queryParams ?? []).filter(isRegexCondition).length;
    chosen = Math.max(chosen, countChosenRouteRegexes(route));
  }
  return { routing: groupRegexPaths(paths).length + conditions, chosen };
}
