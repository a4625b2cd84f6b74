/** The annotations of an Ingress as the route-model policy of each of its routes. */
import {
  type BackendTlsPolicy,
  type ExternalAuthPolicy,
  type HeaderModifier,
  type Redirect,
  type RouteAction,
  type RoutePolicy,
  type RouteTimeouts,
  sourceKey,
  type StrictTransportSecurity,
  type UpstreamSettings,
} from '@ingresskit/route-model';
import { createClientLimits, type LimitStatusCodes } from './limit-annotations.js';
import { createGlobalRateLimit } from './global-rate-limit-annotations.js';
import type { RedirectTarget } from './redirect-target.js';
import { internPolicy } from './shared-values.js';
import { withNonIdempotentRetries } from './upstream-annotations.js';
import { type Context } from './translation-context.js';
import type { IngressTranslationConfig } from './types.js';
import { type IngressAnnotations } from './annotation-types.js';
import { type RedirectStatus } from './annotation-parts.js';

/**
 * The policy every route of an Ingress gets from its annotations (a path's rewrite comes on top).
 * ssl-redirect redirects plain HTTP only on hosts with TLS, force-ssl-redirect always, both with
 * 308 so the method and body are kept (or the ConfigMap's http-redirect-code). Settings at their default are left out. A new object each
 * call. `scope` names the Ingress: its routes share their limits, refused with `limitStatusCodes`
 * (ingress-nginx's 503 when undefined).
 */
export function createRoutePolicy(
  annotations: IngressAnnotations,
  scope: string,
  limitStatusCodes?: LimitStatusCodes,
): RoutePolicy {
  const policy: RoutePolicy = {};
  // ingress-nginx answers permanent/temporal-redirect with nginx's `return`, which runs before its
  // HTTPS redirect: a redirecting Ingress never redirects to HTTPS first.
  if (annotations.redirect === undefined && (annotations.forceSslRedirect || annotations.sslRedirect)) {
    const redirect: NonNullable<RoutePolicy['redirectToHttps']> = {
      statusCode: annotations.httpRedirectCode ?? 308,
    };
    if (!annotations.forceSslRedirect) redirect.onlyIfHostHasTls = true;
    // ingress-nginx drops a trailing `/` of the request URI unless preserve-trailing-slash is set.
    if (annotations.preserveTrailingSlash !== true) redirect.stripTrailingSlash = true;
    policy.redirectToHttps = redirect;
  }
  if (annotations.allowSourceRanges.length > 0) policy.allowSources = [...annotations.allowSourceRanges];
  if (annotations.denySourceRanges !== undefined) policy.denySources = [...annotations.denySourceRanges];
  if (annotations.maxBodyBytes !== undefined) policy.maxBodyBytes = annotations.maxBodyBytes;
  if (annotations.upstreamHost !== undefined) policy.upstreamHost = annotations.upstreamHost;
  if (annotations.cors !== undefined) {
    policy.cors = { ...annotations.cors, allowOrigins: [...annotations.cors.allowOrigins] };
  }
  // configuration-snippet comes after ingress-nginx's own proxy_set_header lines and before the
  // more_set_headers of custom-headers in its location, so it wins over the one, not the other.
  const requestHeaders = overlayHeaders(
    annotations.forwardedPrefix === undefined
      ? undefined
      : { set: [{ name: 'X-Forwarded-Prefix', value: annotations.forwardedPrefix }] },
    annotations.snippetHeaders?.request,
  );
  if (requestHeaders !== undefined) policy.requestHeaders = requestHeaders;
  const responseHeaders = overlayHeaders(
    annotations.snippetHeaders?.response,
    annotations.customResponseHeaders === undefined ? undefined : { set: annotations.customResponseHeaders },
  );
  if (responseHeaders !== undefined) policy.responseHeaders = responseHeaders;
  const timeouts: RouteTimeouts = {};
  if (annotations.connectTimeoutSeconds !== undefined)
    timeouts.connectMs = annotations.connectTimeoutSeconds * 1000;
  if (annotations.sendTimeoutSeconds !== undefined) timeouts.sendMs = annotations.sendTimeoutSeconds * 1000;
  if (annotations.readTimeoutSeconds !== undefined) timeouts.readMs = annotations.readTimeoutSeconds * 1000;
  if (Object.keys(timeouts).length > 0) policy.timeouts = timeouts;
  if (annotations.backendProtocol !== 'HTTP') policy.backendProtocol = annotations.backendProtocol;
  if (annotations.basicAuth !== undefined) {
    policy.basicAuth = {
      realm: annotations.basicAuth.realm,
      users: annotations.basicAuth.users.map((user) => ({ ...user })),
    };
  }
  if (annotations.digestAuth !== undefined) {
    policy.digestAuth = {
      realm: annotations.digestAuth.realm,
      users: annotations.digestAuth.users.map((user) => ({ ...user })),
    };
  }
  if (annotations.clientCertificatePolicy !== undefined)
    policy.clientCertificate = { ...annotations.clientCertificatePolicy };
  if (annotations.backendTls !== undefined) policy.backendTls = copyBackendTls(annotations.backendTls);
  if (annotations.externalAuth !== undefined)
    policy.externalAuth = copyExternalAuth(annotations.externalAuth);
  if (annotations.sessionAffinity !== undefined) {
    const { cookie, ...rest } = annotations.sessionAffinity;
    policy.sessionAffinity = { ...rest, cookie: { ...cookie } };
  }
  addProxyPolicy(policy, annotations);
  const limits = createClientLimits(annotations.limits, scope, limitStatusCodes);
  if (limits !== undefined) policy.clientLimits = limits;
  if (annotations.globalRateLimitPolicy !== undefined)
    policy.globalRateLimit = createGlobalRateLimit(annotations.globalRateLimitPolicy, scope);
  return policy;
}

