/**
 * The rules of one HTTPRoute → route-model matches, actions and policies, independent of where
 * the route attaches. A rule that cannot be served as written (an invalid match, an unsupported
 * filter) is left out whole, so a half-understood rule never serves traffic it was not meant to.
 */
import {
  describeValue,
  type HeaderMatch,
  type HeaderModifier,
  type PathMatch,
  type PathModifier,
  type QueryParamMatch,
  type Redirect,
  type RouteAction,
  type RouteMatch,
  type RoutePolicy,
  type ProblemLog,
  type WeightedBackend,
} from '@ingresskit/route-model';
import { RouteReason } from './conditions.js';
import {
  HTTP_METHODS,
  arrayOr,
  checkDnsLabel,
  checkHeaderName,
  checkHeaderValue,
  checkPreciseHostname,
  checkRegex,
  isPortNumber,
  objectOr,
  optionalString,
  parseDuration,
  parseLiteralPath,
} from './grammar.js';
import { GATEWAY_GROUP, isReferenceAllowed } from './reference-grants.js';
import type { GatewayApiReferences } from './types.js';
import { translateCorsFilter } from './cors-filter.js';
import { InvalidRule } from './invalid-rule.js';

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

/** Why a backend reference cannot be served, as the route's ResolvedRefs condition says it. */
export interface RefProblem {
  reason: string;
  message: string;
}

/** The rules of one HTTPRoute, translated. */
export interface TranslatedRules {
  matches: TranslatedMatch[];
  /** `spec.rules[i]: why` for each rule left out. */
  invalidRules: string[];
  ruleCount: number;
  /** The first backend reference that could not be resolved, in rule order. */
  refProblem: RefProblem | undefined;
  /** `namespace/name` of every Service referred to (found or not). */
  services: Set<string>;
  /** Namespaces whose ReferenceGrants were consulted. */
  grantNamespaces: Set<string>;
}

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);
const MAX_WEIGHT = 1_000_000;

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
  log: ProblemLog,
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
      log.warning(`${at}.name`, 'repeats an earlier name of this match and is ignored', name);
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

