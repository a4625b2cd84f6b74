/**
 * One route of the route model as Gateway API HTTPRoute rules, for `ingresskit migrate
 * --to=gateway-api`: what HTTPRoute can say is said (matches, weighted backends, redirects,
 * rewrites, header changes, CORS, mirrors, request timeouts), and every policy it cannot is a
 * finding. A route with a protection HTTPRoute cannot carry (source lists, authentication,
 * limits) is `blocked`: applied without it, its backend would be served open.
 */
import {
  parseServiceBackendId,
  type HeaderModifier,
  type PathModifier,
  type Route,
  type RoutePolicy,
  type WeightedBackend,
} from '@ingresskit/route-model';
import { namespacedKey } from '@ingresskit/kube-objects';
import type { MigrationFinding } from './migration.js';

/** An HTTPRoute rule as the Gateway API v1 schema spells it (plain JSON). */
export type HTTPRouteRule = Record<string, unknown>;

/** What one route becomes. */
export interface ConvertedRoute {
  rules: HTTPRouteRule[];
  findings: MigrationFinding[];
  /** The route protects its backend in a way HTTPRoute cannot: its Ingress must not be converted. */
  blocked: boolean;
}

/** What the conversion reads besides the route. */
export interface RuleContext {
  /** The namespace of the HTTPRoute: backendRefs in it need no namespace. */
  namespace: string;
  /** The number of a named port of a Service (`namespace/name`), if the Service is known. */
  servicePort(serviceKey: string, portName: string): number | undefined;
  /** Whether the route's host has a certificate (HSTS goes on HTTPS answers only). */
  hostHasTls: boolean;
}

/** Policies that protect a backend: without them the HTTPRoute would serve it open. */
const PROTECTIONS: ReadonlySet<string> = new Set([
  'allowSources',
  'denySources',
  'basicAuth',
  'digestAuth',
  'externalAuth',
  'clientLimits',
  'globalRateLimit',
  'satisfy',
  'clientCertificate',
  'backendTls',
]);

/** Policies HTTPRoute has no field for, which only change how a request is proxied. */
const NOT_EXPRESSIBLE: Readonly<Record<string, string>> = {
  maxBodyBytes: 'a request body size limit',
  backendProtocol:
    'the backend protocol (HTTPS or gRPC to the backend needs a BackendTLSPolicy or a GRPCRoute)',
  hashKey: 'consistent hashing of requests over endpoints',
  hashSubsetSize: 'consistent hashing of requests over endpoints',
  loadBalancing: 'the load-balancing algorithm',
  upstreamTries: 'retries on other endpoints',
  upstreamConnectionHeader: 'the Connection header sent to the backend',
  accessLog: 'leaving requests out of the access log',
  upstreamSettings: 'proxy buffering and retries',
  locationRewrite: 'rewriting Location headers of responses',
  cookieDomainRewrite: 'rewriting the Domain of Set-Cookie',
  cookiePathRewrite: 'rewriting the Path of Set-Cookie',
  sessionAffinity: 'cookie session affinity',
  customErrors: 'custom error pages (custom-http-errors)',
  noEndpointsBackend: 'a backend for a Service without endpoints (default-backend)',
};

/** Handled by the rules below, or by the caller (redirectToHttps: an HTTPRoute of its own). */
const EXPRESSED: ReadonlySet<string> = new Set([
  'redirectToHttps',
  'rewrite',
  'upstreamHost',
  'requestHeaders',
  'responseHeaders',
  'cors',
  'hsts',
  'timeouts',
  'mirror',
]);

