/**
 * NamespaceDataBudget fed with route sources (Ingresses, Gateways, HTTPRoutes, by source key):
 * what each contribution takes of the data plane's memory is measured once per contribution (by a
 * DataMeasure, nginx-template's for nginx's shared dict), its backends as big as the cluster's
 * EndpointSlices make them now, and the Services each source was counted with are kept so that a
 * change of their endpoints counts the sources again.
 */
import type { EndpointSliceLike } from '@ingresskit/kube-objects';
import type { RouteContribution } from '@ingresskit/route-model';
import { serviceKeyOfBackend } from './backend-resolver.js';
import type { BackendView } from './backend-view.js';
import {
  NamespaceDataBudget,
  type NamespaceDataBudgetOptions,
  type ObjectData,
} from './namespace-data-budget.js';

/** What a contribution brings into the data plane's memory but its backends, and the backends it names. */
export interface ContributionData extends ObjectData {
  backends: ReadonlySet<string>;
}

/** How a data plane measures what sources bring into its memory (nginx-template's createSharedDictMeasure). */
export interface DataMeasure {
  /** What `contribution` brings in but its backends, and the ids of the backends it names. */
  contribution(contribution: RouteContribution): ContributionData;
  /** The shared entry of the backend `id` with `endpoints` endpoints: its key and its bytes. */
  backend(id: string, endpoints: number): readonly [key: string, bytes: number];
}

const endpointsOfSlice = new WeakMap<EndpointSliceLike, number>();

/** How many endpoint addresses `slices` hold together (at most what a backend of their Service takes). */
export function countEndpoints(slices: readonly EndpointSliceLike[]): number {
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

/** When a source was created, as its routes and TLS claims say (0 when they do not: the oldest). */
function createdAtOf(contribution: RouteContribution): number {
  const host = contribution.hosts.find((candidate) => candidate.routes.length > 0);
  return host?.routes[0]?.origin.createdAt ?? contribution.tls[0]?.origin.createdAt ?? 0;
}

/** Which route sources fit in their namespace's part of the shared dict. */
export class ContributionBudget {
  readonly #budget: NamespaceDataBudget;
  #measure: DataMeasure;
  /** What each contribution takes but its backends, measured once with #measure. */
  #dataOf = new WeakMap<RouteContribution, ContributionData>();
  /** The sources counted with the backends of each Service, by Service key. */
  readonly #sourcesByService = new Map<string, Set<string>>();
  /** The Services whose backends each source was counted with, by source key. */
  readonly #servicesBySource = new Map<string, Set<string>>();

  constructor(options: NamespaceDataBudgetOptions, measure: DataMeasure) {
    this.#budget = new NamespaceDataBudget(options);
    this.#measure = measure;
  }

  /**
   * Measures with `measure` from now on (the operator's settings that decide how routes compile
   * changed); each source is measured anew when it is next counted.
   */
  setMeasure(measure: DataMeasure): void {
    if (measure === this.#measure) return;
    this.#measure = measure;
    this.#dataOf = new WeakMap();
  }

  /**
   * Counts the source `key` as `contribution` (undefined: it takes nothing), as it would be served,
   * its backends as `view` has their EndpointSlices. Takes effect at the next {@link settle}.
   */
  measure(view: BackendView, key: string, contribution: RouteContribution | undefined): void {
    if (contribution === undefined) {
      this.delete(key);
      return;
    }
    let data = this.#dataOf.get(contribution);
    if (data === undefined) this.#dataOf.set(contribution, (data = this.#measure.contribution(contribution)));
    const endpoints = new Map<string, number>();
    // Backends change size without the contribution changing: measured as the view has them now.
    const shared = new Map(data.shared);
    for (const id of data.backends) {
      const service = serviceKeyOfBackend(id);
      let count = service === undefined ? 0 : endpoints.get(service);
      if (count === undefined)
        endpoints.set(service!, (count = countEndpoints(view.endpointSlicesForService(service!))));
      const [entry, bytes] = this.#measure.backend(id, count);
      shared.set(entry, bytes);
    }
    const measured: ObjectData = { own: data.own, shared };
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