function translateMatch(raw: unknown, field: string, log: ProblemLog): RouteMatch {
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

function translateHeaderFilter(raw: unknown, field: string): HeaderModifier {
  if (typeof raw !== 'object' || raw === null)
    throw new InvalidRule(field, 'is required for this filter type');
  const filter = raw as { set?: unknown; add?: unknown; remove?: unknown };
  const modifier: HeaderModifier = {};
  for (const part of ['set', 'add'] as const) {
    const headers: { name: string; value: string }[] = [];
    const seen = new Set<string>();
    for (const [index, entry] of arrayOr(filter[part]).entries()) {
      const header = objectOr<{ name: unknown; value: unknown }>(entry);
      const at = `${field}.${part}[${index}]`;
      const nameProblem = checkHeaderName(header.name);
      if (nameProblem !== undefined) throw new InvalidRule(`${at}.name`, nameProblem, header.name);
      const valueProblem = checkHeaderValue(header.value);
      if (valueProblem !== undefined) throw new InvalidRule(`${at}.value`, valueProblem, header.value);
      const key = (header.name as string).toLowerCase();
      if (seen.has(key)) throw new InvalidRule(`${at}.name`, `names a header twice in ${part}`, header.name);
      seen.add(key);
      headers.push({ name: header.name as string, value: header.value as string });
    }
    if (headers.length > 0) modifier[part] = headers;
  }
  const remove: string[] = [];
  for (const [index, name] of arrayOr(filter.remove).entries()) {
    const problem = checkHeaderName(name);
    if (problem !== undefined) throw new InvalidRule(`${field}.remove[${index}]`, problem, name);
    remove.push(name as string);
  }
  if (remove.length > 0) modifier.remove = remove;
  return modifier;
}

function translatePathModifier(raw: unknown, field: string, matches: readonly RouteMatch[]): PathModifier {
  const path = objectOr<{ type: unknown; replaceFullPath: unknown; replacePrefixMatch: unknown }>(raw);
  if (path.type === 'ReplaceFullPath' || path.type === 'ReplacePrefixMatch') {
    const value = path.type === 'ReplaceFullPath' ? path.replaceFullPath : path.replacePrefixMatch;
    const valueField = `${field}.${path.type === 'ReplaceFullPath' ? 'replaceFullPath' : 'replacePrefixMatch'}`;
    const parsed = parseLiteralPath(value);
    if (!parsed.ok) throw new InvalidRule(valueField, parsed.message, value);
    if (path.type === 'ReplacePrefixMatch' && !matches.every((match) => match.path.type === 'PathPrefix')) {
      throw new InvalidRule(field, 'ReplacePrefixMatch needs every match of the rule to be a PathPrefix');
    }
    return { type: path.type, value: parsed.path };
  }
  throw new InvalidRule(`${field}.type`, 'must be ReplaceFullPath or ReplacePrefixMatch', path.type);
}

function translateRedirect(raw: unknown, field: string, matches: readonly RouteMatch[]): Redirect {
  if (typeof raw !== 'object' || raw === null)
    throw new InvalidRule(field, 'is required for this filter type');
  const redirect = raw as {
    scheme?: unknown;
    hostname?: unknown;
    port?: unknown;
    path?: unknown;
    statusCode?: unknown;
  };
  const statusCode = redirect.statusCode ?? 302;
  if (typeof statusCode !== 'number' || !REDIRECT_CODES.has(statusCode)) {
    throw new InvalidRule(`${field}.statusCode`, 'must be 301, 302, 303, 307 or 308', statusCode);
  }
  const result: Redirect = { statusCode: statusCode as Redirect['statusCode'] };
  if (redirect.scheme !== undefined && redirect.scheme !== null) {
    if (redirect.scheme !== 'http' && redirect.scheme !== 'https') {
      throw new InvalidRule(`${field}.scheme`, 'must be http or https', redirect.scheme);
    }
    result.scheme = redirect.scheme;
  }
  if (redirect.hostname !== undefined && redirect.hostname !== null) {
    const problem = checkPreciseHostname(redirect.hostname);
    if (problem !== undefined) throw new InvalidRule(`${field}.hostname`, problem, redirect.hostname);
    result.hostname = redirect.hostname as string;
  }
  if (redirect.port !== undefined && redirect.port !== null) {
    if (!isPortNumber(redirect.port))
      throw new InvalidRule(`${field}.port`, 'must be a port number 1-65535', redirect.port);
    result.port = redirect.port;
  }
  if (redirect.path !== undefined && redirect.path !== null) {
    result.path = translatePathModifier(redirect.path, `${field}.path`, matches);
  }
  return result;
}

interface BackendContext {
  route: { namespace: string };
  references: GatewayApiReferences;
  rules: TranslatedRules;
}

function noteRefProblem(
  context: BackendContext,
  reason: string,
  message: string,
  log: ProblemLog,
  field: string,
  value?: unknown,
) {
  const outcome = field.includes('.requestMirror.')
    ? 'requests are not mirrored'
    : 'its share of requests is answered with 500';
  log.error(field, `${message}; ${outcome}`, value);
  context.rules.refProblem ??= { reason, message: `${field}: ${message}` };
}

/**
 * Reads one backendRef (or a mirror's): a Service port the route may use, as a backend id
 * `namespace/service:port`, or undefined when it cannot be served (noted as the route's ResolvedRefs).
 */
function resolveBackendRef(
  raw: unknown,
  field: string,
  context: BackendContext,
  log: ProblemLog,
): string | undefined {
  const ref = objectOr<{ group: unknown; kind: unknown; name: unknown; namespace: unknown; port: unknown }>(
    raw,
  );
  const group = ref.group ?? '';
  const kind = ref.kind ?? 'Service';
  if (group !== '' || kind !== 'Service') {
    noteRefProblem(
      context,
      RouteReason.InvalidKind,
      `${describeValue(group) ?? ''}/${describeValue(kind) ?? ''} is not a supported backend kind (core Service)`,
      log,
      field,
    );
    return undefined;
  }
  const namespace = optionalString(ref.namespace) ?? context.route.namespace;
  if (checkDnsLabel(namespace) !== undefined || checkDnsLabel(ref.name) !== undefined) {
    noteRefProblem(
      context,
      RouteReason.BackendNotFound,
      'does not name a Service',
      log,
      `${field}.name`,
      ref.name,
    );
    return undefined;
  }
  const name = ref.name as string;
  if (namespace !== context.route.namespace) {
    context.rules.grantNamespaces.add(namespace);
    const allowed = isReferenceAllowed(
      { group: GATEWAY_GROUP, kind: 'HTTPRoute', namespace: context.route.namespace },
      { group: '', kind: 'Service', namespace, name },
      context.references.referenceGrants(namespace),
    );
    if (!allowed) {
      noteRefProblem(
        context,
        RouteReason.RefNotPermitted,
        `Service ${namespace}/${name} is in another namespace and no ReferenceGrant there allows it`,
        log,
        field,
      );
      return undefined;
    }
  }
  if (!isPortNumber(ref.port)) {
    noteRefProblem(
      context,
      RouteReason.BackendNotFound,
      'a Service backend needs a port',
      log,
      `${field}.port`,
      ref.port,
    );
    return undefined;
  }
  const port = ref.port;
  context.rules.services.add(`${namespace}/${name}`);
  const service = context.references.service(namespace, name);
  if (service === undefined || service === null) {
    noteRefProblem(
      context,
      RouteReason.BackendNotFound,
      `Service ${namespace}/${name} does not exist`,
      log,
      field,
    );
    return undefined;
  }
  const spec = objectOr<{ type: unknown; ports: unknown }>(objectOr<{ spec: unknown }>(service).spec);
  const hasPort =
    spec.type === 'ExternalName' ||
    arrayOr(spec.ports).some((entry) => objectOr<{ port: unknown }>(entry).port === port);
  if (!hasPort) {
    noteRefProblem(
      context,
      RouteReason.BackendNotFound,
      `Service ${namespace}/${name} has no port ${port}`,
      log,
      `${field}.port`,
      port,
    );
    return undefined;
  }
  return JSON.parse(JSON.stringify(`${namespace}/${name}:${port}`)) as string;
}

function translateBackends(
  raw: unknown,
  field: string,
  context: BackendContext,
  log: ProblemLog,
): WeightedBackend[] {
  const members: WeightedBackend[] = [];
  for (const [index, entry] of arrayOr(raw).entries()) {
    const at = `${field}[${index}]`;
    const ref = objectOr<{ weight: unknown; filters: unknown }>(entry);
    const weight = ref.weight ?? 1;
    if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 0 || weight > MAX_WEIGHT) {
      throw new InvalidRule(`${at}.weight`, `must be an integer 0-${MAX_WEIGHT}`, weight);
    }
    if (arrayOr(ref.filters).length > 0) {
      throw new InvalidRule(`${at}.filters`, 'filters on a backendRef are not supported');
    }
    const backend = resolveBackendRef(entry, at, context, log);
    members.push(backend === undefined ? { weight, statusCode: 500 } : { backend, weight });
  }
  return members;
}