/** A deep copy: policies are frozen and shared, annotations are not. */
function copyBackendTls(tls: BackendTlsPolicy): BackendTlsPolicy {
  const copy: BackendTlsPolicy = { ...tls, protocols: [...tls.protocols] };
  if (tls.clientCertificate !== undefined) copy.clientCertificate = { ...tls.clientCertificate };
  return copy;
}

/** A deep copy: policies are frozen and shared, annotations are not. */
function copyExternalAuth(auth: ExternalAuthPolicy): ExternalAuthPolicy {
  const copy: ExternalAuthPolicy = { ...auth };
  if (auth.signin !== undefined) copy.signin = { ...auth.signin };
  if (auth.responseHeaders !== undefined) copy.responseHeaders = [...auth.responseHeaders];
  if (auth.requestHeaders !== undefined)
    copy.requestHeaders = auth.requestHeaders.map((header) => ({ ...header }));
  if (auth.cache !== undefined) {
    copy.cache = {
      key: auth.cache.key.map((part) => ({ ...part })),
      durations: auth.cache.durations.map((duration) => ({ ...duration, statuses: [...duration.statuses] })),
    };
  }
  return copy;
}

/** upstream-hash-by, proxy-next-upstream-tries, proxy-redirect-*, proxy-cookie-* into `policy`. */
function addProxyPolicy(policy: RoutePolicy, annotations: IngressAnnotations): void {
  const proxy = annotations.proxy;
  if (proxy?.hashKey !== undefined) {
    policy.hashKey = proxy.hashKey.map((part) => ({ ...part }));
    // ingress-nginx's default subset size is 3.
    if (proxy.hashSubset === true) policy.hashSubsetSize = proxy.hashSubsetSize ?? 3;
  }
  if (proxy?.loadBalancing === 'ewma') policy.loadBalancing = 'ewma';
  if (proxy?.connectionHeader !== undefined) policy.upstreamConnectionHeader = proxy.connectionHeader;
  if (proxy?.accessLog === false) policy.accessLog = false;
  if (proxy?.satisfyAny === true) policy.satisfy = 'any';
  if (proxy?.upstreamTries !== undefined) policy.upstreamTries = proxy.upstreamTries;
  const upstreamSettings = withNonIdempotentRetriesOf(annotations);
  if (upstreamSettings !== undefined) {
    const { retryOn, ...rest } = upstreamSettings;
    policy.upstreamSettings = retryOn === undefined ? { ...rest } : { ...rest, retryOn: [...retryOn] };
  }
  if (annotations.locationRewrite !== undefined) policy.locationRewrite = { ...annotations.locationRewrite };
  if (proxy?.cookieDomain !== undefined && proxy.cookieDomain !== 'off')
    policy.cookieDomainRewrite = { ...proxy.cookieDomain };
  if (proxy?.cookiePath !== undefined && proxy.cookiePath !== 'off')
    policy.cookiePathRewrite = { ...proxy.cookiePath };
}

