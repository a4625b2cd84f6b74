import type { KubeConfig } from '@kubernetes/client-node';
import type { EventEmitter } from 'eventemitter3';
import { createApiClient, type ResourceClient } from './api-client.js';
import { type InformerError, type ListenerError, StoreStoppedError, statusCodeOf } from './errors.js';
import { GuardedEmitter } from './guarded-emitter.js';
import {
  describeInformer,
  type InformerStatus,
  type StalenessChange,
  StalenessTracker,
} from './informer-health.js';
import type { CustomResourceDefinition, EndpointSlice, Gateway, Ingress } from './objects.js';
import { shapeParsedObject } from './normalize.js';
import { Reflector, type ReflectorSink } from './reflector.js';
import {
  coreKinds,
  isOptionalKind,
  type OptionalKind,
  optionalKinds,
  type ResourceKind,
  resourceTypes,
} from './resources.js';
import type { StoreSnapshot } from './snapshot.js';
import { type ChangeEvent, StoreState } from './state.js';
import { resolveStoreSettings, type StoreOptions, type StoreSettings } from './store-options.js';
import { SecretFetcher } from './secret-fetcher.js';

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

class KubernetesStore implements Store {
  private readonly settings: StoreSettings;
  private readonly state: StoreState;
  private readonly reflectors = new Map<ResourceKind, Reflector[]>();
  private readonly pendingStops = new Set<Promise<void>>();
  private readonly events = new GuardedEmitter<StoreEvents>(this);
  private readonly staleness: StalenessTracker;
  private readonly secrets: SecretFetcher;
  private readonly stopController = new AbortController();
  private readonly stoppedSignal: Promise<void>;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private synced = false;

  constructor(
    private readonly client: ResourceClient,
    options: StoreOptions,
  ) {
    const settings = resolveStoreSettings(options);
    this.settings = settings;
    this.state = new StoreState({
      watchesSecrets: settings.kinds.has('Secret'),
      secretAnnotations: options.secretAnnotations,
      keepAllSecrets: options.keepAllSecrets,
      keepSecrets: options.keepSecrets,
    });
    this.staleness = new StalenessTracker({
      clock: settings.clock,
      staleAfterMs: settings.staleAfterMs,
      signal: this.stopController.signal,
      onStale: (change) => this.events.emit('stale', change),
      onRecovered: (change) => this.events.emit('recovered', change),
    });
    this.secrets = new SecretFetcher({
      client,
      settings,
      state: this.state,
      signal: this.stopController.signal,
      findReflector: (namespace) =>
        (this.reflectors.get('Secret') ?? []).find(
          (candidate) => candidate.namespace === undefined || candidate.namespace === namespace,
        ),
      onApplied: () => this.flush(),
      onError: (error) => this.events.emit('error', error),
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
      const reads = this.secrets.stop();
      const all = [...this.reflectors.values()].flat().map((reflector) => reflector.stop());
      this.stopPromise = Promise.all([...all, ...this.pendingStops, reads]).then(() => undefined);
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
    const now = this.settings.clock.now();
    return [...this.reflectors.values()]
      .flat()
      .map((reflector) => describeInformer(reflector, now, this.settings.staleAfterMs));
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
      if (!this.settings.kinds.has(kind)) continue;
      waits.push(...this.startKind(kind).map((reflector) => reflector.synced));
      this.state.setAvailable(kind, true);
    }
    if (optionalKinds.some((kind) => this.settings.kinds.has(kind))) {
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
    const scopes = type.namespaced ? this.settings.namespaces : [undefined];
    const ingressSynced = () =>
      Promise.all((this.reflectors.get('Ingress') ?? []).map((reflector) => reflector.synced));
    const reflectors = scopes.map((namespace) => {
      const reflector: Reflector = new Reflector({
        type,
        namespace,
        labelSelector: this.settings.labelSelectors?.[kind],
        fieldSelector: this.settings.fieldSelectors?.[kind],
        client: this.client,
        clock: this.settings.clock,
        random: this.settings.random,
        backoff: this.settings.backoff,
        pageSize: this.settings.pageSize,
        watchTimeoutSeconds: this.settings.watchTimeoutSeconds,
        healthyWatchMs: 10_000,
        shape: (raw) => shapeParsedObject(raw, type, this.settings.shapeOptions),
        sink: this.createSink(kind, namespace),
        // Secrets are filtered by the references Ingresses make, so apply their first list after the Ingresses'.
        beforeApply:
          kind === 'Secret' && this.settings.kinds.has('Ingress')
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
      this.secrets.enqueue(requests);
    }
  }

  /** Starts an optional kind when its CRD is served, stops it and deletes its objects when the CRD goes. */
  private reconcileOptionalKinds(): void {
    if (this.stopController.signal.aborted) return;
    const crds = this.state.snapshot().customResourceDefinitions;
    for (const kind of optionalKinds) {
      if (!this.settings.kinds.has(kind)) continue;
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
