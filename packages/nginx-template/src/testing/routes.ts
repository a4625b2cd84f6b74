/** Test-only constructors of route-model values with defaults for what a test does not care about. */
import type {
  Listener,
  Route,
  RouteAction,
  RouteOrigin,
  RouteTable,
  VirtualHost,
} from '@ingresskit/route-model';

/** The usual pair of listeners, named `http` and `https`. */
export function createListeners(ports: { http: number; https: number }): Listener[] {
  return [
    { name: 'http', port: ports.http, protocol: 'HTTP' },
    { name: 'https', port: ports.https, protocol: 'HTTPS' },
  ];
}

/** An origin for test routes. */
export function createTestOrigin(name = 'test', createdAt = 0): RouteOrigin {
  return { kind: 'Ingress', namespace: 'default', name, createdAt, index: [0] };
}

/** A forward to backend `b`, for a test that needs a route to forward somewhere. */
export const forwardAction: RouteAction = { type: 'forward', backends: [{ backend: 'b', weight: 1 }] };

/** A route with defaults for everything but what a test cares about. */
export function createTestRoute(id: string, overrides: Partial<Route> = {}): Route {
  return {
    id,
    origin: createTestOrigin(id),
    match: { path: { type: 'PathPrefix', value: '/' } },
    action: { type: 'respond', statusCode: 200, body: id },
    policy: {},
    ...overrides,
  };
}

/** A virtual host of `hostname` (its kind from the name) holding `routes` as given. */
export function createTestHost(hostname: string, routes: Route[], fallbackRoute?: Route): VirtualHost {
  const host: VirtualHost = {
    hostname,
    hostnameMatch: hostname === '*' ? 'any' : hostname.startsWith('*.') ? 'one-label' : 'exact',
    routes,
  };
  if (fallbackRoute !== undefined) host.fallbackRoute = fallbackRoute;
  return host;
}

/** A table with the usual listeners on ports 80 and 443 and nothing else unless given. */
export function createTestTable(parts: Partial<RouteTable> = {}): RouteTable {
  return {
    listeners: createListeners({ http: 80, https: 443 }),
    virtualHosts: [],
    tls: [],
    certificates: [],
    backends: [],
    ...parts,
  };
}
