/**
 * The store: a thin composition of the informers (list+watch loops), the state they feed (snapshot
 * and indexes), the Secret fetcher, staleness tracking and the guarded emitter that tells consumers.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { EventEmitter } from 'eventemitter3';
import { createApiClient, type ResourceClient } from './api-client.js';
import type { InformerError, ListenerError } from './errors.js';
import { GuardedEmitter } from './guarded-emitter.js';
import {
  describeInformer,
  type InformerStatus,
  type StalenessChange,
  StalenessTracker,
} from './informer-health.js';
import { Informers } from './informers.js';
import type { EndpointSlice, Gateway, Ingress, Secret } from './objects.js';
import type { ReflectorSink } from './reflector.js';
import { type OptionalKind, type ResourceKind, resourceTypes } from './resources.js';
import { SecretFetcher } from './secret-fetcher.js';
import type { StoreSnapshot } from './snapshot.js';
import { type ChangeEvent, type SecretStats, StoreState } from './state.js';
import { resolveStoreSettings, type StoreOptions, type StoreSettings } from './store-options.js';

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
  /**
   * Keeps the Secrets `keys` (`namespace/name`) whatever their type and whether or not an Ingress
   * references them, in place of the last call's (e.g. those a ConfigMap names); one already seen
   * is read and arrives as a change event. Returns the keys being read so.
   */
  keepSecrets(keys: readonly string[]): readonly string[];
  /**
   * What is held of the Secrets seen: those held whole (referenced or kept) and the characters of
   * their data, and those known by key and resourceVersion only.
   */
  secretStats(): SecretStats;
  /**
   * Reads the Secret `key` (`namespace/name`) as the API server has it now, whether or not the
   * store holds it (e.g. to check an object that references it before it is stored); undefined
   * when it does not exist. Rejects when the read fails.
   */
  readSecret(key: string): Promise<Secret | undefined>;
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
  if (options.client) return new KubernetesStore(options.client, options);
  // The store owns the client it made, so its stop closes the connections kept for lists.
  const client = createApiClient(kubeConfig, { watchInactivityTimeoutMs: options.watchInactivityTimeoutMs });
  return new KubernetesStore(client, options, () => client.close());
}

class KubernetesStore implements Store {
  private readonly settings: StoreSettings;
  private readonly state: StoreState;
  private readonly events = new GuardedEmitter<StoreEvents>(this);
  private readonly stopController = new AbortController();
  private readonly staleness: StalenessTracker;
  private readonly informers: Informers;
  private readonly secrets: SecretFetcher;
  private stopPromise: Promise<void> | undefined;

  constructor(
    client: ResourceClient,
    options: StoreOptions,
    private readonly closeClient: () => Promise<void> = async () => {},
  ) {
    const settings = resolveStoreSettings(options);
    const signal = this.stopController.signal;
    const onError = (error: InformerError) => this.events.emit('error', error);
    this.settings = settings;
    this.state = new StoreState({
      watchesSecrets: settings.kinds.has('Secret'),
      secretAnnotations: options.secretAnnotations,
      keepAllSecrets: options.keepAllSecrets,
      keepSecrets: options.keepSecrets,
      isForeignClass: options.isForeignClass,
      namespaceSelector: settings.namespaceSelector,
    });
    this.staleness = new StalenessTracker({
      clock: settings.clock,
      staleAfterMs: settings.staleAfterMs,
      signal,
      onStale: (change) => this.events.emit('stale', change),
      onRecovered: (change) => this.events.emit('recovered', change),
    });
    this.informers = new Informers({
      client,
      settings,
      state: this.state,
      signal,
      createSink: (kind, namespace) => this.createSink(kind, namespace),
      onError,
      onProgress: (reflector) => this.staleness.track(reflector),
      onRetired: (reflector) => this.staleness.forget(reflector),
      onAvailability: (kind, available) => this.events.emit('availability', { kind, available }),
      onSynced: () => this.events.emit('synced'),
      secretsRead: () => this.secrets.idle(),
    });
    this.secrets = new SecretFetcher({
      client,
      settings,
      state: this.state,
      signal,
      findReflector: (namespace) => this.informers.find('Secret', namespace),
      onApplied: () => this.flush(),
      onError,
    });
  }

  start(): Promise<void> {
    return this.informers.start();
  }

  async stop(): Promise<void> {
    if (this.stopPromise === undefined) {
      this.stopController.abort();
      this.staleness.stop();
      const reads = this.secrets.stop();
      // The client closes last, once no list is in flight any more.
      this.stopPromise = Promise.all([reads, this.informers.stop()]).then(() => this.closeClient());
    }
    await this.stopPromise;
  }

  hasSynced(): boolean {
    return this.informers.hasSynced;
  }

  snapshot(): StoreSnapshot {
    return this.state.snapshot();
  }

  status(): readonly InformerStatus[] {
    const now = this.settings.clock.now();
    return this.informers
      .all()
      .map((reflector) => describeInformer(reflector, now, this.settings.staleAfterMs));
  }

  isStale(): boolean {
    return this.status().some((informer) => informer.stale && informer.phase !== 'stopped');
  }

  keepSecrets(keys: readonly string[]): readonly string[] {
    const reading = this.state.setKeptSecrets(keys);
    this.flush();
    return reading;
  }

  secretStats(): SecretStats {
    return this.state.secretStats();
  }

  readSecret(key: string): Promise<Secret | undefined> {
    return this.secrets.read(key);
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

  /** Feeds what a reflector learns into the state, then passes the resulting changes on. */
  private createSink(kind: ResourceKind, namespace: string | undefined): ReflectorSink {
    const scope = resourceTypes[kind].namespaced ? namespace : undefined;
    // Direct calls rather than one closure per change: this is the path of every list and watch event.
    return {
      replace: (objects) => {
        this.state.replace(kind, objects, scope);
        this.afterChange(kind);
      },
      upsert: (object) => {
        this.state.upsert(kind, object);
        this.afterChange(kind);
      },
      remove: (object) => {
        this.state.remove(kind, object);
        this.afterChange(kind);
      },
    };
  }

  private afterChange(kind: ResourceKind): void {
    if (kind === 'CustomResourceDefinition') this.informers.reconcileOptionalKinds();
    this.flush();
  }

  /** Emits the change events the state recorded and starts the Secret reads it asked for. */
  private flush(): void {
    for (const event of this.state.takeEvents()) this.events.emit('change', event);
    const requests = this.state.takeFetchRequests();
    if (requests.length > 0) this.secrets.enqueue(requests);
  }
}