/** Converts `route` (its origin names the Ingress field) into HTTPRoute rules. */
export function convertRoute(route: Route, context: RuleContext): ConvertedRoute {
  const field = route.origin.field ?? 'spec';
  const findings: MigrationFinding[] = [];
  const error = (message: string) => findings.push({ kind: 'error', field, message });
  const warning = (message: string) => findings.push({ kind: 'warning', field, message });
  let blocked = false;
  for (const key of Object.keys(route.policy) as (keyof RoutePolicy)[]) {
    if (route.policy[key] === undefined || EXPRESSED.has(key)) continue;
    const what = NOT_EXPRESSIBLE[key];
    if (what !== undefined) {
      warning(`HTTPRoute cannot express ${what}: it needs a policy of the Gateway's implementation`);
    } else {
      // Protections, and any policy this conversion does not know: fail closed.
      blocked = true;
      error(
        PROTECTIONS.has(key)
          ? `HTTPRoute cannot express the ${key} protection; the Ingress is not converted, since its backend would be served without it`
          : `HTTPRoute cannot express the ${key} policy; the Ingress is not converted`,
      );
    }
  }
  const match = convertMatch(route, findings, field);
  const filters = convertFilters(route, context, findings, field, match);
  const rule: HTTPRouteRule = { matches: [match.match] };
  const timeouts = convertTimeouts(route.policy, warning);
  if (timeouts !== undefined) rule.timeouts = timeouts;
  const { action } = route;
  if (action.type === 'respond') {
    error(`HTTPRoute cannot answer with a fixed status ${action.statusCode}; the rule is left out`);
    return { rules: [], findings, blocked };
  }
  if (action.type === 'redirect') {
    const { redirect } = action;
    // HTTPRoute allows a redirect or a rewrite in one rule, not both; a redirect rewrites itself.
    const redirectFilters = filters.filter((filter) => (filter as { type: string }).type !== 'URLRewrite');
    const requestRedirect: Record<string, unknown> = { statusCode: redirect.statusCode };
    if (redirect.scheme !== undefined) requestRedirect.scheme = redirect.scheme;
    if (redirect.hostname !== undefined) requestRedirect.hostname = redirect.hostname;
    if (redirect.port !== undefined) requestRedirect.port = redirect.port;
    if (redirect.path !== undefined) requestRedirect.path = pathModifierOf(redirect.path);
    if (redirect.query !== undefined)
      warning('HTTPRoute cannot set the query of a redirect: the request query is kept');
    return {
      rules: [{ ...rule, filters: [...redirectFilters, { type: 'RequestRedirect', requestRedirect }] }],
      findings,
      blocked,
    };
  }
  const main = backendRefsOf(action.backends, context, findings, field);
  if (action.canary === undefined) {
    return { rules: [withBackends(rule, filters, main)], findings, blocked };
  }
  const { canary } = action;
  const canaryRefs = backendRefsOf(canary.backends, context, findings, field);
  const rules: HTTPRouteRule[] = [];
  if (canary.header !== undefined) {
    const { name, value, pattern } = canary.header;
    const header =
      value !== undefined
        ? { name, type: 'Exact', value }
        : pattern !== undefined
          ? { name, type: 'RegularExpression', value: pattern }
          : { name, type: 'Exact', value: 'always' };
    rules.push(
      withBackends(
        { ...rule, matches: [{ ...match.match, headers: [...(route.match.headers ?? []), header] }] },
        filters,
        canaryRefs,
      ),
    );
    if (value === undefined && pattern === undefined)
      warning(`header ${name}: never is not expressible; such requests share the weighted split`);
  }
  if (canary.cookie !== undefined)
    warning(`HTTPRoute cannot route by cookie: the canary cookie ${canary.cookie} is left out`);
  rules.push(withBackends(rule, filters, splitByWeight(main, canaryRefs, canary.weight, canary.weightTotal)));
  return { rules, findings, blocked };
}

function withBackends(rule: HTTPRouteRule, filters: unknown[], backendRefs: BackendRef[]): HTTPRouteRule {
  return { ...rule, ...(filters.length > 0 ? { filters } : {}), backendRefs };
}

interface ConvertedMatch {
  match: Record<string, unknown>;
  /** The prefix a RegexReplace rewrite of ingress-nginx's `/prefix(/|$)(.*)` form turned into. */
  prefix: string | undefined;
}

/**
 * ingress-nginx's documented rewrite, `path: /prefix(/|$)(.*)` with `rewrite-target: /$2`, is a
 * PathPrefix match with ReplacePrefixMatch `/`: the one regular expression rewrite HTTPRoute can say.
 */
const PREFIX_REWRITE = /^(\/[A-Za-z0-9._~\-/]*?)\(\/\|\$\)\(\.\*\)$/;

