import type { KubeConfig } from '@kubernetes/client-node';
import type { EventEmitter } from 'eventemitter3';
import { createApiClient, type ResourceClient } from './api-client.js';
import {
  type BackoffPolicy,
  computeBackoffDelay,
  defaultBackoff,
  type StoreClock,
  systemClock,
} from './clock.js';
import { InformerError, type ListenerError, StoreStoppedError, statusCodeOf } from './errors.js';
import { GuardedEmitter } from './guarded-emitter.js';
import {
  describeInformer,
  type InformerStatus,
  type StalenessChange,
  StalenessTracker,
} from './informer-health.js';
import { namespaceOfKey } from './keys.js';
import type { CustomResourceDefinition, EndpointSlice, Gateway, Ingress, KubeObject } from './objects.js';
import { shapeParsedObject, type StoredShapeOptions } from './normalize.js';
import { Reflector, type ReflectorSink } from './reflector.js';
import {
  buildCollectionPath,
  coreKinds,
  isOptionalKind,
  type OptionalKind,
  optInKinds,
  optionalKinds,
  type ResourceKind,
  resourceTypes,
} from './resources.js';
import type { StoreSnapshot } from './snapshot.js';
import { type ChangeEvent, type SecretFetchRequest, StoreState } from './state.js';

/** How a store is set up; every field is optional. */
export interface StoreOptions {
  /** Namespaces to mirror (one list+watch per namespace and kind); all namespaces when empty or unset. */
  readonly namespaces?: readonly string[];
  /** Kinds to mirror; default all. Optional kinds are mirrored only while their CRD exists. */
  readonly kinds?: readonly ResourceKind[];
  /** A label selector per kind, applied by the server to lists and watches. */
  readonly labelSelectors?: Partial<Record<ResourceKind, string>>;
  /** A field selector per kind, e.g. `{ Secret: 'type!=helm.sh/release.v1' }` on a real cluster. */
  readonly fieldSelectors?: Partial<Record<ResourceKind, string>>;
  /** Annotations whose value names a Secret an Ingress depends on (default: ingress-nginx's auth/TLS ones). */
  readonly secretAnnotations?: readonly string[];
  /** Keep every Secret instead of only TLS-typed and referenced ones. */
  readonly keepAllSecrets?: boolean;
  /** Keys (`namespace/name`) of Secrets to keep whatever their type, e.g. the default certificate. */
  readonly keepSecrets?: readonly string[];
  /** Keep `metadata.managedFields` (dropped by default to save memory). */
  readonly keepManagedFields?: boolean;
  /** Deep-freeze stored objects (default true). */
  readonly freezeObjects?: boolean;
  /** Items per list page (default 500; 0 lists in one request). */
  readonly pageSize?: number;
  /** Retry delays after failures (default 500 ms doubling to 30 s, 20 % jitter). */
  readonly backoff?: Partial<BackoffPolicy>;
  /** An informer unable to list or watch for this long is stale (default 60 s). */
  readonly staleAfterMs?: number;
  /** Range of `timeoutSeconds` asked of the server per watch (default 300–600 s, as client-go). */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** Cut a watch silent for this long and resume it (default 30 s, client-node's default). */
  readonly watchInactivityTimeoutMs?: number;
  /** Parallel Secret reads when Secrets become referenced (default 4). */
  readonly secretFetchConcurrency?: number;
  /** Time source for backoff and staleness (default the system clock). */
  readonly clock?: StoreClock;
  /** Randomness for jitter and watch timeouts (default Math.random). */
  readonly random?: () => number;
  /** Replaces the client built from the kube config (for tests). */
  readonly client?: ResourceClient;
}

/** Events a store emits (eventemitter3; no listener is required for `error`). */
export interface StoreEvents {
  /** One object changed; emitted after the change is in `snapshot()`. */
  change: (event: ChangeEvent) => void;
  /** Every informer has listed once; emitted once, right before `start()` resolves. */
  synced: () => void;
  /** A list, watch or Secret read failed (the store retries), or a listener threw. */
  error: (error: InformerError | ListenerError) => void;
  /** An informer has been unable to list or watch for `staleAfterMs`. */
  stale: (change: StalenessChange) => void;
  /** A stale informer is listing or watching again. */
  recovered: (change: StalenessChange) => void;
  /** An optional kind's CRD appeared (after its first list) or went away (after its objects were deleted). */
  availability: (change: { readonly kind: OptionalKind; readonly available: boolean }) => void;
}

/** A listener of store event `E`. */
export type StoreListener<E extends keyof StoreEvents> = EventEmitter.EventListener<StoreEvents, E>;

/** A mirror of the API server's ingress-related objects; see the package README. */
export interface Store {
  /** Starts every informer; resolves once each has listed. Rejects with StoreStoppedError if stopped first. */
  start(): Promise<void>;
  /** Stops every informer, read and timer; the store cannot be started again. Snapshots stay readable. */
  stop(): Promise<void>;
  /** Whether `start()` has resolved. */
  hasSynced(): boolean;
  /** The current immutable snapshot (the same object until something changes). */
  snapshot(): StoreSnapshot;
  /** Health of every list+watch loop. */
  status(): readonly InformerStatus[];
  /** Whether any informer is stale. */
  isStale(): boolean;
  /** Current EndpointSlices of a Service (`namespace/name`). */
  endpointSlicesForService(serviceKey: string): readonly EndpointSlice[];
  /** Current Ingresses referencing a Secret (`namespace/name`). */
  ingressesForSecret(secretKey: string): readonly Ingress[];
  /** Current Ingresses referencing a Service (`namespace/name`). */
  ingressesForService(serviceKey: string): readonly Ingress[];
  /** Current Ingresses naming an IngressClass. */
  ingressesForIngressClass(className: string): readonly Ingress[];
  /** Current Gateways naming a GatewayClass. */
  gatewaysForGatewayClass(className: string): readonly Gateway[];
  /** Adds a listener; a listener that throws is reported through `error` and never disturbs the store. */
  on<E extends keyof StoreEvents>(event: E, listener: StoreListener<E>): this;
  /** Adds a listener for the next `event` only. */
  once<E extends keyof StoreEvents>(event: E, listener: StoreListener<E>): this;
  /** Removes a listener (all of `event` when none is given). */
  off<E extends keyof StoreEvents>(event: E, listener?: StoreListener<E>): this;
}

/**
 * Creates a store that mirrors Ingresses, IngressClasses, Services, EndpointSlices, Secrets and
 * ConfigMaps (and, when their CRDs exist, IngressCheckSums, SecretCheckSums, GatewayClasses and
 * Gateways) from the API server `kubeConfig` points at. Nothing happens until `start()`.
 */
export function createStore(kubeConfig: KubeConfig, options: StoreOptions = {}): Store {
  const client =
    options.client ??
    createApiClient(kubeConfig, { watchInactivityTimeoutMs: options.watchInactivityTimeoutMs });
  return new KubernetesStore(client, options);
}

const defaultKinds: readonly ResourceKind[] = [...coreKinds, ...optionalKinds].filter(
  (kind) => !optInKinds.includes(kind),
);

class KubernetesStore implements Store {
  private readonly state: StoreState;
  private readonly clock: StoreClock;
  private readonly random: () => number;
  private readonly backoff: BackoffPolicy;
  private readonly staleAfterMs: number;
  private readonly kinds: ReadonlySet<ResourceKind>;
  private readonly shapeOptions: StoredShapeOptions;
  private readonly namespaces: readonly (string | undefined)[];
  private readonly reflectors = new Map<ResourceKind, Reflector[]>();
  private readonly pendingStops = new Set<Promise<void>>();
  private readonly fetchQueue: SecretFetchRequest[] = [];
  private readonly fetchSleeps = new Set<() => void>();
  private readonly activeFetchPromises = new Set<Promise<void>>();
  private readonly events = new GuardedEmitter<StoreEvents>(this);
  private readonly staleness: StalenessTracker;
  private readonly stopController = new AbortController();
  private readonly stoppedSignal: Promise<void>;
  private activeFetches = 0;
  private exactReadsUnsupported = false;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private synced = false;

