/**
 * What a source's contribution brings into nginx's shared dict, for NamespaceDataBudget: its
 * routes (in their hosts' entries), hosts and TLS bindings as its own, the shared policies and
 * certificates it names as entries other objects of its namespace may name too.
 */
import {
  certificateKey,
  measureCertificate,
  measureHostEntry,
  measureRoutes,
  measureTlsBinding,
} from '@ingresskit/nginx-template';
import type { Route, RouteContribution } from '@ingresskit/route-model';
import type { ObjectData } from './namespace-data-budget.js';

/** The routes of a contribution that reach the data plane: its hosts' routes, fallbacks and canaries. */
function* routesOf(contribution: RouteContribution): Generator<Route> {
  for (const host of contribution.hosts) {
    yield* host.routes;
    if (host.fallback !== undefined && host.fallback !== 'table-default') yield host.fallback;
    for (const canary of host.canaries ?? []) yield canary.route;
  }
}

/** Measures what `contribution` brings into the shared dict (see measureRoutes). */
export function measureContribution(contribution: RouteContribution): ObjectData {
  const size = measureRoutes(routesOf(contribution));
  let own = size.routes;
  for (const host of contribution.hosts) own += measureHostEntry(host.hostname);
  const shared = new Map(size.policies);
  for (const claim of contribution.tls) {
    own += measureTlsBinding(claim.hostname, claim.certificate.id);
    shared.set(certificateKey(claim.certificate.id), measureCertificate(claim.certificate));
  }
  return { own, shared };
}
