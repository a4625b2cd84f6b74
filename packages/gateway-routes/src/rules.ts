/**
 * The rules of one HTTPRoute → route-model matches, actions and policies, independent of where
 * the route attaches. A rule that cannot be served as written (an invalid match, an unsupported
 * filter) is left out whole, so a half-understood rule never serves traffic it was not meant to.
 */
import type { RouteAction, RouteMatch, RoutePolicy } from '@ingresskit/route-model';
import { type BackendContext, type BackendRefRecord, translateBackends } from './backend-refs.js';
import { arrayOr, objectOr, parseDuration } from './grammar.js';
import { InvalidRule } from './invalid-rule.js';
import { translateFilters } from './rule-filters.js';
import { translateMatch } from './rule-matches.js';
import type { GatewayApiReferences } from './types.js';
import type { GatewayApiProblemLog } from './problem-codes.js';

/** One match of a rule, ready to become a route on each hostname the route serves. */
export interface TranslatedMatch {
  /** `[rule, match]`: the position that breaks precedence ties (the first rule wins). */
  index: [number, number];
  field: string;
  match: RouteMatch;
  action: RouteAction;
  policy: RoutePolicy;
  /** A rule that cannot be served as written holds its matches and answers 500. */
  isErrorStub?: boolean;
}

/** The rules of one HTTPRoute, translated, with what resolving their backends recorded. */
export interface TranslatedRules extends BackendRefRecord {
  matches: TranslatedMatch[];
  /** `spec.rules[i]: why` for each rule left out. */
  invalidRules: string[];
  ruleCount: number;
}

/** One rule → its matches; an InvalidRule thrown after its matches were read carries them. */
function translateRule(
  raw: unknown,
  ruleIndex: number,
  context: BackendContext,
  log: GatewayApiProblemLog,
): TranslatedMatch[] {
  const field = `spec.rules[${ruleIndex}]`;
  const rule = objectOr<{
    matches: unknown;
    filters: unknown;
    backendRefs: unknown;
    timeouts: unknown;
    retry: unknown;
    sessionPersistence: unknown;
  }>(raw);
  const rawMatches = arrayOr(rule.matches);
  const matches =
    rawMatches.length === 0
      ? [{ path: { type: 'PathPrefix', value: '/' } } satisfies RouteMatch]
      : rawMatches.map((match, index) => translateMatch(match, `${field}.matches[${index}]`, log));
  try {
    return translateRuleAction(rule, matches, ruleIndex, context, log);
  } catch (error) {
    if (error instanceof InvalidRule) error.matches = matches;
    throw error;
  }
}

/** What a rule whose `matches` are valid does: its filters, timeouts and backends, for each match. */
function translateRuleAction(
  rule: Partial<{
    filters: unknown;
    backendRefs: unknown;
    timeouts: unknown;
    retry: unknown;
    sessionPersistence: unknown;
  }>,
  matches: RouteMatch[],
  ruleIndex: number,
  context: BackendContext,
  log: GatewayApiProblemLog,
): TranslatedMatch[] {
  const field = `spec.rules[${ruleIndex}]`;
  const { policy, redirect } = translateFilters(rule.filters, field, matches, context, log);
  const timeouts = translateTimeouts(rule.timeouts, field);
  if (timeouts !== undefined) policy.timeouts = timeouts;
  for (const unsupported of ['retry', 'sessionPersistence'] as const) {
    if (rule[unsupported] !== undefined && rule[unsupported] !== null) {
      log.warning('unsupported-field', `${field}.${unsupported}`, 'is not supported and is ignored');
    }
  }
  let action: RouteAction;
  if (redirect !== undefined) {
    if (arrayOr(rule.backendRefs).length > 0)
      log.warning('backend-refs-ignored', `${field}.backendRefs`, 'are ignored: the rule redirects');
    action = { type: 'redirect', redirect };
  } else {
    const backends = translateBackends(rule.backendRefs, `${field}.backendRefs`, context, log);
    action = backends.length === 0 ? { type: 'respond', statusCode: 500 } : { type: 'forward', backends };
  }
  return matches.map((match, index) => ({
    index: [ruleIndex, index],
    field: `${field}.matches[${index}]`,
    match,
    action,
    policy,
  }));
}

