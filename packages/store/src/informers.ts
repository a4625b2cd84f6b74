/**
 * The store's list+watch loops: one reflector per kind and scope, started for the mirrored core
 * kinds by `start()` and for each optional kind while its CRD is served, all ended by `stop()`.
 */
import type { ResourceClient } from './api-client.js';
import { type InformerError, StoreStoppedError, statusCodeOf } from './errors.js';
import { shapeParsedObject } from './normalize.js';
import type { CustomResourceDefinition } from './objects.js';
import { Reflector, type ReflectorSink } from './reflector.js';
import { shapeSecret, shapeSecretWithoutData } from './secret-data.js';
import {
  coreKinds,
  isOptionalKind,
  type OptionalKind,
  optionalKinds,
  type ResourceKind,
  resourceTypes,
} from './resources.js';
import type { StoreState } from './state.js';
import type { StoreSettings } from './store-options.js';

/** What Informers start reflectors with, and where they report. */
export interface InformersOptions {
  readonly client: ResourceClient;
  readonly settings: StoreSettings;
  /**
   * Told which kinds are mirrored; read for the served CRDs; cleared of a kind whose CRD went away;
   * asked which Secrets are wanted whole.
   */
  readonly state: Pick<StoreState, 'setAvailable' | 'clear' | 'snapshot' | 'isSecretWanted'>;
  /** Once aborted, no reflector is started and a pending `start()` rejects. */
  readonly signal: AbortSignal;
  /** Where the reflector of `kind` in `namespace` (undefined: all) applies what it learns. */
  readonly createSink: (kind: ResourceKind, namespace: string | undefined) => ReflectorSink;
  /** Called for each list or watch failure; reflectors retry by themselves. */
  readonly onError: (error: InformerError) => void;
  /** Called whenever a reflector's phase or health changes. */
  readonly onProgress: (reflector: Reflector) => void;
  /** Called for each reflector stopped because its kind's CRD went away. */
  readonly onRetired: (reflector: Reflector) => void;
  /** Called when an optional kind has been listed after its CRD appeared, or deleted after it went. */
  readonly onAvailability: (kind: OptionalKind, available: boolean) => void;
  /** Called once, when every informer has listed, right before `start()` resolves. */
  readonly onSynced: () => void;
  /**
   * Resolves once the Secrets the lists made wanted have been read (or are no longer wanted):
   * `start()` waits for it, so the first snapshot has the certificates its Ingresses name.
   */
  readonly secretsRead?: () => Promise<void>;
}

/** The set of running reflectors, by kind. */
export class Informers {
  private readonly reflectors = new Map<ResourceKind, Reflector[]>();
  private readonly pendingStops = new Set<Promise<void>>();
  private readonly stoppedSignal: Promise<void>;
  private startPromise: Promise<void> | undefined;
  private synced = false;

  constructor(private readonly options: InformersOptions) {
    this.stoppedSignal = new Promise((resolve) => options.signal.addEventListener('abort', () => resolve()));
  }

  /** Starts every informer; resolves once each has listed. Rejects with StoreStoppedError if stopped first. */
  start(): Promise<void> {
    if (this.options.signal.aborted) return Promise.reject(new StoreStoppedError());
    this.startPromise ??= this.runStart();
    return this.startPromise;
  }

  /** Stops every reflector, retired ones included; resolves when all have ended. Call after aborting the signal. */
  stop(): Promise<void> {
    const all = [...this.reflectors.values()].flat().map((reflector) => reflector.stop());
    return Promise.all([...all, ...this.pendingStops]).then(() => undefined);
  }

  /** Whether `start()` has resolved. */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** Every running reflector, kind by kind in the order the kinds started. */
  all(): Reflector[] {
    return [...this.reflectors.values()].flat();
  }

  /** The reflector of `kind` covering `namespace`, if that kind is mirrored there. */
  find(kind: ResourceKind, namespace: string | undefined): Reflector | undefined {
    return (this.reflectors.get(kind) ?? []).find(
      (candidate) => candidate.namespace === undefined || candidate.namespace === namespace,
    );
  }

  /** Starts an optional kind when its CRD is served, stops it and deletes its objects when the CRD goes. */
  reconcileOptionalKinds(): void {
    const { signal, settings, state } = this.options;
    if (signal.aborted) return;
    const crds = state.snapshot().customResourceDefinitions;
    for (const kind of optionalKinds) {
      if (!settings.kinds.has(kind)) continue;
      const type = resourceTypes[kind];
      const crd = crds.get(type.crdName!);
      const wanted = crd !== undefined && isServing(crd, type.group, type.plural, type.version);
      const running = this.reflectors.get(kind);
      if (wanted && running === undefined) {
        const started = this.startKind(kind);
        void Promise.all(started.map((reflector) => reflector.synced)).then(() => {
          if (this.reflectors.get(kind) !== started || signal.aborted) return;
          state.setAvailable(kind, true);
          this.options.onAvailability(kind, true);
        });
      } else if (!wanted && running !== undefined) {
        this.reflectors.delete(kind);
        for (const reflector of running) {
          this.options.onRetired(reflector);
          const stopping = reflector.stop();
          this.pendingStops.add(stopping);
          void stopping.then(() => this.pendingStops.delete(stopping));
        }
        const wasAvailable = state.snapshot().isAvailable(kind);
        state.setAvailable(kind, false);
        state.clear(kind);
        if (wasAvailable) this.options.onAvailability(kind, false);
      }
    }
  }