  constructor(
    private readonly client: ResourceClient,
    private readonly options: StoreOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.backoff = { ...defaultBackoff, ...options.backoff };
    this.staleAfterMs = options.staleAfterMs ?? 60_000;
    this.shapeOptions = { keepManagedFields: options.keepManagedFields, freeze: options.freezeObjects };
    this.kinds = new Set(
      (options.kinds ?? defaultKinds).filter((kind) => kind !== 'CustomResourceDefinition'),
    );
    this.namespaces =
      options.namespaces && options.namespaces.length > 0 ? [...new Set(options.namespaces)] : [undefined];
    this.state = new StoreState({
      watchesSecrets: this.kinds.has('Secret'),
      secretAnnotations: options.secretAnnotations,
      keepAllSecrets: options.keepAllSecrets,
      keepSecrets: options.keepSecrets,
    });
    this.staleness = new StalenessTracker({
      clock: this.clock,
      staleAfterMs: this.staleAfterMs,
      signal: this.stopController.signal,
      onStale: (change) => this.events.emit('stale', change),
      onRecovered: (change) => this.events.emit('recovered', change),
    });
    this.stoppedSignal = new Promise((resolve) =>
      this.stopController.signal.addEventListener('abort', () => resolve()),
    );
  }

  start(): Promise<void> {
    if (this.stopController.signal.aborted) return Promise.reject(new StoreStoppedError());
    this.startPromise ??= this.runStart();
    return this.startPromise;
  }

