/**
 * What a source's contribution brings into nginx's shared dict, for a route table's data budget:
 * its routes (in their hosts' entries), hosts and TLS bindings as its own, the shared policies,
 * certificates and backends it names as entries other objects of its namespace may name too.
 */
import {
  backendIdsOfRoute,
  type Route,
  type RouteContribution,
  type UpstreamSettings,
} from '@ingresskit/route-model';
import { backendKey, certificateKey } from './data-plane-update.js';
import {
  measureBackend,
  measureCertificate,
  measureHostEntry,
  measureRoutes,
  measureTlsBinding,
} from './entry-sizes.js';

/** What a contribution brings into the shared dict but its backends, and the backends it names. */
export interface ContributionDictUse {
  /** Bytes of entries (or parts of entries) that are the source's alone: its routes, its hosts. */
  own: number;
  /** Entries that sources of a namespace may share (policies, certificates), by key, with their bytes. */
  shared: ReadonlyMap<string, number>;
  /** The ids of the backends the contribution names. */
  backends: ReadonlySet<string>;
}

/** How nginx's shared dict is filled by contributions and backends (see createSharedDictMeasure). */
export interface SharedDictMeasure {
  /** What `contribution` brings into the dict but its backends, and the backends it names. */
  contribution(contribution: RouteContribution): ContributionDictUse;
  /** The entry of the backend `id` with `endpoints` endpoints: its key and bytes. */
  backend(id: string, endpoints: number): readonly [key: string, bytes: number];
}

/** The routes of a contribution that reach the data plane, by host: its routes, fallbacks and canaries. */
function routesByHostOf(contribution: RouteContribution): { hostname: string; routes: Route[] }[] {
  return contribution.hosts.map((host) => {
    const routes = [...host.routes];
    if (host.fallback !== undefined && host.fallback !== 'table-default') routes.push(host.fallback);
    for (const canary of host.canaries ?? []) routes.push(canary.route);
    return { hostname: host.hostname, routes };
  });
}

/**
 * Measures what `contribution` brings into the shared dict, its routes compiled with the operator's
 * `upstreamDefaults` (see measureRoutes), and names its backends.
 */
export function measureContribution(
  contribution: RouteContribution,
  upstreamDefaults?: UpstreamSettings,
): ContributionDictUse {
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
 * The shared dict's measure with routes compiled as the operator's `upstreamDefaults` (the
 * ConfigMap's proxy-* keys) make the push compile them.
 */
export function createSharedDictMeasure(upstreamDefaults?: UpstreamSettings): SharedDictMeasure {
  return {
    contribution: (contribution) => measureContribution(contribution, upstreamDefaults),
    backend: (id, endpoints) => [backendKey(id), measureBackend(id, endpoints)],
  };
}