  private async runStart(): Promise<void> {
    const { settings, state } = this.options;
    const waits: Promise<unknown>[] = [];
    if (settings.namespaceSelector !== undefined) {
      // Namespaces first: objects listed before their Namespace would be held back, then shown,
      // and a referenced Secret held back that way has to be read again.
      await this.untilStopped(Promise.all(this.startKind('Namespace').map((reflector) => reflector.synced)));
      state.setAvailable('Namespace', true);
    }
    for (const kind of coreKinds) {
      if (!settings.kinds.has(kind) || this.reflectors.has(kind)) continue;
      waits.push(...this.startKind(kind).map((reflector) => reflector.synced));
      state.setAvailable(kind, true);
    }
    if (optionalKinds.some((kind) => settings.kinds.has(kind))) {
      // Without permission to list CRDs (or without the API), start without optional kinds rather
      // than never: the informer keeps retrying and picks them up if that changes.
      let giveUp!: () => void;
      const unavailable = new Promise<void>((resolve) => (giveUp = resolve));
      const crds = this.startKind('CustomResourceDefinition', (error) => {
        if ([401, 403, 404].includes(error.statusCode ?? 0)) giveUp();
      });
      state.setAvailable('CustomResourceDefinition', true);
      waits.push(Promise.race([Promise.all(crds.map((reflector) => reflector.synced)), unavailable]));
    }
    await this.untilStopped(Promise.all(waits));
    // The CRD list has been applied, so the optional kinds whose CRD exists have started; wait for them too.
    const optional = optionalKinds.flatMap((kind) => this.reflectors.get(kind) ?? []);
    await this.untilStopped(Promise.all(optional.map((reflector) => reflector.synced)));
    if (this.options.secretsRead) await this.untilStopped(this.options.secretsRead());
    this.synced = true;
    this.options.onSynced();
  }

  private async untilStopped<T>(promise: Promise<T>): Promise<T> {
    const result = await Promise.race([promise, this.stoppedSignal.then(() => stoppedMarker)]);
    if (result === stoppedMarker || this.options.signal.aborted) throw new StoreStoppedError();
    return result as T;
  }

  private startKind(kind: ResourceKind, onFailure?: (error: InformerError) => void): Reflector[] {
    const { client, settings, state } = this.options;
    const type = resourceTypes[kind];
    const scopes = type.namespaced ? settings.namespaces : [undefined];
    const shapeWhole = (raw: unknown) => shapeParsedObject(raw, type, settings.shapeOptions);
    const shape =
      kind === 'Secret'
        ? (raw: unknown) => shapeSecret(raw, (key) => state.isSecretWanted(key), shapeWhole)
        : shapeWhole;
    // Ingresses and their classes say which Secrets are referenced: a Secret list is applied after
    // theirs, so the Secrets read whole at start are only those wanted.
    const referrersSynced = () =>
      Promise.all(
        [...(this.reflectors.get('Ingress') ?? []), ...(this.reflectors.get('IngressClass') ?? [])].map(
          (reflector) => reflector.synced,
        ),
      );
    const reflectors = scopes.map((namespace) => {
      const reflector: Reflector = new Reflector({
        type,
        namespace,
        labelSelector: settings.labelSelectors?.[kind],
        fieldSelector: settings.fieldSelectors?.[kind],
        client,
        clock: settings.clock,
        random: settings.random,
        backoff: settings.backoff,
        pageSize: settings.pageSize,
        watchTimeoutSeconds: settings.watchTimeoutSeconds,
        healthyWatchMs: 10_000,
        shape,
        // A Secret's data is read only when wanted: lists name them, the state reads those it wants.
        ...(kind === 'Secret' && settings.metadataOnlySecretLists
          ? { metadataOnlyLists: true, shapeListItem: shapeSecretWithoutData }
          : {}),
        sink: this.options.createSink(kind, namespace),
        beforeApply:
          kind === 'Secret' && settings.kinds.has('Ingress')
            ? () => Promise.race([referrersSynced().then(() => undefined), this.stoppedSignal])
            : undefined,
        onError: (error) => {
          onFailure?.(error);
          this.options.onError(error);
        },
        isQuietError: isOptionalKind(kind) ? (error) => statusCodeOf(error) === 404 : undefined,
        onProgress: () => this.options.onProgress(reflector),
      });
      return reflector;
    });
    this.reflectors.set(kind, reflectors);
    for (const reflector of reflectors) reflector.start();
    return reflectors;
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
