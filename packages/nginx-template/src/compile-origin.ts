/**
 * A route's origin → the `origin` of its route entry: what the access log may write of where the
 * route comes from (ingress-nginx's $namespace, $ingress_name, $service_name, $service_port,
 * $location_path).
 */
import type { RouteOrigin } from '@ingresskit/route-model';
import type { RouteEntry } from './data-entries.js';

/**
 * `[namespace, name, service, port, path]` of `origin`, `''` for what it does not say; undefined
 * for an origin without a namespace (the data plane's own routes, such as the default backend),
 * whose requests log these fields empty, as ingress-nginx's default server does.
 */
export function compileOrigin(origin: RouteOrigin | undefined): RouteEntry['origin'] {
  if (origin === undefined || typeof origin.namespace !== 'string' || origin.namespace === '')
    return undefined;
  return [
    origin.namespace,
    String(origin.name),
    origin.service === undefined ? '' : String(origin.service),
    origin.servicePort === undefined ? '' : String(origin.servicePort),
    origin.path === undefined ? '' : String(origin.path),
  ];
}
