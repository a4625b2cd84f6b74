/**
 * A canary Ingress (`canary: "true"`) → canaries only: each path becomes the canary of the main
 * Ingress's route with the same host and path (route-model attaches it when the table is
 * assembled). As in ingress-nginx, the canary's other annotations do not apply (the main route's
 * policy serves canary requests too), and it adds no hosts, default backend or certificates.
 */
import { compareText, type CanaryRule, type RouteContribution } from '@ingresskit/route-model';
import { translateRules } from './translate-rules.js';
import type { Context } from './translation-context.js';
import { type IngressAnnotations } from './annotation-types.js';

/** What a canary's paths are read with: only use-regex, which decides what its paths mean. */
function canaryPathAnnotations(annotations: IngressAnnotations): IngressAnnotations {
  return {
    sslRedirect: false,
    forceSslRedirect: false,
    useRegex: annotations.useRegex,
    allowSourceRanges: [],
    backendProtocol: 'HTTP',
  };
}

/** The contribution of a canary Ingress: per hostname, its paths as canaries, no routes. */
export function translateCanarySpec(context: Context, rawSpec: unknown, rule: CanaryRule): RouteContribution {
  const spec = (typeof rawSpec === 'object' && rawSpec !== null ? rawSpec : {}) as { rules?: unknown };
  const hosts = translateRules(
    { ...context, annotations: canaryPathAnnotations(context.annotations) },
    spec.rules,
    'table-default',
  );
  const hostnames = [...hosts.keys()].sort(compareText);
  return {
    source: context.source,
    tenant: context.source.namespace,
    hosts: hostnames.map((hostname) => ({
      hostname,
      routes: [],
      canaries: hosts
        .get(hostname)!
        .routes.map((route) => ({ route: { ...route, policy: {} }, rule: { ...rule } })),
    })),
    tls: [],
  };
}
