/**
 * ingress-nginx's custom-http-errors (answers of the backend with these statuses are replaced by
 * the answer of a default backend) and default-backend (a Service of the Ingress's namespace that
 * answers them, and answers for a backend without endpoints). The statuses are numbers only, data
 * of the route.
 */
import { checkDnsLabel } from '@ingresskit/kube-objects';
import { parseServiceBackendId, type RoutePolicy } from '@ingresskit/route-model';
import { backendIdOf, FIRST_SERVICE_PORT } from './backend-reference.js';
import type { Context } from './translation-context.js';
import { annotationField } from './annotation-field.js';
import { booleanParser } from './grammar.js';
import { type AnnotationParser, DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

/**
 * A custom-http-errors value: status codes from 400 to 599 (ingress-nginx's range) but 499, which
 * nginx cannot intercept (its error_page refuses it, which broke ingress-nginx's nginx.conf),
 * separated by commas; sorted and unique. Returns why it is not one.
 */
export function parseErrorStatuses(value: string): number[] | string {
  const words = value
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (words.length === 0) return 'must list at least one status code';
  const statuses = new Set<number>();
  for (const word of words) {
    if (!/^[45][0-9]{2}$/.test(word)) return `"${word}" is not a status code from 400 to 599`;
    if (word === '499')
      return '499 cannot be intercepted: nginx keeps it for a client that closed the request';
    statuses.add(Number(word));
  }
  return [...statuses].sort((a, b) => a - b);
}

/** The parsers of custom-http-errors, disable-proxy-intercept-errors and default-backend. */
export const CUSTOM_ERROR_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'custom-http-errors': (value, into) => {
    const statuses = parseErrorStatuses(value);
    if (typeof statuses === 'string') return statuses;
    into.customHttpErrors = statuses;
    return undefined;
  },
  'disable-proxy-intercept-errors': booleanParser((into, on) => (into.disableProxyInterceptErrors = on)),
  'default-backend': (value, into) => {
    const problem = checkDnsLabel(value);
    if (problem !== undefined) return `must name a Service of the Ingress's namespace: ${problem}`;
    into.defaultBackendService = value;
    return undefined;
  },
};

/**
 * The backends that answer intercepted statuses and the statuses: the Ingress's own codes go to
 * its default-backend, then to the controller's; codes from the ConfigMap's default go to the
 * controller's only (ingress-nginx sets them on the server, whose error pages name the global
 * default backend). Undefined when no codes apply.
 */
function errorBackendsOf(context: Context): { statuses: number[]; backends: string[] } | undefined {
  const { customHttpErrors, defaultCustomHttpErrors, defaultBackendService } = context.annotations;
  const statuses = customHttpErrors ?? defaultCustomHttpErrors;
  if (statuses === undefined) return undefined;
  const backends: string[] = [];
  if (customHttpErrors !== undefined && defaultBackendService !== undefined) {
    backends.push(backendIdOf(context.source.namespace, defaultBackendService, FIRST_SERVICE_PORT));
  }
  const global = context.config.defaultBackend;
  if (global !== undefined) backends.push(backendIdOf(global.namespace, global.name, global.port));
  return { statuses, backends };
}

/**
 * Warns when the Ingress's own custom-http-errors have no backend to go to: intercepted answers
 * then become 404, as ingress-nginx's built-in default backend answers them.
 */
export function checkCustomErrors(context: Context): void {
  const prefix = context.config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX;
  if (context.annotations.customHttpErrors === undefined) {
    // ingress-nginx turns interception off only where the Ingress sets its own codes: the
    // ConfigMap's are intercepted on the whole server whatever the annotation says.
    if (context.annotations.disableProxyInterceptErrors === true) {
      context.log.warning(
        'annotation-without-effect',
        annotationField(`${prefix}/disable-proxy-intercept-errors`),
        "has no effect without the Ingress's own custom-http-errors annotation (the ConfigMap's custom-http-errors are intercepted whatever it says, as with ingress-nginx)",
      );
    }
    return;
  }
  if (errorBackendsOf(context)!.backends.length > 0) return;
  context.log.warning(
    'custom-errors-without-backend',
    annotationField(`${prefix}/custom-http-errors`),
    'has no default backend to answer (no default-backend annotation, no --default-backend-service): intercepted answers become 404, as with ingress-nginx',
  );
}

/**
 * `policy` with the default-backend policies of a route to `backendId` (the headers of custom
 * errors name its Service), or `policy` itself when the Ingress has none. On the Ingress's
 * shared policy, made once per backend and shared too.
 */
export function addDefaultBackendPolicy(
  context: Context,
  policy: RoutePolicy,
  backendId: string,
): RoutePolicy {
  const { defaultBackendService } = context.annotations;
  const errors = errorBackendsOf(context);
  if (errors === undefined && defaultBackendService === undefined) return policy;
  const shared = policy === context.policy;
  const known = shared ? context.backendPolicies?.get(backendId) : undefined;
  if (known !== undefined) return known;
  const added: RoutePolicy = { ...policy };
  if (defaultBackendService !== undefined) {
    context.services.add(`${context.source.namespace}/${defaultBackendService}`);
    added.noEndpointsBackend = backendIdOf(
      context.source.namespace,
      defaultBackendService,
      FIRST_SERVICE_PORT,
    );
  }
  if (errors !== undefined) {
    const service = parseServiceBackendId(backendId);
    // ingress-nginx's headers for custom error backends (its user guide's custom-errors page).
    added.customErrors = {
      statuses: [...errors.statuses],
      backends: [...errors.backends],
      headers: [
        { name: 'X-Namespace', value: context.source.namespace },
        { name: 'X-Ingress-Name', value: context.source.name },
        { name: 'X-Service-Name', value: service?.name ?? '' },
        { name: 'X-Service-Port', value: service === undefined ? '' : String(service.port) },
      ],
    };
    const { customHttpErrors, disableProxyInterceptErrors } = context.annotations;
    if (customHttpErrors !== undefined && disableProxyInterceptErrors === true) {
      added.customErrors.passBackendErrors = true;
    }
  }
  if (!shared) return added;
  Object.freeze(added);
  (context.backendPolicies ??= new Map()).set(backendId, added);
  return added;
}
