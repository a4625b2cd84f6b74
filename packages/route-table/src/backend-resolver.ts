/**
 * The backends the routes name, resolved into the route table and kept resolved: from Services
 * and their EndpointSlices, and for ExternalName Services pinned to the addresses their names
 * resolved to (when the caller resolves names). It indexes which backends to resolve again when a
 * Service or a name's addresses change, and keeps why a backend answers 503, for the problems of
 * the routes that use it.
 */
import { namespacedKey, type EndpointSliceLike, type ServiceLike } from '@ingresskit/kube-objects';
import {
  parseServiceBackendId,
  type Backend,
  type BackendAddressPolicy,
  type BackendReferenceChange,
  type RouteTableBuilder,
  type ServiceBackendRef,
} from '@ingresskit/route-model';
import type { BackendView } from './backend-view.js';

/** Why a backend answers 503 (or lost endpoints): what kind of problem, and the words status shows. */
export interface BackendProblem {
  readonly code: string;
  readonly message: string;
}

/** A backend as resolved from the cluster, and why it can only answer 503 when it cannot serve. */
export interface BackendResolution {
  backend: Backend;
  /** Set when the backend cannot serve, or some of its endpoints were left out. */
  problem?: string;
  /** What kind of problem `problem` is (a stable code such as `service-not-found`); set with it. */
  problemCode?: string;
}

/**
 * How a Service port becomes a backend: its ports, its EndpointSlices' ready endpoints, an
 * ExternalName, each address judged by `policy` (ingress-routes' resolveServiceBackend). Never throws.
 */
export type ServiceBackendResolve = (
  ref: ServiceBackendRef,
  service: ServiceLike | undefined,
  endpointSlices: readonly EndpointSliceLike[],
  policy: BackendAddressPolicy,
) => BackendResolution;

/**
 * Pins an ExternalName backend of a Service of `namespace` to the addresses its name resolved to
 * for that namespace, those `policy` refuses left out (ingress-routes' pinExternalName fed by a
 * resolver); the backend is given with `externalName` set.
 */
export type ExternalNamePin = (
  backend: Backend,
  namespace: string,
  policy: BackendAddressPolicy,
) => BackendResolution;

/**
 * The key an ExternalName's host name is resolved under for the Services of `namespace`:
 * kube-objects' `namespacedKey`, as name-resolution's `externalNameKey` builds it.
 */
function externalNameKey(namespace: string, hostname: string): string {
  return namespacedKey(namespace, hostname);
}

/** Options of {@link BackendResolver}. */
export interface BackendResolverOptions {
  policy: BackendAddressPolicy;
  resolve: ServiceBackendResolve;
  /** Pins ExternalName backends; without it the data plane resolves names itself. */
  pinExternalName?: ExternalNamePin | undefined;
  /** Why the backend `id` answers 503 changed. */
  onProblemChange: (id: string) => void;
}

/** The `namespace/name` of the Service a backend id names; undefined for other backends. */
export function serviceKeyOfBackend(id: string): string | undefined {
  const reference = parseServiceBackendId(id);
  // A map key for as long as the backend: flat, not a tree of pieces (namespacedKey).
  return reference === undefined ? undefined : namespacedKey(reference.namespace, reference.name);
}

/** The problem of a resolution, its message after `prefix`, as `{ problem }` to spread; undefined when none. */
function problemOf(resolution: BackendResolution, prefix = ''): { problem: BackendProblem } | undefined {
  const { problem, problemCode } = resolution;
  if (problem === undefined || problemCode === undefined) return undefined;
  return { problem: { code: problemCode, message: `${prefix}${problem}` } };
}

/** Resolves the backends routes name, and knows which to resolve again when something changes. */
export class BackendResolver {
  readonly #builder: RouteTableBuilder;
  readonly #options: BackendResolverOptions;
  #policy: BackendAddressPolicy;
  /** Backend ids by Service key; nearly always one, so an array, not a Set. */
  readonly #idsByService = new Map<string, string[]>();
  /** Why a backend answers 503 (a missing Service or port, a refused address), by backend id. */
  readonly #problems = new Map<string, BackendProblem>();
  /** Backend ids by the ExternalName name (externalNameKey) they are pinned to, and the other way round. */
  readonly #idsByExternalName = new Map<string, Set<string>>();
  readonly #externalNameOf = new Map<string, string>();

  constructor(builder: RouteTableBuilder, options: BackendResolverOptions) {
    this.#builder = builder;
    this.#options = options;
    this.#policy = options.policy;
  }

