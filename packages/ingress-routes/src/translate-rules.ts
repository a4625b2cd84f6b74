/**
 * The rules and `spec.defaultBackend` of an Ingress → host contributions: one per hostname, a
 * route per valid path, the default backend (or the table default) as the hosts' fallback.
 */
import { ANY_HOSTNAME, type HostContribution, type Route, routeIdOf } from '@ingresskit/route-model';
import { backendIdOf, parseBackendReference } from './backend-reference.js';
import { checkHost, checkLiteralPath, checkRegexPath } from './grammar.js';
import { isPathType, isRegexPath, pathMatchOf, rewriteOf } from './paths.js';
import { createRedirect, sharedAction, sharedPolicy } from './route-policy.js';
import { namespacedKey } from '@ingresskit/kube-objects';
import { originOf, type Context } from './translation-context.js';
import { objectOr } from './object-or.js';
import { annotationField } from './annotation-field.js';
import { addDefaultBackendPolicy } from './custom-error-annotations.js';
import { internPathMatch } from './shared-values.js';
import { DEFAULT_INGRESS_CHECKS } from './ingress-checks.js';
import { checkStrictPathType } from './path-type-validation.js';
import { exemptLocation } from './location-exemptions.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

/**
 * Reads a backend: the id of its Service port, and the Service and port as written; or reports
 * why it cannot be used.
 */
function readBackend(
  context: Context,
  raw: unknown,
  field: string,
): { id: string; service: string; port: number | string } | undefined {
  const reference = parseBackendReference(raw);
  if (!reference.ok) {
    context.log.error('invalid-backend', field, reference.message, reference.value);
    return undefined;
  }
  const { namespace } = context.source;
  context.services.add(namespacedKey(namespace, reference.service));
  const id = backendIdOf(
    namespace,
    reference.service,
    reference.port,
    context.annotations.serviceUpstream === true,
  );
  return { id, service: reference.service, port: reference.port };
}

/** The route made of `spec.defaultBackend`: the fallback of the Ingress's hosts and the catch-all. */
export function translateDefaultBackend(context: Context, raw: unknown): Route | undefined {
  const backend = readBackend(context, raw, 'spec.defaultBackend');
  if (backend === undefined) return undefined;
  return {
    id: routeIdOf(context.source, 'default-backend'),
    // ingress-nginx logs the default backend's location with the path "/".
    origin: originOf(context, [], 'spec.defaultBackend', { path: '/', ...backend }),
    // A fallback's match is never consulted; this one says what it answers: every path.
    match: internPathMatch({ type: 'PathPrefix', value: '/' }),
    action: sharedAction(context, backend.id),
    policy: addDefaultBackendPolicy(
      context,
      exemptLocation(sharedPolicy(context), '/', context.annotations),
      backend.id,
    ),
  };
}

/**
 * app-root as a route of each host: `/` exactly, redirected with 302 to the app root on the same
 * scheme, host and port, without the query (ingress-nginx: `if ($uri = /) { return 302
 * $scheme://$http_host<app-root>; }` in the server, before any location, so before the HTTPS
 * redirect too).
 */
function translateAppRoot(context: Context, ruleIndex: number): Route | undefined {
  const target = context.annotations.appRoot;
  if (target === undefined) return undefined;
  const { redirectToHttps: _, ...policy } = sharedPolicy(context);
  return {
    id: routeIdOf(context.source, `r${ruleIndex}/app-root`),
    origin: originOf(
      context,
      [ruleIndex, -1],
      annotationField(`${context.config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX}/app-root`),
    ),
    match: internPathMatch({ type: 'Exact', value: '/' }),
    action: { type: 'redirect', redirect: createRedirect(target, 302) },
    policy,
  };
}