function convertMatch(route: Route, findings: MigrationFinding[], field: string): ConvertedMatch {
  const { path } = route.match;
  const rewrite = route.policy.rewrite;
  const prefix =
    path.type === 'RegularExpression' && rewrite?.type === 'RegexReplace' && rewrite.replacement === '/$2'
      ? PREFIX_REWRITE.exec(path.value.replace(/^\^/, ''))?.[1]
      : undefined;
  const match: Record<string, unknown> = {
    path:
      prefix !== undefined ? { type: 'PathPrefix', value: prefix } : { type: path.type, value: path.value },
  };
  if (prefix === undefined && path.type === 'RegularExpression') {
    findings.push({
      kind: 'difference',
      field,
      message: `the regular expression ${path.value} is matched by the Gateway's implementation, in its own dialect${path.ignoreCase === true ? ' (ingress-nginx matched it ignoring case)' : ''}`,
    });
  }
  if (route.match.method !== undefined) match.method = route.match.method;
  if (route.match.headers !== undefined && route.match.headers.length > 0)
    match.headers = route.match.headers.map((header) => ({ ...header }));
  if (route.match.queryParams !== undefined && route.match.queryParams.length > 0)
    match.queryParams = route.match.queryParams.map((param) => ({ ...param }));
  return { match, prefix };
}

function pathModifierOf(path: PathModifier): Record<string, unknown> {
  return path.type === 'ReplaceFullPath'
    ? { type: 'ReplaceFullPath', replaceFullPath: path.value }
    : { type: 'ReplacePrefixMatch', replacePrefixMatch: path.value };
}