  async stop(): Promise<void> {
    if (this.stopPromise === undefined) {
      this.stopController.abort();
      this.staleness.stop();
      for (const cancel of [...this.fetchSleeps]) cancel();
      this.fetchQueue.length = 0;
      const all = [...this.reflectors.values()].flat().map((reflector) => reflector.stop());
      this.stopPromise = Promise.all([...all, ...this.pendingStops, ...this.activeFetchPromises]).then(
        () => undefined,
      );
    }
    await this.stopPromise;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  snapshot(): StoreSnapshot {
    return this.state.snapshot();
  }

  status(): readonly InformerStatus[] {
    const now = this.clock.now();
    return [...this.reflectors.values()]
      .flat()
      .map((reflector) => describeInformer(reflector, now, this.staleAfterMs));
  }

  isStale(): boolean {
    return this.status().some((informer) => informer.stale && informer.phase !== 'stopped');
  }

  endpointSlicesForService(serviceKey: string): readonly EndpointSlice[] {
    return this.snapshot().endpointSlicesForService(serviceKey);
  }

  ingressesForSecret(secretKey: string): readonly Ingress[] {
    return this.snapshot().ingressesForSecret(secretKey);
  }

  ingressesForService(serviceKey: string): readonly Ingress[] {
    return this.snapshot().ingressesForService(serviceKey);
  }

  ingressesForIngressClass(className: string): readonly Ingress[] {
    return this.snapshot().ingressesForIngressClass(className);
  }

  gatewaysForGatewayClass(className: string): readonly Gateway[] {
    return this.snapshot().gatewaysForGatewayClass(className);
  }

  on<E extends keyof StoreEvents>(event: E, listener: StoreListener<E>): this {
    this.events.on(event, listener);
    return this;
  }

  once<E extends keyof StoreEvents>(event: E, listener: StoreListener<E>): this {
    this.events.once(event, listener);
    return this;
  }

  off<E extends keyof StoreEvents>(event: E, listener?: StoreListener<E>): this {
    this.events.off(event, listener);
    return this;
  }

  private async runStart(): Promise<void> {
    const waits: Promise<unknown>[] = [];
    for (const kind of coreKinds) {
      if (!this.kinds.has(kind)) continue;
      waits.push(...this.startKind(kind).map((reflector) => reflector.synced));
      this.state.setAvailable(kind, true);
    }
    if (optionalKinds.some((kind) => this.kinds.has(kind))) {
      // Without permission to list CRDs (or without the API), start without optional kinds rather
      // than never: the informer keeps retrying and picks them up if that changes.
      let giveUp!: () => void;
      const unavailable = new Promise<void>((resolve) => (giveUp = resolve));
      const crds = this.startKind('CustomResourceDefinition', (error) => {
        if ([401, 403, 404].includes(error.statusCode ?? 0)) giveUp();
      });
      this.state.setAvailable('CustomResourceDefinition', true);
      waits.push(Promise.race([Promise.all(crds.map((reflector) => reflector.synced)), unavailable]));
    }
    await this.untilStopped(Promise.all(waits));
    // The CRD list has been applied, so the optional kinds whose CRD exists have started; wait for them too.
    const optional = optionalKinds.flatMap((kind) => this.reflectors.get(kind) ?? []);
    await this.untilStopped(Promise.all(optional.map((reflector) => reflector.synced)));
    this.synced = true;
    this.events.emit('synced');
  }

  private async untilStopped<T>(promise: Promise<T>): Promise<T> {
    const result = await Promise.race([promise, this.stoppedSignal.then(() => stoppedMarker)]);
    if (result === stoppedMarker || this.stopController.signal.aborted) throw new StoreStoppedError();
    return result as T;
  }

  private startKind(kind: ResourceKind, onFailure?: (error: InformerError) => void): Reflector[] {
    const type = resourceTypes[kind];
    const scopes = type.namespaced ? this.namespaces : [undefined];
    const ingressSynced = () =>
      Promise.all((this.reflectors.get('Ingress') ?? []).map((reflector) => reflector.synced));
    const reflectors = scopes.map((namespace) => {
      const reflector: Reflector = new Reflector({
        type,
        namespace,
        labelSelector: this.options.labelSelectors?.[kind],
        fieldSelector: this.options.fieldSelectors?.[kind],
        client: this.client,
        clock: this.clock,
        random: this.random,
        backoff: this.backoff,
        pageSize: this.options.pageSize ?? 500,
        watchTimeoutSeconds: this.options.watchTimeoutSeconds ?? [300, 600],
        healthyWatchMs: 10_000,
        shape: (raw) => shapeParsedObject(raw, type, this.shapeOptions),
        sink: this.createSink(kind, namespace),
        // Secrets are filtered by the references Ingresses make, so apply their first list after the Ingresses'.
        beforeApply:
          kind === 'Secret' && this.kinds.has('Ingress')
            ? () => Promise.race([ingressSynced().then(() => undefined), this.stoppedSignal])
            : undefined,
        onError: (error) => {
          onFailure?.(error);
          this.events.emit('error', error);
        },
        isQuietError: isOptionalKind(kind) ? (error) => statusCodeOf(error) === 404 : undefined,
        onProgress: () => this.staleness.track(reflector),
      });
      return reflector;
    });
    this.reflectors.set(kind, reflectors);
    for (const reflector of reflectors) reflector.start();
    return reflectors;
  }

  private createSink(kind: ResourceKind, namespace: string | undefined): ReflectorSink {
    const scope = resourceTypes[kind].namespaced ? namespace : undefined;
    return {
      replace: (objects) => this.apply(kind, () => this.state.replace(kind, objects, scope)),
      upsert: (object) => this.apply(kind, () => this.state.upsert(kind, object)),
      remove: (object) => this.apply(kind, () => this.state.remove(kind, object)),
    };
  }

  private apply(kind: ResourceKind, change: () => void): void {
    change();
    if (kind === 'CustomResourceDefinition') this.reconcileOptionalKinds();
    this.flush();
  }

  private flush(): void {
    for (const event of this.state.takeEvents()) this.events.emit('change', event);
    const requests = this.state.takeFetchRequests();
    if (requests.length > 0) {
      this.fetchQueue.push(...requests);
      this.pumpFetches();
    }
  }

  /** Starts an optional kind when its CRD is served, stops it and deletes its objects when the CRD goes. */
  private reconcileOptionalKinds(): void {
    if (this.stopController.signal.aborted) return;
    const crds = this.state.snapshot().customResourceDefinitions;
    for (const kind of optionalKinds) {
      if (!this.kinds.has(kind)) continue;
      const type = resourceTypes[kind];
      const crd = crds.get(type.crdName!);
      const wanted = crd !== undefined && isServing(crd, type.group, type.plural, type.version);
      const running = this.reflectors.get(kind);
      if (wanted && running === undefined) {
        const started = this.startKind(kind);
        void Promise.all(started.map((reflector) => reflector.synced)).then(() => {
          if (this.reflectors.get(kind) !== started || this.stopController.signal.aborted) return;
          this.state.setAvailable(kind, true);
          this.events.emit('availability', { kind, available: true });
        });
      } else if (!wanted && running !== undefined) {
        this.reflectors.delete(kind);
        for (const reflector of running) {
          this.staleness.forget(reflector);
          const stopping = reflector.stop();
          this.pendingStops.add(stopping);
          void stopping.then(() => this.pendingStops.delete(stopping));
        }
        const wasAvailable = this.state.snapshot().isAvailable(kind);
        this.state.setAvailable(kind, false);
        this.state.clear(kind);
        if (wasAvailable) this.events.emit('availability', { kind, available: false });
      }
    }
  }

  private pumpFetches(): void {
    const limit = this.options.secretFetchConcurrency ?? 4;
    while (this.activeFetches < limit && this.fetchQueue.length > 0 && !this.stopController.signal.aborted) {
      const request = this.fetchQueue.shift()!;
      if (!this.state.isFetchWanted(request)) continue;
      this.activeFetches += 1;
      const fetching = this.fetchSecret(request).finally(() => {
        this.activeFetches -= 1;
        this.activeFetchPromises.delete(fetching);
        this.pumpFetches();
      });
      this.activeFetchPromises.add(fetching);
    }
  }

  /**
   * Reads a Secret that just became referenced. The read is pinned to the resourceVersion the
   * Secret informer has reached (`resourceVersionMatch=Exact`), so what it returns is exactly the
   * state the watch will continue from: no newer state can be overtaken by an older event.
   */
  private async fetchSecret(request: SecretFetchRequest): Promise<void> {
    const namespace = namespaceOfKey(request.key);
    const name = request.key.slice((namespace?.length ?? -1) + 1);
    const reflector = (this.reflectors.get('Secret') ?? []).find(
      (candidate) => candidate.namespace === undefined || candidate.namespace === namespace,
    );
    const type = resourceTypes.Secret;
    for (let attempt = 1; ; attempt++) {
      if (reflector === undefined || this.stopController.signal.aborted || !this.state.isFetchWanted(request))
        return;
      const version = reflector.resourceVersion;
      // A relist is due: it will apply this Secret with the current references.
      if (version === '') return;
      const selectors = [`metadata.name=${name}`, this.options.fieldSelectors?.Secret].filter(Boolean);
      try {
        const page = await this.client.list({
          path: buildCollectionPath(type, namespace),
          fieldSelector: selectors.join(','),
          labelSelector: this.options.labelSelectors?.Secret,
          ...(this.exactReadsUnsupported
            ? {}
            : { resourceVersion: version, resourceVersionMatch: 'Exact' as const }),
          signal: this.stopController.signal,
        });
        if (this.stopController.signal.aborted) return;
        const secret = page.items
          .map((item) => shapeParsedObject(item, type, this.shapeOptions))
          .find((object): object is KubeObject => object?.metadata.name === name);
        this.apply('Secret', () => this.state.applyFetchedSecret(request, secret));
        return;
      } catch (error) {
        if (this.stopController.signal.aborted) return;
        const status = statusCodeOf(error);
        if (status === 410) {
          // The informer's resourceVersion is already compacted away: relisting covers this Secret.
          reflector.requestRelist();
          return;
        }
        if (status === 400 && !this.exactReadsUnsupported) {
          // Servers without exact reads: read the latest state; the informer's later events still win.
          this.exactReadsUnsupported = true;
          continue;
        }
        const delay = computeBackoffDelay(this.backoff, attempt, this.random);
        this.events.emit(
          'error',
          new InformerError('Secret', namespace, 'fetch', attempt, delay, { cause: error }),
        );
        await this.sleepUnlessStopped(delay);
      }
    }
  }

  private sleepUnlessStopped(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.fetchSleeps.delete(wake);
        cancelTimer();
        resolve();
      };
      const cancelTimer = this.clock.setTimer(wake, ms);
      this.fetchSleeps.add(wake);
    });
  }
}

const stoppedMarker = Symbol('stopped');

function isServing(crd: CustomResourceDefinition, group: string, plural: string, version: string): boolean {
  if (crd.metadata.deletionTimestamp) return false;
  if (crd.spec.group !== group || crd.spec.names.plural !== plural) return false;
  if (!crd.spec.versions.some((candidate) => candidate.name === version && candidate.served)) return false;
  // A CRD without conditions yet is taken as established; a 404 until it is just backs off quietly.
  const established = crd.status?.conditions?.find((condition) => condition.type === 'Established');
  return established === undefined || established.status === 'True';
}
