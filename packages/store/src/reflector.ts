/** The list+watch loop that keeps one kind mirrored whatever the API server does, until stopped. */
import type { ResourceClient, WatchHandle } from './api-client.js';
import { type BackoffPolicy, type Clock, computeBackoffDelay } from '@ingresskit/task-queue';
import { InformerError, type InformerPhase, statusCodeOf } from './errors.js';
import type { KubeObject } from './objects.js';
import { buildCollectionPath, type ResourceKind, type ResourceType } from './resources.js';

/** Where a reflector's loop is. */
export type ReflectorPhase = 'idle' | 'listing' | 'watching' | 'backoff' | 'stopped';

/** Receives what a reflector learns; every call is applied synchronously. */
export interface ReflectorSink {
  /** A complete list of the reflector's scope. */
  replace(objects: KubeObject[]): void;
  upsert(object: KubeObject): void;
  remove(object: KubeObject): void;
}

/** Everything a reflector needs; the store builds one per kind and namespace. */
export interface ReflectorOptions {
  readonly type: ResourceType;
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly random: () => number;
  readonly backoff: BackoffPolicy;
  /** Items per list page; 0 lists in one request. */
  readonly pageSize: number;
  /** The server closes each watch after a random number of seconds in this range, as client-go asks. */
  readonly watchTimeoutSeconds: readonly [number, number];
  /** A watch that lasted this long or delivered an event counts as healthy (resets the backoff). */
  readonly healthyWatchMs: number;
  readonly shape: (raw: unknown) => KubeObject | undefined;
  readonly sink: ReflectorSink;
  /**
   * Lists ask for the metadata of each object only (PartialObjectMetadataList), shaped by
   * `shapeListItem`; watches still send whole objects, to `shape`.
   */
  readonly metadataOnlyLists?: boolean;
  /** Shapes a list item; `shape` when unset. */
  readonly shapeListItem?: (raw: unknown) => KubeObject | undefined;
  /** Awaited between fetching a list and applying it (Secrets wait for the first Ingress list). */
  readonly beforeApply?: () => Promise<void>;
  /** Called for each failure; the reflector retries by itself. */
  readonly onError: (error: InformerError) => void;
  /** Failures not worth reporting (e.g. 404 while a CRD is being removed); they still back off. */
  readonly isQuietError?: (error: unknown) => boolean;
  /** Called whenever the phase or health changes. */
  readonly onProgress: () => void;
}

/**
 * One list+watch loop for one kind in one namespace (or all). Unlike client-node's ListWatch it
 * never stops on its own: every failure is retried with backoff, a 410 Expired relists, and only
 * `stop()` ends the loop. There is exactly one loop per reflector, so a late AbortError from a
 * stopped watch can never start a second one.
 */
export class Reflector {
  private currentPhase: ReflectorPhase = 'idle';
  private version = '';
  private stopped = false;
  private loop: Promise<void> | undefined;
  private failures = 0;
  private paginate = true;
  private listAbort: AbortController | undefined;
  private endWatch: ((error: unknown) => void) | undefined;
  private cancelSleep: (() => void) | undefined;
  private syncedOnce = false;
  private resolveSynced!: () => void;
  /** Resolves after the first complete list has been applied. */
  readonly synced: Promise<void>;
  /** When the last event, bookmark or list arrived (clock ms), or undefined. */
  lastEventAt: number | undefined;
  /** Since when the reflector has been unable to list or watch, or undefined while healthy. */
  unhealthySince: number | undefined;
  /** The last failure, cleared by the next success. */
  lastError: InformerError | undefined;

  constructor(private readonly options: ReflectorOptions) {
    this.synced = new Promise((resolve) => {
      this.resolveSynced = resolve;
    });
    this.unhealthySince = options.clock.now();
  }

  /** The loop's phase. */
  get phase(): ReflectorPhase {
    return this.currentPhase;
  }

  /** Whether a complete list has been applied at least once. */
  get hasSynced(): boolean {
    return this.syncedOnce;
  }

  /** The resourceVersion the state is at ('' before the first list and while a relist is due). */
  get resourceVersion(): string {
    return this.version;
  }

