/**
 * Small constructors for tests and examples: a route with defaults for everything but its match
 * and target, and a contribution of one source. Not part of the model's semantics.
 */
import type {
  HostContribution,
  PathMatch,
  Route,
  RouteContribution,
  RouteMatch,
  RouteOrigin,
} from './types.js';

/** An origin for `kind/namespace/name`, created at `createdAt` (ms). */
export function createOrigin(
  name: string,
  createdAt = 0,
  index: number[] = [0],
  { kind = 'Ingress', namespace = 'default' }: { kind?: string; namespace?: string } = {},
): RouteOrigin {
  return { kind, namespace, name, createdAt, index };
}

/** A route forwarding to `backend`, matching `path` (a PathMatch, or a string for a PathPrefix). */
export function createForwardRoute(
  id: string,
  path: PathMatch | string,
  backend: string,
  options: { origin?: RouteOrigin; match?: Omit<RouteMatch, 'path'> } = {},
): Route {
  const pathMatch: PathMatch = typeof path === 'string' ? { type: 'PathPrefix', value: path } : path;
  return {
    id,
    origin: options.origin ?? createOrigin(id),
    match: { path: pathMatch, ...options.match },
    action: { type: 'forward', backends: [{ backend, weight: 1 }] },
    policy: {},
  };
}

/** The contribution of one source holding `hosts`. */
export function createContribution(origin: RouteOrigin, hosts: HostContribution[]): RouteContribution {
  return {
    source: { kind: origin.kind, namespace: origin.namespace, name: origin.name },
    hosts,
    tls: [],
  };
}