/** The rule's timeouts; undefined when it sets none. Throws InvalidRule for one that is not a valid duration. */
function translateTimeouts(raw: unknown, field: string): RoutePolicy['timeouts'] {
  if (raw === undefined || raw === null) return undefined;
  const timeouts = objectOr<{ request: unknown; backendRequest: unknown }>(raw);
  const request = timeouts.request === undefined ? undefined : parseDuration(timeouts.request);
  const backendRequest =
    timeouts.backendRequest === undefined ? undefined : parseDuration(timeouts.backendRequest);
  if (timeouts.request !== undefined && request === undefined) {
    throw new InvalidRule(
      `${field}.timeouts.request`,
      'must be a duration such as 10s or 1m30s',
      timeouts.request,
    );
  }
  if (timeouts.backendRequest !== undefined && backendRequest === undefined) {
    throw new InvalidRule(
      `${field}.timeouts.backendRequest`,
      'must be a duration such as 10s or 1m30s',
      timeouts.backendRequest,
    );
  }
  if (request !== undefined && request !== 0 && backendRequest !== undefined && backendRequest > request) {
    throw new InvalidRule(
      `${field}.timeouts.backendRequest`,
      'must not be longer than the request timeout',
      timeouts.backendRequest,
    );
  }
  const routeTimeouts: NonNullable<RoutePolicy['timeouts']> = {};
  if (request !== undefined) routeTimeouts.requestMs = request;
  if (backendRequest !== undefined) routeTimeouts.backendRequestMs = backendRequest;
  return Object.keys(routeTimeouts).length > 0 ? routeTimeouts : undefined;
}

/**
 * Translates the rules of an HTTPRoute in `namespace`. Invalid rules are left out and listed;
 * backend references that cannot be served answer 500 for their share and the first is noted.
 */
export function translateRules(
  rawRules: unknown,
  namespace: string,
  references: GatewayApiReferences,
  log: GatewayApiProblemLog,
): TranslatedRules {
  const rules: TranslatedRules = {
    matches: [],
    invalidRules: [],
    ruleCount: 0,
    refProblem: undefined,
    services: new Set(),
    grantNamespaces: new Set(),
  };
  const list = rawRules === undefined || rawRules === null ? [{}] : arrayOr(rawRules);
  rules.ruleCount = list.length;
  const context: BackendContext = { route: { namespace }, references, record: rules };
  for (const [index, rule] of list.entries()) {
    // Backend problems of a rule left out must not show in ResolvedRefs: keep the state to undo.
    const refProblem = rules.refProblem;
    try {
      rules.matches.push(...translateRule(rule, index, context, log));
    } catch (error) {
      rules.refProblem = refProblem;
      if (!(error instanceof InvalidRule)) throw error;
      rules.invalidRules.push(`${error.field}: ${error.message}`);
      if (error.matches === undefined) {
        log.error('invalid-rule', error.field, `${error.message}; the rule is not served`, error.value);
        continue;
      }
      // The spec: a filter that cannot be applied must not be skipped. The rule keeps its matches
      // and answers 500, so its requests never fall through to a rule without that filter (an
      // authentication filter left out must not open the path to a less specific rule).
      log.error('invalid-filter', error.field, `${error.message}; the rule answers 500`, error.value);
      rules.matches.push(
        ...error.matches.map((match, matchIndex) => ({
          index: [index, matchIndex] as [number, number],
          field: `spec.rules[${index}].matches[${matchIndex}]`,
          match,
          action: { type: 'respond', statusCode: 500 } as const,
          policy: {},
          isErrorStub: true,
        })),
      );
    }
  }
  return rules;
}
