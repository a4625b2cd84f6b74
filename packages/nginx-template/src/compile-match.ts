/**
 * A route's match → the start of its route entry: the id, the path the Lua router looks it up by,
 * the header and query conditions, and the listeners it is served on.
 */
import { normalizePrefix, type Route } from '@ingresskit/route-model';
import type { ConditionEntry, RouteEntry } from './data-entries.js';

/** What compiling reports: a fatal error, by field. */
export interface MatchIssues {
  error(field: string, message: string, value?: unknown): undefined;
}

function compileConditions(
  conditions: readonly { name: string; type: string; value: string }[] | undefined,
  foldNames: boolean,
  field: string,
  out: MatchIssues,
): ConditionEntry[] | undefined {
  if (conditions === undefined || conditions.length === 0) return undefined;
  return conditions.map((condition, index) => {
    if (condition.type !== 'Exact' && condition.type !== 'RegularExpression') {
      out.error(`${field}[${index}].type`, 'must be Exact or RegularExpression', condition.type);
    }
    const name = String(condition.name);
    return [
      foldNames ? name.toLowerCase() : name,
      condition.type === 'Exact' ? 'exact' : 'regex',
      String(condition.value),
    ];
  });
}

/** Compiles `route`'s id and match into a route entry that has no action yet. */
export function compileMatch(route: Route, out: MatchIssues): RouteEntry {
  const { path } = route.match;
  const kind = path.type === 'Exact' ? 'exact' : path.type === 'PathPrefix' ? 'prefix' : 'regex';
  if (!['Exact', 'PathPrefix', 'RegularExpression'].includes(path.type)) {
    out.error('match.path.type', 'must be Exact, PathPrefix or RegularExpression', path.type);
  }
  const entry: RouteEntry = {
    id: String(route.id),
    kind,
    path: kind === 'prefix' ? normalizePrefix(String(path.value)) : String(path.value),
  } as RouteEntry;
  if (path.type === 'RegularExpression' && path.ignoreCase === true) entry.ignoreCase = true;
  if (route.match.method !== undefined) entry.method = String(route.match.method);
  const headers = compileConditions(route.match.headers, true, 'match.headers', out);
  if (headers !== undefined) entry.headers = headers;
  const query = compileConditions(route.match.queryParams, false, 'match.queryParams', out);
  if (query !== undefined) entry.query = query;
  if (route.listeners !== undefined) entry.listeners = route.listeners.map(String);
  return entry;
}
