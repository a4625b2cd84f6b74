/**
 * What a source's contribution brings into nginx's shared dict, for NamespaceDataBudget: its
 * routes (in their hosts' entries), hosts and TLS bindings as its own, the shared policies,
 * certificates and backends it names as entries other objects of its namespace may name too.
 */
import {
  backendKey,
  certificateKey,
  measureBackend,
  measureCertificate,
  measureHostEntry,
  measureRoutes,
  measureTlsBinding,
} from '@ingresskit/nginx-template';
import {
  backendIdsOfRoute,
  type Route,
  type RouteContribution,
  type UpstreamSettings,
} from '@ingresskit/route-model';
import type { EndpointSlice } from '@ingresskit/store';
import type { ObjectData } from './namespace-data-budget.js';

/** The routes of a contribution that reach the data plane, by host: its routes, fallbacks and canaries. */
function routesByHostOf(contribution: RouteContribution): { hostname: string; routes: Route[] }[] {
  return contribution.hosts.map((host) => {
    const routes = [...host.routes];
    if (host.fallback !== undefined && host.fallback !== 'table-default') routes.push(host.fallback);
    for (const canary of host.canaries ?? []) routes.push(canary.route);
    return { hostname: host.hostname, routes };
  });
}

/** What a contribution brings into the shared dict but its backends, and the backends it names. */
export interface ContributionData extends ObjectData {
  backends: ReadonlySet<string>;
}

/**
 * Measures what `contribution` brings into the shared dict, its routes compiled with the operator's
 * `upstreamDefaults` (see measureRoutes), and names its backends.
 */
export function measureContribution(
  contribution: RouteContribution,
  upstreamDefaults?: UpstreamSettings,
): ContributionData {
  const hosts = routesByHostOf(contribution);
  const size = measureRoutes(hosts, upstreamDefaults);
  let own = size.routes;
  for (const host of contribution.hosts) own += measureHostEntry(host.hostname);
  const shared = new Map(size.policies);
  for (const claim of contribution.tls) {
    own += measureTlsBinding(claim.hostname, claim.certificate.id);
    shared.set(certificateKey(claim.certificate.id), measureCertificate(claim.certificate));
  }
  const backends = new Set(hosts.flatMap((host) => host.routes.flatMap(backendIdsOfRoute)));
  return { own, shared, backends };
}

/**
 * `data` with its backends, each as big as its endpoints make it now (`endpointsOf(id)`: how many
 * the backend `id` has): they change without the contribution changing.
 */
export function withBackends(data: ContributionData, endpointsOf: (backendId: string) => number): ObjectData {
  const shared = new Map(data.shared);
  for (const id of data.backends) shared.set(backendKey(id), measureBackend(id, endpointsOf(id)));
  return { own: data.own, shared };
}

const endpointsOfSlice = new WeakMap<EndpointSlice, number>();

/** How many endpoint addresses `slices` hold together (at most what a backend of their Service takes). */
export function countEndpoints(slices: readonly EndpointSlice[]): number {
  let count = 0;
  for (const slice of slices) {
    let addresses = endpointsOfSlice.get(slice);
    if (addresses === undefined) {
      addresses = 0;
      for (const endpoint of slice.endpoints ?? []) addresses += endpoint.addresses?.length ?? 0;
      endpointsOfSlice.set(slice, addresses);
    }
    count += addresses;
  }
  return count;
}