  /** Resolves every backend again under `policy` (the controller's own ports changed). */
  setPolicy(view: BackendView, policy: BackendAddressPolicy): void {
    this.#policy = policy;
    for (const ids of this.#idsByService.values()) for (const id of ids) this.#resolve(view, id);
  }

  /** Resolves the backends the routes started to name, and forgets those they stopped naming. */
  follow(view: BackendView, change: BackendReferenceChange): void {
    for (const id of change.removed) {
      this.#builder.deleteBackend(id);
      this.#problems.delete(id);
      this.#indexExternalName(id, undefined);
      const serviceKey = serviceKeyOfBackend(id);
      if (serviceKey === undefined) continue;
      const ids = (this.#idsByService.get(serviceKey) ?? []).filter((other) => other !== id);
      if (ids.length === 0) this.#idsByService.delete(serviceKey);
      else this.#idsByService.set(serviceKey, ids);
    }
    for (const id of change.added) {
      const serviceKey = serviceKeyOfBackend(id);
      if (serviceKey === undefined) continue;
      const ids = this.#idsByService.get(serviceKey);
      if (ids === undefined) this.#idsByService.set(serviceKey, [id]);
      else if (!ids.includes(id)) ids.push(id);
      this.#resolve(view, id);
    }
  }

  /** Resolves the backends of these Services again (their ports, type or EndpointSlices changed). */
  updateServices(view: BackendView, serviceKeys: Iterable<string>): void {
    for (const serviceKey of serviceKeys) {
      for (const id of this.#idsByService.get(serviceKey) ?? []) this.#resolve(view, id);
    }
  }

  /** Pins the backends of these ExternalName names (externalNameKey) again: their addresses changed. */
  updateExternalNames(view: BackendView, keys: Iterable<string>): void {
    for (const key of keys) {
      for (const id of this.#idsByExternalName.get(key) ?? []) this.#resolve(view, id);
    }
  }

  /** Whether a route refers to a backend of the Service `namespace/name`. */
  isServiceReferenced(serviceKey: string): boolean {
    return this.#idsByService.has(serviceKey);
  }

  /** Whether a backend of a Service of `namespace` is pinned to the addresses of `hostname`. */
  usesExternalName(namespace: string, hostname: string): boolean {
    return this.#idsByExternalName.has(externalNameKey(namespace, hostname));
  }

  /** Why the backend `id` answers 503, if it does for a reason worth telling. */
  problem(id: string): BackendProblem | undefined {
    return this.#problems.get(id);
  }

  #resolve(view: BackendView, id: string): void {
    const reference = parseServiceBackendId(id);
    if (reference === undefined) return;
    const serviceKey = namespacedKey(reference.namespace, reference.name);
    const resolved = this.#options.resolve(
      reference,
      view.service(serviceKey),
      view.endpointSlicesForService(serviceKey),
      this.#policy,
    );
    const { backend, problem } = this.#pin(reference.namespace, serviceKey, resolved);
    this.#builder.setBackend(backend);
    const previous = this.#problems.get(id);
    if (problem?.code === previous?.code && problem?.message === previous?.message) return;
    if (problem === undefined) this.#problems.delete(id);
    else this.#problems.set(id, problem);
    this.#options.onProblemChange(id);
  }

  /** An ExternalName backend pinned to its name's addresses, when names are resolved here. */
  #pin(
    namespace: string,
    serviceKey: string,
    resolved: BackendResolution,
  ): { backend: Backend; problem?: BackendProblem } {
    const pin = this.#options.pinExternalName;
    const hostname = pin === undefined ? undefined : resolved.backend.externalName?.hostname;
    this.#indexExternalName(
      resolved.backend.id,
      hostname === undefined ? undefined : externalNameKey(namespace, hostname),
    );
    if (pin === undefined || hostname === undefined)
      return { backend: resolved.backend, ...problemOf(resolved) };
    // Each namespace's names are resolved on their own: another tenant's lookups never delay them.
    const pinned = pin(resolved.backend, namespace, this.#policy);
    return {
      backend: pinned.backend,
      ...(problemOf(resolved) ?? problemOf(pinned, `Service ${serviceKey} `)),
    };
  }

  #indexExternalName(id: string, key: string | undefined): void {
    const previous = this.#externalNameOf.get(id);
    if (previous === key) return;
    if (previous !== undefined) {
      const ids = this.#idsByExternalName.get(previous)!;
      ids.delete(id);
      if (ids.size === 0) this.#idsByExternalName.delete(previous);
      this.#externalNameOf.delete(id);
    }
    if (key === undefined) return;
    this.#externalNameOf.set(id, key);
    const ids = this.#idsByExternalName.get(key);
    if (ids === undefined) this.#idsByExternalName.set(key, new Set([id]));
    else ids.add(id);
  }
}