function convertFilters(
  route: Route,
  context: RuleContext,
  findings: MigrationFinding[],
  field: string,
  match: ConvertedMatch,
): unknown[] {
  const { policy } = route;
  const filters: unknown[] = [];
  if (policy.requestHeaders !== undefined)
    filters.push({
      type: 'RequestHeaderModifier',
      requestHeaderModifier: headerModifierOf(policy.requestHeaders),
    });
  const responseHeaders: HeaderModifier = { ...policy.responseHeaders };
  if (policy.hsts !== undefined && context.hostHasTls) {
    const { maxAgeSeconds, includeSubdomains, preload } = policy.hsts;
    const value = `max-age=${maxAgeSeconds}${includeSubdomains ? '; includeSubDomains' : ''}${preload ? '; preload' : ''}`;
    // Browsers ignore the header over plain HTTP (RFC 6797), so it may go on every answer.
    responseHeaders.set = [...(responseHeaders.set ?? []), { name: 'Strict-Transport-Security', value }];
  }
  if (Object.keys(responseHeaders).length > 0)
    filters.push({
      type: 'ResponseHeaderModifier',
      responseHeaderModifier: headerModifierOf(responseHeaders),
    });
  const urlRewrite: Record<string, unknown> = {};
  if (policy.upstreamHost !== undefined) urlRewrite.hostname = policy.upstreamHost;
  if (match.prefix !== undefined) urlRewrite.path = { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' };
  else if (policy.rewrite !== undefined) {
    if (policy.rewrite.type === 'RegexReplace') {
      findings.push({
        kind: 'warning',
        field,
        message: `HTTPRoute cannot rewrite with a regular expression (${policy.rewrite.pattern} → ${policy.rewrite.replacement}): the path goes to the backend unchanged`,
      });
    } else if (policy.rewrite.type === 'ReplacePrefixMatch' && route.match.path.type !== 'PathPrefix') {
      urlRewrite.path = { type: 'ReplaceFullPath', replaceFullPath: policy.rewrite.value };
    } else urlRewrite.path = pathModifierOf(policy.rewrite);
  }
  if (Object.keys(urlRewrite).length > 0) filters.push({ type: 'URLRewrite', urlRewrite });
  if (policy.cors !== undefined) {
    const { cors } = policy;
    const list = (text: string) =>
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    filters.push({
      type: 'CORS',
      cors: {
        allowOrigins: cors.allowOrigins,
        allowMethods: list(cors.allowMethods),
        allowHeaders: list(cors.allowHeaders),
        ...(cors.exposeHeaders === '' ? {} : { exposeHeaders: list(cors.exposeHeaders) }),
        allowCredentials: cors.allowCredentials,
        maxAge: cors.maxAgeSeconds,
      },
    });
    if (cors.dialect === undefined)
      findings.push({
        kind: 'difference',
        field,
        message:
          "Gateway API's CORS filter answers preflights with 200 (ingress-nginx: 204), and `*.` in an origin spans any number of labels",
      });
  }
  if (policy.mirror !== undefined) {
    const [reference] = backendRefsOf(
      [{ backend: policy.mirror.backend, weight: 1 }],
      context,
      findings,
      field,
    );
    if (reference !== undefined) {
      const { weight: _weight, ...backendRef } = reference;
      filters.push({ type: 'RequestMirror', requestMirror: { backendRef } });
    }
  }
  return filters;
}

function headerModifierOf(modifier: HeaderModifier): Record<string, unknown> {
  return {
    ...(modifier.set?.length ? { set: modifier.set.map((header) => ({ ...header })) } : {}),
    ...(modifier.add?.length ? { add: modifier.add.map((header) => ({ ...header })) } : {}),
    ...(modifier.remove?.length ? { remove: [...modifier.remove] } : {}),
  };
}

function convertTimeouts(
  policy: RoutePolicy,
  warning: (message: string) => void,
): Record<string, string> | undefined {
  const timeouts = policy.timeouts;
  if (timeouts === undefined) return undefined;
  if (timeouts.connectMs !== undefined || timeouts.sendMs !== undefined || timeouts.readMs !== undefined)
    warning(
      "HTTPRoute cannot express connect, send or read timeouts (proxy-*-timeout): the Gateway's defaults apply",
    );
  const converted: Record<string, string> = {};
  if (timeouts.requestMs !== undefined) converted.request = `${timeouts.requestMs}ms`;
  if (timeouts.backendRequestMs !== undefined) converted.backendRequest = `${timeouts.backendRequestMs}ms`;
  return Object.keys(converted).length > 0 ? converted : undefined;
}

/** An HTTPRoute backendRef. */
interface BackendRef {
  name: string;
  namespace?: string;
  port: number;
  weight: number;
}

function backendRefsOf(
  members: readonly WeightedBackend[],
  context: RuleContext,
  findings: MigrationFinding[],
  field: string,
): BackendRef[] {
  const references: BackendRef[] = [];
  for (const member of members) {
    const reference = member.backend === undefined ? undefined : parseServiceBackendId(member.backend);
    if (reference === undefined) {
      findings.push({
        kind: 'error',
        field,
        message: 'a backend that cannot be served is left out of the backendRefs',
      });
      continue;
    }
    const serviceKey = namespacedKey(reference.namespace, reference.name);
    const port =
      typeof reference.port === 'number' ? reference.port : context.servicePort(serviceKey, reference.port);
    if (port === undefined) {
      findings.push({
        kind: 'error',
        field,
        message: `Service ${serviceKey} has no port named "${reference.port}" (or is not known): HTTPRoute needs the port number; the backend is left out`,
      });
      continue;
    }
    if (reference.viaClusterIp === true)
      findings.push({
        kind: 'warning',
        field,
        message: "HTTPRoute cannot ask for the Service's cluster IP (service-upstream): the Gateway chooses",
      });
    references.push({
      name: reference.name,
      ...(reference.namespace === context.namespace ? {} : { namespace: reference.namespace }),
      port,
      weight: member.weight,
    });
  }
  return references;
}

/**
 * The main backends and the canary's in one weighted list: the canary gets `weight` of every
 * `total` requests, each side split among its members by their own weights.
 */
function splitByWeight(
  main: BackendRef[],
  canary: BackendRef[],
  weight: number,
  total: number,
): BackendRef[] {
  const sum = (references: BackendRef[]) => references.reduce((sum, reference) => sum + reference.weight, 0);
  const mainSum = sum(main);
  const canarySum = sum(canary);
  return [
    ...main.map((reference) => ({
      ...reference,
      weight: reference.weight * Math.max(canarySum, 1) * (total - weight),
    })),
    ...canary.map((reference) => ({
      ...reference,
      weight: reference.weight * Math.max(mainSum, 1) * weight,
    })),
  ];
}