/** One path → its route, or a problem and undefined (the path is left out). */
function translatePath(
  context: Context,
  raw: unknown,
  index: [number, number],
  field: string,
): Route | undefined {
  const { path, pathType, backend } = objectOr<{ path: unknown; pathType: unknown; backend: unknown }>(raw);
  if (!isPathType(pathType)) {
    context.log.error(
      'invalid-path-type',
      `${field}.pathType`,
      'pathType must be Exact, Prefix or ImplementationSpecific',
      pathType,
    );
    return undefined;
  }
  const strict = (context.config.ingressChecks ?? DEFAULT_INGRESS_CHECKS).strictPathType;
  const strictProblem = checkStrictPathType(path, pathType, strict);
  if (strictProblem !== undefined) {
    context.log.error('invalid-path', `${field}.path`, `path ${strictProblem}`, path);
    return undefined;
  }
  const isRegex = isRegexPath(pathType, context.annotations.useRegex);
  const value = path === undefined || path === '' ? '/' : path;
  const pathProblem = isRegex ? checkRegexPath(value) : checkLiteralPath(value);
  if (pathProblem !== undefined) {
    context.log.error(
      'invalid-path',
      `${field}.path`,
      `${isRegex ? 'regex path' : 'path'} ${pathProblem}`,
      path,
    );
    return undefined;
  }
  const match = pathMatchOf(value as string, pathType, context.annotations.useRegex);
  let policy = exemptLocation(sharedPolicy(context), value as string, context.annotations);
  const target = context.annotations.rewriteTarget;
  if (target !== undefined) {
    const rewrite = rewriteOf(match, target);
    if (typeof rewrite === 'string') {
      context.log.error('invalid-path-type', `${field}.pathType`, rewrite, pathType);
      return undefined;
    }
    policy = { ...policy, rewrite };
  }
  const read = readBackend(context, backend, `${field}.backend`);
  if (read === undefined) return undefined;
  return {
    id: routeIdOf(context.source, `r${index[0]}/p${index[1]}`),
    origin: originOf(context, index, field, { path: value as string, ...read }),
    match: internPathMatch(match),
    action: sharedAction(context, read.id),
    policy: addDefaultBackendPolicy(context, policy, read.id),
  };
}

/** Translates the rules into host contributions, one per hostname, in the order first named. */
export function translateRules(
  context: Context,
  rules: unknown,
  fallback: Route | 'table-default',
): Map<string, HostContribution> {
  const hosts = new Map<string, HostContribution>();
  if (rules === undefined || rules === null) return hosts;
  if (!Array.isArray(rules)) {
    context.log.error('malformed-field', 'spec.rules', 'must be a list');
    return hosts;
  }
  rules.forEach((rule: unknown, ruleIndex) => {
    const field = `spec.rules[${ruleIndex}]`;
    const { host, http } = objectOr<{ host: unknown; http: unknown }>(rule);
    let hostname = ANY_HOSTNAME;
    if (host !== undefined && host !== null && host !== '') {
      const hostProblem = checkHost(host);
      if (hostProblem !== undefined) {
        context.log.error('invalid-host', `${field}.host`, `host ${hostProblem}`, host);
        return;
      }
      hostname = host as string;
    }
    let contribution = hosts.get(hostname);
    if (contribution === undefined) {
      contribution = { hostname, routes: [], fallback };
      if (hostname.startsWith('*.')) contribution.wildcard = 'one-label';
      const appRoot = translateAppRoot(context, ruleIndex);
      if (appRoot !== undefined) contribution.routes.push(appRoot);
      hosts.set(hostname, contribution);
    }
    if (http === undefined || http === null) return;
    const paths = (http as { paths?: unknown }).paths;
    if (!Array.isArray(paths)) {
      context.log.error('malformed-field', `${field}.http.paths`, 'must be a list');
      return;
    }
    paths.forEach((path: unknown, pathIndex) => {
      const route = translatePath(context, path, [ruleIndex, pathIndex], `${field}.http.paths[${pathIndex}]`);
      if (route !== undefined) contribution.routes.push(route);
    });
  });
  return hosts;
}