function translateRule(
  raw: unknown,
  ruleIndex: number,
  context: BackendContext,
  log: ProblemLog,
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
  log: ProblemLog,
): TranslatedMatch[] {
  const field = `spec.rules[${ruleIndex}]`;
  const policy: RoutePolicy = {};
  let redirect: Redirect | undefined;
  const seenTypes = new Set<string>();
  for (const [index, entry] of arrayOr(rule.filters).entries()) {
    const at = `${field}.filters[${index}]`;
    const filter = objectOr<{
      type: unknown;
      requestHeaderModifier: unknown;
      responseHeaderModifier: unknown;
      requestRedirect: unknown;
      urlRewrite: unknown;
      requestMirror: unknown;
      cors: unknown;
    }>(entry);
    const type = typeof filter.type === 'string' ? filter.type : '';
    if (seenTypes.has(type)) throw new InvalidRule(`${at}.type`, `a rule may hold one ${type} filter`, type);
    seenTypes.add(type);
    switch (type) {
      case 'RequestHeaderModifier':
        policy.requestHeaders = translateHeaderFilter(
          filter.requestHeaderModifier,
          `${at}.requestHeaderModifier`,
        );
        break;
      case 'ResponseHeaderModifier':
        policy.responseHeaders = translateHeaderFilter(
          filter.responseHeaderModifier,
          `${at}.responseHeaderModifier`,
        );
        break;
      case 'RequestRedirect':
        redirect = translateRedirect(filter.requestRedirect, `${at}.requestRedirect`, matches);
        break;
      case 'URLRewrite': {
        const rewrite = objectOr<{ hostname: unknown; path: unknown }>(filter.urlRewrite);
        if (rewrite.hostname !== undefined && rewrite.hostname !== null) {
          const problem = checkPreciseHostname(rewrite.hostname);
          if (problem !== undefined)
            throw new InvalidRule(`${at}.urlRewrite.hostname`, problem, rewrite.hostname);
          policy.upstreamHost = rewrite.hostname as string;
        }
        if (rewrite.path !== undefined && rewrite.path !== null) {
          policy.rewrite = translatePathModifier(rewrite.path, `${at}.urlRewrite.path`, matches);
        }
        break;
      }
      case 'RequestMirror': {
        const mirror = objectOr<{ backendRef: unknown; percent: unknown; fraction: unknown }>(
          filter.requestMirror,
        );
        if (mirror.percent !== undefined || mirror.fraction !== undefined) {
          throw new InvalidRule(`${at}.requestMirror`, 'mirroring a fraction of requests is not supported');
        }
        const backend = resolveBackendRef(mirror.backendRef, `${at}.requestMirror.backendRef`, context, log);
        if (backend !== undefined) policy.mirror = { backend };
        break;
      }
      case 'CORS': {
        const cors = translateCorsFilter(filter.cors, `${at}.cors`);
        if (cors !== undefined) policy.cors = cors;
        break;
      }
      default:
        throw new InvalidRule(
          `${at}.type`,
          'is not a supported filter (RequestHeaderModifier, ResponseHeaderModifier, RequestRedirect, URLRewrite, RequestMirror, CORS)',
          filter.type,
        );
    }
  }
  if (redirect !== undefined && (policy.rewrite !== undefined || policy.upstreamHost !== undefined)) {
    throw new InvalidRule(`${field}.filters`, 'RequestRedirect and URLRewrite cannot be combined');
  }
  if (rule.timeouts !== undefined && rule.timeouts !== null) {
    const timeouts = objectOr<{ request: unknown; backendRequest: unknown }>(rule.timeouts);
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
    if (Object.keys(routeTimeouts).length > 0) policy.timeouts = routeTimeouts;
  }
  for (const unsupported of ['retry', 'sessionPersistence'] as const) {
    if (rule[unsupported] !== undefined && rule[unsupported] !== null) {
      log.warning(`${field}.${unsupported}`, 'is not supported and is ignored');
    }
  }
  let action: RouteAction;
  if (redirect !== undefined) {
    if (arrayOr(rule.backendRefs).length > 0)
      log.warning(`${field}.backendRefs`, 'are ignored: the rule redirects');
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

/**
 * Translates the rules of an HTTPRoute in `namespace`. Invalid rules are left out and listed;
 * backend references that cannot be served answer 500 for their share and the first is noted.
 */
export function translateRules(
  rawRules: unknown,
  namespace: string,
  references: GatewayApiReferences,
  log: ProblemLog,
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
  const context: BackendContext = { route: { namespace }, references, rules };
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
        log.error(error.field, `${error.message}; the rule is not served`, error.value);
        continue;
      }
      // The spec: a filter that cannot be applied must not be skipped. The rule keeps its matches
      // and answers 500, so its requests never fall through to a rule without that filter (an
      // authentication filter left out must not open the path to a less specific rule).
      log.error(error.field, `${error.message}; the rule answers 500`, error.value);
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
