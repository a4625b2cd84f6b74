/** The annotations of an Ingress as the route-model policy of each of its routes. */
import type { RoutePolicy, RouteTimeouts } from '@ingresskit/route-model';
import type { IngressAnnotations } from './annotations.js';

/**
 * The policy every route of an Ingress gets from its annotations (a path's rewrite comes on top).
 * ssl-redirect redirects plain HTTP only on hosts with TLS, force-ssl-redirect always, both with
 * 308 so the method and body are kept. Settings at their default are left out. A new object each
 * call: routes never share a policy.
 */
export function createRoutePolicy(annotations: IngressAnnotations): RoutePolicy {
  const policy: RoutePolicy = {};
  if (annotations.forceSslRedirect) policy.redirectToHttps = { statusCode: 308 };
  else if (annotations.sslRedirect) policy.redirectToHttps = { statusCode: 308, onlyIfHostHasTls: true };
  if (annotations.allowSourceRanges.length > 0) policy.allowSources = [...annotations.allowSourceRanges];
  if (annotations.maxBodyBytes !== undefined) policy.maxBodyBytes = annotations.maxBodyBytes;
  if (annotations.upstreamHost !== undefined) policy.upstreamHost = annotations.upstreamHost;
  const timeouts: RouteTimeouts = {};
  if (annotations.connectTimeoutSeconds !== undefined)
    timeouts.connectMs = annotations.connectTimeoutSeconds * 1000;
  if (annotations.sendTimeoutSeconds !== undefined) timeouts.sendMs = annotations.sendTimeoutSeconds * 1000;
  if (annotations.readTimeoutSeconds !== undefined) timeouts.readMs = annotations.readTimeoutSeconds * 1000;
  if (Object.keys(timeouts).length > 0) policy.timeouts = timeouts;
  if (annotations.backendProtocol !== 'HTTP') policy.backendProtocol = annotations.backendProtocol;
  return policy;
}
