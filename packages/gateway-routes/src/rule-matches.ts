/**
 * The matches of an HTTPRoute rule → route-model matches: path, method, headers and query
 * parameters, with Gateway API regular expressions anchored to match the whole value.
 */
import {
  HTTP_METHODS,
  type HeaderMatch,
  type PathMatch,
  type QueryParamMatch,
  type RouteMatch,
} from '@ingresskit/route-model';
import {
  arrayOr,
  checkHeaderName,
  checkHeaderValue,
  checkRegex,
  objectOr,
  parseLiteralPath,
} from './grammar.js';
import { InvalidRule } from './invalid-rule.js';
import type { GatewayApiProblemLog } from './problem-codes.js';

/** Anchors a Gateway API regular expression: it must match the whole value, as Envoy and NGF do. */
function fullMatch(pattern: string): string {
  return `^(?:${pattern})$`;
}

function translatePath(raw: unknown, field: string): PathMatch {
  if (raw === undefined || raw === null) return { type: 'PathPrefix', value: '/' };
  const path = objectOr<{ type: unknown; value: unknown }>(raw);
  const type = path.type ?? 'PathPrefix';
  const value = path.value ?? '/';
  switch (type) {
    case 'Exact':
    case 'PathPrefix': {
      const parsed = parseLiteralPath(value);
      if (!parsed.ok) throw new InvalidRule(`${field}.value`, parsed.message, value);
      return { type: type as 'Exact' | 'PathPrefix', value: parsed.path };
    }
    case 'RegularExpression': {
      const problem = checkRegex(value);
      if (problem !== undefined) throw new InvalidRule(`${field}.value`, problem, value);
      return { type: 'RegularExpression', value: fullMatch(value as string) };
    }
    default:
      throw new InvalidRule(`${field}.type`, 'must be Exact, PathPrefix or RegularExpression', type);
  }
}

function translateValueMatches<T extends HeaderMatch | QueryParamMatch>(
  raw: unknown,
  field: string,
  foldCase: boolean,
  log: GatewayApiProblemLog,
): T[] | undefined {
  const result: T[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of arrayOr(raw).entries()) {
    const at = `${field}[${index}]`;
    const condition = objectOr<{ type: unknown; name: unknown; value: unknown }>(entry);
    const nameProblem = checkHeaderName(condition.name);
    if (nameProblem !== undefined) throw new InvalidRule(`${at}.name`, nameProblem, condition.name);
    const name = condition.name as string;
    const key = foldCase ? name.toLowerCase() : name;
    if (seen.has(key)) {
      // The spec: only the first entry with an equivalent name counts.
      log.warning(
        'duplicate-match-name',
        `${at}.name`,
        'repeats an earlier name of this match and is ignored',
        name,
      );
      continue;
    }
    seen.add(key);
    const type = condition.type ?? 'Exact';
    if (type === 'Exact') {
      const problem = checkHeaderValue(condition.value);
      if (problem !== undefined) throw new InvalidRule(`${at}.value`, problem, condition.value);
      result.push({ name, type, value: condition.value as string } as T);
    } else if (type === 'RegularExpression') {
      const problem = checkRegex(condition.value);
      if (problem !== undefined) throw new InvalidRule(`${at}.value`, problem, condition.value);
      result.push({ name, type, value: fullMatch(condition.value as string) } as T);
    } else {
      throw new InvalidRule(`${at}.type`, 'must be Exact or RegularExpression', type);
    }
  }
  return result.length === 0 ? undefined : result;
}

/** Translates one match at `field`; throws InvalidRule when it cannot be served as written. */
export function translateMatch(raw: unknown, field: string, log: GatewayApiProblemLog): RouteMatch {
  const match = objectOr<{ path: unknown; headers: unknown; queryParams: unknown; method: unknown }>(raw);
  const result: RouteMatch = { path: translatePath(match.path, `${field}.path`) };
  if (match.method !== undefined && match.method !== null) {
    if (typeof match.method !== 'string' || !HTTP_METHODS.has(match.method)) {
      throw new InvalidRule(
        `${field}.method`,
        `must be one of ${[...HTTP_METHODS].join(', ')}`,
        match.method,
      );
    }
    result.method = match.method;
  }
  const headers = translateValueMatches<HeaderMatch>(match.headers, `${field}.headers`, true, log);
  if (headers !== undefined) result.headers = headers;
  const queryParams = translateValueMatches<QueryParamMatch>(
    match.queryParams,
    `${field}.queryParams`,
    false,
    log,
  );
  if (queryParams !== undefined) result.queryParams = queryParams;
  return result;
}