/** The upstream settings of the Ingress, with the ConfigMap's retry-non-idempotent. */
function withNonIdempotentRetriesOf(annotations: IngressAnnotations): UpstreamSettings | undefined {
  const settings = annotations.upstreamSettings;
  return annotations.retryNonIdempotent === true ? withNonIdempotentRetries(settings) : settings;
}

/** A route-model redirect to `target` with `statusCode`. */
export function createRedirect(target: RedirectTarget, statusCode: RedirectStatus): Redirect {
  const redirect: Redirect = { statusCode };
  if (target.scheme !== undefined) redirect.scheme = target.scheme;
  if (target.hostname !== undefined) redirect.hostname = target.hostname;
  if (target.port !== undefined) redirect.port = target.port;
  if (target.path !== undefined) redirect.path = { type: 'ReplaceFullPath', value: target.path };
  if (target.query !== undefined) redirect.query = target.query;
  return redirect;
}

/** What a route of the Ingress does: forward to `backend`, or the redirect its annotations ask for. */
export function createRouteAction(annotations: IngressAnnotations, backend: string): RouteAction {
  // As ingress-nginx's denied location: nothing reaches the backend unauthenticated.
  if (annotations.closed === true) return { type: 'respond', statusCode: 503 };
  if (annotations.redirect === undefined) return { type: 'forward', backends: [{ backend, weight: 1 }] };
  const { target, statusCode } = annotations.redirect;
  return { type: 'redirect', redirect: createRedirect(target, statusCode) };
}

/**
 * The policy of every route of the Ingress, made once and frozen: its routes share it, and a
 * route that needs more (a rewrite) or less (app-root's redirect) gets a copy. Two objects less
 * per route: at 20,000 routes, megabytes of identical policies.
 */
export function sharedPolicy(context: Context): RoutePolicy {
  if (context.policy === undefined) {
    const policy = createRoutePolicy(
      context.annotations,
      sourceKey(context.source),
      context.config.limitStatusCodes,
    );
    if (context.config.hsts !== undefined) policy.hsts = context.config.hsts;
    addDefaultHeaders(policy, context.config.headers);
    // An Ingress without scoped annotations has the policy of many others: one copy for all.
    context.policy = internPolicy(policy);
  }
  return context.policy;
}

/**
 * The changes of `under`, then those of `over` (a new object, or undefined when neither changes
 * anything): a header `over` sets or removes loses the values `under` gave it, one `over` adds to
 * keeps them. Names compare without case.
 */
export function overlayHeaders(
  under: HeaderModifier | undefined,
  over: HeaderModifier | undefined,
): HeaderModifier | undefined {
  const replaced = new Set(
    [...(over?.set ?? []).map((header) => header.name), ...(over?.remove ?? [])].map((name) =>
      name.toLowerCase(),
    ),
  );
  const kept = (headers: readonly { name: string; value: string }[] = []) =>
    headers.filter((header) => !replaced.has(header.name.toLowerCase()));
  const merged: HeaderModifier = {};
  const remove = [...new Set([...(under?.remove ?? []), ...(over?.remove ?? [])])];
  const set = [...kept(under?.set), ...(over?.set ?? [])].map((header) => ({ ...header }));
  const add = [...kept(under?.add), ...(over?.add ?? [])].map((header) => ({ ...header }));
  if (remove.length > 0) merged.remove = remove;
  if (set.length > 0) merged.set = set;
  if (add.length > 0) merged.add = add;
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/** The controller ConfigMap's add-headers and proxy-set-headers under the policy's own headers. */
function addDefaultHeaders(policy: RoutePolicy, headers: IngressTranslationConfig['headers']): void {
  if (headers === undefined) return;
  const response = overlayHeaders({ set: [...headers.response] }, policy.responseHeaders);
  if (response !== undefined) policy.responseHeaders = response;
  const request = overlayHeaders({ set: [...headers.request] }, policy.requestHeaders);
  if (request !== undefined) policy.requestHeaders = request;
}

/** ingress-nginx's HSTS when its ConfigMap says nothing: a year, with subdomains, no preload. */
export const DEFAULT_HSTS: StrictTransportSecurity = Object.freeze({
  maxAgeSeconds: 31_536_000,
  includeSubdomains: true,
  preload: false,
});

/** The action of the Ingress's routes to `backend`, made once per backend and shared, frozen. */
export function sharedAction(context: Context, backend: string): RouteAction {
  context.actions ??= new Map();
  let action = context.actions.get(backend);
  if (action === undefined) {
    action = Object.freeze(createRouteAction(context.annotations, backend));
    context.actions.set(backend, action);
  }
  return action;
}
