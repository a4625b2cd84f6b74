/** The controller's default backend and default certificate, as route-model entries. */
import { ANY_HOSTNAME, type Certificate, type Route, type RouteContribution } from '@ingresskit/route-model';
import { backendIdOf, checkServiceReference } from './backend-reference.js';
import { InvalidServiceReferenceError } from './errors.js';
import type { ServiceReference } from './types.js';

/** The origin kind of routes the controller itself contributes. */
const CONTROLLER_KIND = 'Controller';

/**
 * The route for `createRouteTableBuilder({ defaultFallback })`: it forwards to the controller's
 * `--default-backend-service`, or answers 404 when there is none. Like an Ingress route, it
 * redirects plain HTTP to HTTPS on hosts with TLS (ssl-redirect's default). Its requests are
 * logged unless `accessLog` is false (enable-access-log-for-default-backend). Throws
 * InvalidServiceReferenceError when `reference` cannot name a Service port.
 */
export function createDefaultBackendRoute(
  reference: ServiceReference | undefined,
  { accessLog = true }: { accessLog?: boolean } = {},
): Route {
  const route: Route = {
    id: `${CONTROLLER_KIND}/default-backend`,
    // The table default is never ranked against Ingress routes; an epoch timestamp keeps the
    // origin JSON-clean (Infinity would become null).
    origin: { kind: CONTROLLER_KIND, namespace: '', name: 'default-backend', createdAt: 0, index: [] },
    match: { path: { type: 'PathPrefix', value: '/' } },
    action: { type: 'respond', statusCode: 404 },
    policy: { redirectToHttps: { statusCode: 308, onlyIfHostHasTls: true } },
  };
  if (!accessLog) route.policy.accessLog = false;
  if (reference === undefined) return route;
  const problem = checkServiceReference(reference);
  if (problem !== undefined) {
    throw new InvalidServiceReferenceError(`default backend ${JSON.stringify(reference)}: ${problem}`);
  }
  route.origin.field = '--default-backend-service';
  route.action = {
    type: 'forward',
    backends: [{ backend: backendIdOf(reference.namespace, reference.name, reference.port), weight: 1 }],
  };
  return route;
}

/**
 * The controller's own contribution: the catch-all hostname `*`, asking for the table default, so
 * a request for a host no Ingress names gets the default backend (or 404) as with ingress-nginx's
 * default server. An Ingress's `spec.defaultBackend` for the catch-all still wins over it, as an
 * explicit fallback beats the table default.
 */
export function createDefaultBackendContribution(): RouteContribution {
  return {
    source: { kind: CONTROLLER_KIND, namespace: '', name: 'default-backend' },
    hosts: [{ hostname: ANY_HOSTNAME, routes: [], fallback: 'table-default' }],
    tls: [],
  };
}

/**
 * The controller's default certificate (ingress-nginx's `--default-ssl-certificate`): a TLS claim
 * of the catch-all hostname `*`, which data planes serve to clients whose server name no binding
 * has (and to clients without SNI). Without a certificate, a contribution that claims nothing.
 */
export function createDefaultCertificateContribution(
  certificate: Certificate | undefined,
  field = '--default-ssl-certificate',
): RouteContribution {
  const origin = {
    kind: CONTROLLER_KIND,
    namespace: '',
    name: 'default-certificate',
    createdAt: 0,
    index: [],
    field,
  };
  return {
    source: { kind: CONTROLLER_KIND, namespace: '', name: 'default-certificate' },
    hosts: [],
    tls: certificate === undefined ? [] : [{ hostname: ANY_HOSTNAME, certificate, origin }],
  };
}
