/**
 * NamespaceDataBudget fed with route sources (Ingresses, Gateways, HTTPRoutes, by source key):
 * what each contribution takes of nginx's shared dict is measured once per contribution, its
 * backends as big as the cluster's EndpointSlices make them now, and the Services each source was
 * counted with are kept so that a change of their endpoints counts the sources again.
 */
import { isDeepStrictEqual } from 'node:util';
import type { RouteContribution, UpstreamSettings } from '@ingresskit/route-model';
import { serviceKeyOfBackend } from './backend-resolver.js';
import type { ClusterView } from './cluster-view.js';
import {
  countEndpoints,
  measureContribution,
  withBackends,
  type ContributionData,
} from './contribution-data.js';
import { NamespaceDataBudget, type NamespaceDataBudgetOptions } from './namespace-data-budget.js';

/** When a source was created, as its routes and TLS claims say (0 when they do not: the oldest). */
function createdAtOf(contribution: RouteContribution): number {
  const host = contribution.hosts.find((candidate) => candidate.routes.length > 0);
  return host?.routes[0]?.origin.createdAt ?? contribution.tls[0]?.origin.createdAt ?? 0;
}

/** Which route sources fit in their namespace's part of the shared dict. */
export class ContributionBudget {
  readonly #budget: NamespaceDataBudget;
  /** The operator's upstream settings (proxy-* ConfigMap keys) routes are compiled with. */
  #upstreamDefaults: UpstreamSettings | undefined;
  /** What each contribution takes but its backends, measured once with #upstreamDefaults. */
  #dataOf = new WeakMap<RouteContribution, ContributionData>();
  /** The sources counted with the backends of each Service, by Service key. */
  readonly #sourcesByService = new Map<string, Set<string>>();
  /** The Services whose backends each source was counted with, by source key. */
  readonly #servicesBySource = new Map<string, Set<string>>();

  constructor(options: NamespaceDataBudgetOptions) {
    this.#budget = new NamespaceDataBudget(options);
  }

  /**
   * Sets the operator's upstream `settings` (the ConfigMap's proxy-* keys, which decide nginx.conf's
   * profile catalogue) that routes are compiled with when measured, as the push compiles them; each
   * source is measured anew when it is next counted (every Ingress is, after a ConfigMap change).
   */
  setUpstreamDefaults(settings: UpstreamSettings | undefined): void {
    if (isDeepStrictEqual(settings, this.#upstreamDefaults)) return;
    this.#upstreamDefaults = settings;
    this.#dataOf = new WeakMap();
  }

  /**
   * Counts the source `key` as `contribution` (undefined: it takes nothing), as it would be served,
   * its backends as `view` has their EndpointSlices. Takes effect at the next {@link settle}.
   */
  measure(view: ClusterView, key: string, contribution: RouteContribution | undefined): void {
    if (contribution === undefined) {
      this.delete(key);
      return;
    }
    let data = this.#dataOf.get(contribution);
    if (data === undefined)
      this.#dataOf.set(contribution, (data = measureContribution(contribution, this.#upstreamDefaults)));
    const endpoints = new Map<string, number>();
    const measured = withBackends(data, (id) => {
      const service = serviceKeyOfBackend(id);
      if (service === undefined) return 0;
      let count = endpoints.get(service);
      if (count === undefined)
        endpoints.set(service, (count = countEndpoints(view.endpointSlicesForService(service))));
      return count;
    });
    this.#indexServices(key, endpoints.keys());
    this.#budget.set(key, contribution.source.namespace, createdAtOf(contribution), measured);
  }

  /** Forgets the source `key` (deleted). Takes effect at the next {@link settle}. */
  delete(key: string): void {
    this.#budget.delete(key);
    this.#indexServices(key, []);
  }

  /** Shares the dict out again; the sources that moved inside or outside their namespace's part. */
  settle(): string[] {
    return this.#budget.settle();
  }

  /** Why the source `key` is left out, or undefined when it fits. */
  refusal(key: string): string | undefined {
    return this.#budget.refusal(key);
  }

  /** The sources counted with the backends of these Services. */
  sourcesOfServices(serviceKeys: Iterable<string>): Set<string> {
    const sources = new Set<string>();
    for (const service of serviceKeys)
      for (const key of this.#sourcesByService.get(service) ?? []) sources.add(key);
    return sources;
  }

  /** Whether a source was counted with the backends of the Service `serviceKey`. */
  countsService(serviceKey: string): boolean {
    return this.#sourcesByService.has(serviceKey);
  }

  #indexServices(key: string, services: Iterable<string>): void {
    for (const service of this.#servicesBySource.get(key) ?? []) {
      const sources = this.#sourcesByService.get(service);
      sources?.delete(key);
      if (sources?.size === 0) this.#sourcesByService.delete(service);
    }
    const next = new Set(services);
    if (next.size === 0) {
      this.#servicesBySource.delete(key);
      return;
    }
    this.#servicesBySource.set(key, next);
    for (const service of next) {
      let sources = this.#sourcesByService.get(service);
      if (sources === undefined) this.#sourcesByService.set(service, (sources = new Set()));
      sources.add(key);
    }
  }
}