  /** The kind this reflector mirrors. */
  get kind(): ResourceKind {
    return this.options.type.kind;
  }

  /** The namespace this reflector covers, undefined for all. */
  get namespace(): string | undefined {
    return this.options.namespace;
  }

  /** Starts the loop; later calls do nothing. */
  start(): void {
    if (this.loop !== undefined || this.stopped) return;
    this.loop = this.run();
  }

  /** Ends the loop: aborts the list or watch in flight and cancels any backoff; resolves when it has ended. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.setPhase('stopped');
      this.listAbort?.abort();
      this.endWatch?.(undefined);
      this.cancelSleep?.();
    }
    await this.loop;
  }

  /** Forces a fresh list (e.g. a Secret read hit 410): ends the current watch; a list in flight already covers it. */
  requestRelist(): void {
    if (this.stopped || this.currentPhase === 'listing') return;
    this.version = '';
    this.endWatch?.(undefined);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.version === '') await this.listOnce();
      else await this.watchOnce();
    }
  }

  private async listOnce(): Promise<void> {
    this.setPhase('listing');
    const abort = new AbortController();
    this.listAbort = abort;
    const { type, namespace, labelSelector, fieldSelector, pageSize } = this.options;
    const path = buildCollectionPath(type, namespace);
    const shape = this.options.shapeListItem ?? this.options.shape;
    try {
      const objects: KubeObject[] = [];
      let listVersion: string | undefined;
      let continueToken: string | undefined;
      do {
        const page = await this.options.client.list({
          path,
          labelSelector,
          fieldSelector,
          limit: this.paginate && pageSize > 0 ? pageSize : undefined,
          continueToken,
          ...(this.options.metadataOnlyLists === true ? { metadataOnly: true } : {}),
          signal: abort.signal,
        });
        // Every page carries the first page's resourceVersion; keep the first to be safe.
        listVersion ??= page.resourceVersion;
        for (const item of page.items) {
          const object = shape(item);
          if (object !== undefined) objects.push(object);
        }
        continueToken = page.continueToken;
      } while (continueToken !== undefined && !this.stopped);
      if (this.options.beforeApply) await this.options.beforeApply();
      if (this.stopped) return;
      this.options.sink.replace(objects);
      this.version = listVersion;
      this.paginate = true;
      this.failures = 0;
      this.lastError = undefined;
      this.lastEventAt = this.options.clock.now();
      this.markHealthy();
      if (!this.syncedOnce) {
        this.syncedOnce = true;
        this.resolveSynced();
      }
      if (listVersion === '') {
        // Without a list resourceVersion a watch cannot resume; wait before listing again.
        await this.sleep(this.options.backoff.maxMs);
      }
    } catch (error) {
      if (this.stopped) return;
      if (statusCodeOf(error) === 410 && this.paginate) {
        // The continue token expired mid-list (compaction): list again in one request.
        this.paginate = false;
        return;
      }
      await this.fail('list', error);
    } finally {
      if (this.listAbort === abort) this.listAbort = undefined;
    }
  }

  private async watchOnce(): Promise<void> {
    const { clock, random, watchTimeoutSeconds, type, namespace } = this.options;
    const startedAt = clock.now();
    let sawEvent = false;
    let handle: WatchHandle | undefined;
    let finished = false;
    let expired = false;
    let outcome: unknown = null;
    let resolveEnded!: () => void;
    const ended = new Promise<void>((resolve) => {
      resolveEnded = resolve;
    });
    const finish = (error: unknown) => {
      if (finished) return;
      finished = true;
      outcome = error;
      handle?.abort();
      resolveEnded();
    };
    this.endWatch = finish;

    const onEvent = (eventType: string, raw: unknown) => {
      if (finished || this.stopped) return;
      try {
        if (eventType === 'ERROR') {
          const code = statusCodeOf(raw);
          if (code === 410) expired = true;
          finish(expired ? null : new WatchStatusError(raw));
          return;
        }
        sawEvent = true;
        this.lastEventAt = clock.now();
        this.markHealthy();
        const version = readResourceVersion(raw);
        if (eventType === 'BOOKMARK') {
          if (version) this.version = version;
          return;
        }
        const object = this.options.shape(raw);
        if (object === undefined) return;
        if (eventType === 'DELETED') this.options.sink.remove(object);
        else if (eventType === 'ADDED' || eventType === 'MODIFIED') this.options.sink.upsert(object);
        else return;
        if (object.metadata.resourceVersion !== '') this.version = object.metadata.resourceVersion;
      } catch (error) {
        // client-node swallows exceptions thrown by event callbacks; end the watch and relist instead.
        expired = true;
        finish(error);
      }
    };

    const [low, high] = watchTimeoutSeconds;
    const timeoutSeconds = Math.floor(low + random() * Math.max(0, high - low));
    const path = buildCollectionPath(type, namespace);
    void this.options.client
      .watch(
        {
          path,
          resourceVersion: this.version,
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
          timeoutSeconds,
        },
        onEvent,
        finish,
      )
      .then((watchHandle) => {
        handle = watchHandle;
        if (finished) {
          watchHandle.abort();
        } else {
          this.setPhase('watching');
          this.markHealthy();
        }
      }, finish);

    await ended;
    if (this.endWatch === finish) this.endWatch = undefined;
    if (this.stopped) return;
    this.markUnhealthy();
    if (expired || statusCodeOf(outcome) === 410) {
      this.version = '';
      if (outcome instanceof Error && statusCodeOf(outcome) !== 410) await this.fail('watch', outcome);
      return;
    }
    // requestRelist() cleared the version: list at once, nothing failed.
    if (this.version === '') return;
    if (outcome !== null && outcome !== undefined && !isTimeout(outcome)) {
      await this.fail('watch', outcome);
      return;
    }
    if (sawEvent || clock.now() - startedAt >= this.options.healthyWatchMs) {
      this.failures = 0;
      return;
    }
    // Closed at once without a single event: a server or proxy that keeps doing so must not make us spin.
    this.failures += 1;
    await this.sleep(computeBackoffDelay(this.options.backoff, this.failures, random));
  }

  private async fail(phase: InformerPhase, cause: unknown): Promise<void> {
    this.failures += 1;
    const delay = computeBackoffDelay(this.options.backoff, this.failures, this.options.random);
    const error = new InformerError(
      this.options.type.kind,
      this.options.namespace,
      phase,
      this.failures,
      delay,
      {
        cause,
      },
    );
    this.lastError = error;
    this.markUnhealthy();
    if (!(this.options.isQuietError?.(cause) ?? false)) this.options.onError(error);
    await this.sleep(delay);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.setPhase('backoff');
    return new Promise((resolve) => {
      const timer = this.options.clock.setTimer(ms, () => {
        this.cancelSleep = undefined;
        resolve();
      });
      this.cancelSleep = () => {
        timer.cancel();
        this.cancelSleep = undefined;
        resolve();
      };
    });
  }

  private setPhase(phase: ReflectorPhase): void {
    if (this.currentPhase === phase || this.currentPhase === 'stopped') return;
    this.currentPhase = phase;
    this.options.onProgress();
  }

  private markHealthy(): void {
    if (this.unhealthySince === undefined) return;
    this.unhealthySince = undefined;
    this.options.onProgress();
  }

  private markUnhealthy(): void {
    if (this.unhealthySince !== undefined) return;
    this.unhealthySince = this.options.clock.now();
    this.options.onProgress();
  }
}

/** An ERROR event other than 410 inside a watch stream. */
class WatchStatusError extends Error {
  override readonly name = 'WatchStatusError';
  readonly statusCode: number | undefined;

  constructor(status: unknown) {
    const record = (typeof status === 'object' && status !== null ? status : {}) as { message?: unknown };
    super(typeof record.message === 'string' ? record.message : 'watch ERROR event');
    this.statusCode = statusCodeOf(status);
  }
}

function readResourceVersion(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const metadata = (raw as { metadata?: { resourceVersion?: unknown } }).metadata;
  return typeof metadata?.resourceVersion === 'string' ? metadata.resourceVersion : undefined;
}

function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'TimeoutError';
}
