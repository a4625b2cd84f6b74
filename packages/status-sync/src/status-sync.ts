/**
 * When to publish Ingress status (start, interval, on demand, coalesced; leader only) and whether
 * to clear it on shutdown; the writes themselves are status-writer.ts's.
 */
import { systemClock, type Clock, type Timer } from '@ingresskit/task-queue';
import { EventEmitter } from 'eventemitter3';
import type { StatusAddress } from './addresses.js';
import { toError } from './api-errors.js';
import { findOtherReplicas, type CoreApi } from './controller-pods.js';
import { InvalidStatusSyncOptionsError } from './errors.js';
import { resolveStatusAddresses, type StatusAddressOptions } from './resolve-status-addresses.js';
import {
  createStatusWriter,
  type IngressStatusApi,
  type IngressWriteFailure,
  type OwnedIngress,
  type StatusWriter,
} from './status-writer.js';
import { withTimeout } from './timeout.js';

/** Options of {@link StatusSync}. Durations are milliseconds. */
export interface StatusSyncOptions {
  /** Usually `kubeConfig.makeApiClient(NetworkingV1Api)`. */
  networkingApi: IngressStatusApi;
  /** Usually `kubeConfig.makeApiClient(CoreV1Api)`: reads the publish Service, pods and nodes. */
  coreApi: CoreApi;
  /** Where the addresses come from (see resolveStatusAddresses); `controllerPod` also finds replicas. */
  addresses: StatusAddressOptions;
  /** Whether this replica may write now, e.g. `() => elector.isLeader()`; asked before every write. */
  isLeader: () => boolean;
  /** The Ingresses this controller owns, with their cached status (class resolution happens elsewhere). */
  listOwnedIngresses: () => Iterable<OwnedIngress> | Promise<Iterable<OwnedIngress>>;
  /** Pause between periodic syncs; 60 s by default (ingress-nginx's UpdateInterval). */
  intervalMs?: number;
  /** Most status writes in flight at once; 10 by default (ingress-nginx's pool size). */
  concurrency?: number;
  /** Clear the status on `stop()` when this is the last replica (`--update-status-on-shutdown`); false by default. */
  updateStatusOnShutdown?: boolean;
  /** Re-read-and-retry rounds after a 409 Conflict on one Ingress; 5 by default. */
  maxConflictRetries?: number;
  /** Limit for each API request (address resolution counts as one); 30 s by default. */
  requestTimeoutMs?: number;
  /** Source of time and timers; the monotonic system clock by default. */
  clock?: Clock;
}

/** What one sync did. */
export interface StatusSyncResult {
  /** `not-leader` and `stopped` syncs resolve no addresses and write nothing. */
  outcome: 'synced' | 'not-leader' | 'stopped';
  /** The addresses published, sorted and de-duplicated. */
  addresses: StatusAddress[];
  /** `namespace/name` of every Ingress whose status was written, sorted. */
  written: string[];
  /** How many owned Ingresses already had these addresses. */
  unchanged: number;
  failed: IngressWriteFailure[];
}

/** Why `stop()` cleared the status or kept it. */
export type StatusShutdownReason =
  /** `updateStatusOnShutdown` is off (or stop() ran before). */
  | 'not-requested'
  /** Other live replicas exist; the next leader keeps publishing. */
  | 'other-replicas'
  /**
   * Other replicas cannot be ruled out, so the status is kept: no `addresses.controllerPod` is
   * configured, or the controller pod or its replicas could not be read (`error` says why).
   */
  | 'unknown-replicas'
  /**
   * This is the last replica: the status was cleared. `cleared` is false only when the owned
   * Ingresses could not be listed (`error` says why).
   */
  | 'last-replica';

/** What `stop()` did to the published status. */
export interface StatusShutdownResult {
  cleared: boolean;
  reason: StatusShutdownReason;
  /** Names of the other live replicas found (empty unless reason is `other-replicas`). */
  otherReplicas: string[];
  /** Ingresses whose status was cleared. */
  written: string[];
  failed: IngressWriteFailure[];
  /**
   * Why the replicas or the owned Ingresses could not be read, so the status was kept; also
   * emitted as `sync-failed`. Absent when stop() could decide (per-Ingress failures are in `failed`).
   */
  error?: Error;
}

/** Events of {@link StatusSync}. */
export interface StatusSyncEvents {
  /** A sync finished; per-Ingress failures are in `result.failed`. */
  synced: [result: StatusSyncResult];
  /**
   * A sync failed as a whole (addresses or the owned list could not be read), or `stop()` could
   * not read the replicas or the owned list to clear the status; nothing was written.
   */
  'sync-failed': [error: Error];
}

const defaults = {
  intervalMs: 60_000,
  concurrency: 10,
  maxConflictRetries: 5,
  requestTimeoutMs: 30_000,
} as const;

/**
 * Publishes the controller's addresses into `status.loadBalancer.ingress` of its owned Ingresses,
 * from the leader only: on start, every interval and on demand. An Ingress is written only when its
 * sorted addresses differ, through the status subresource, re-reading and retrying on conflict.
 */
export class StatusSync extends EventEmitter<StatusSyncEvents> {
  private readonly writer: StatusWriter;
  private readonly core: CoreApi;
  private readonly addressOptions: StatusAddressOptions;
  private readonly isLeader: () => boolean;
  private readonly listOwnedIngresses: StatusSyncOptions['listOwnedIngresses'];
  private readonly intervalMs: number;
  private readonly updateStatusOnShutdown: boolean;
  private readonly requestTimeoutMs: number;
  private readonly clock: Clock;

  private state: 'idle' | 'running' | 'stopped' = 'idle';
  private timer: Timer | undefined;
  private running: Promise<StatusSyncResult> | undefined;
  private queued: Promise<StatusSyncResult> | undefined;

  /** Validates the numeric options; throws InvalidStatusSyncOptionsError. */
  constructor(options: StatusSyncOptions) {
    super();
    this.core = options.coreApi;
    this.addressOptions = options.addresses;
    this.isLeader = options.isLeader;
    this.listOwnedIngresses = options.listOwnedIngresses;
    this.intervalMs = options.intervalMs ?? defaults.intervalMs;
    const concurrency = options.concurrency ?? defaults.concurrency;
    this.updateStatusOnShutdown = options.updateStatusOnShutdown ?? false;
    const maxConflictRetries = options.maxConflictRetries ?? defaults.maxConflictRetries;
    this.requestTimeoutMs = options.requestTimeoutMs ?? defaults.requestTimeoutMs;
    this.clock = options.clock ?? systemClock;
    checkPositive('intervalMs', this.intervalMs);
    checkPositive('requestTimeoutMs', this.requestTimeoutMs);
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new InvalidStatusSyncOptionsError(`concurrency must be an integer ≥ 1, got ${concurrency}`);
    }
    if (!Number.isInteger(maxConflictRetries) || maxConflictRetries < 0) {
      throw new InvalidStatusSyncOptionsError(
        `maxConflictRetries must be an integer ≥ 0, got ${maxConflictRetries}`,
      );
    }
    this.writer = createStatusWriter({
      api: options.networkingApi,
      concurrency,
      maxConflictRetries,
      requestTimeoutMs: this.requestTimeoutMs,
      clock: this.clock,
    });
  }

  /** Runs a first sync now and then one every interval; does nothing unless idle. */
  start(): void {
    if (this.state !== 'idle') return;
    this.state = 'running';
    this.requestSync();
    this.armInterval();
  }

  /**
   * Syncs now (a new owned Ingress, changed addresses, or just became leader). A call during a sync
   * queues one more that starts when it ends; calls while one is queued share it. Rejects when the
   * addresses or the owned Ingresses cannot be read (also emitted as `sync-failed`).
   */
  sync(): Promise<StatusSyncResult> {
    if (this.running === undefined) {
      this.running = this.runSync().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running.then(ignore, ignore).then(() => {
      this.queued = undefined;
      return this.sync();
    });
    return this.queued;
  }

  /** Like `sync()` without waiting: the result goes to `synced`, a failure only to `sync-failed`. */
  requestSync(): void {
    // The failure was already emitted as `sync-failed` by runSync.
    this.sync().catch(ignore);
  }

  /**
   * Stops the periodic sync and waits for the one in flight. With `updateStatusOnShutdown`, clears
   * the status of every owned Ingress when no other live replica of the controller exists (pods
   * matching its labels, any revision, not being deleted and not finished); otherwise leaves it to
   * the next leader. Does not reject when the replicas or the owned Ingresses cannot be read: the
   * status is then kept and the result carries the `error` (also emitted as `sync-failed`).
   */
  async stop(): Promise<StatusShutdownResult> {
    const wasActive = this.state !== 'stopped';
    this.state = 'stopped';
    this.timer?.cancel();
    this.timer = undefined;
    await this.running?.catch(ignore);
    await this.queued?.catch(ignore);
    const kept = (reason: StatusShutdownReason, otherReplicas: string[] = []): StatusShutdownResult => ({
      cleared: false,
      reason,
      otherReplicas,
      written: [],
      failed: [],
    });
    if (!wasActive || !this.updateStatusOnShutdown) return kept('not-requested');
    const failedWith = (reason: StatusShutdownReason, thrown: unknown): StatusShutdownResult => {
      const error = toError(thrown);
      this.emit('sync-failed', error);
      return { ...kept(reason), error };
    };
    const pod = this.addressOptions.controllerPod;
    if (pod === undefined) return kept('unknown-replicas');
    let otherReplicas: string[];
    try {
      otherReplicas = await this.bounded(findOtherReplicas(pod, this.core), 'listing controller replicas');
    } catch (error) {
      // Outside a pod (404), without RBAC (403) or with the API server down, other replicas may
      // still be serving: clearing now could empty the status they publish, keeping it is safe.
      return failedWith('unknown-replicas', error);
    }
    if (otherReplicas.length > 0) return kept('other-replicas', otherReplicas);
    try {
      // The last replica writes even without the lease: after a crash of the leader nobody may hold it.
      const { written, failed } = await this.writer.publish(await this.readOwned(), [], () => true);
      return { cleared: true, reason: 'last-replica', otherReplicas: [], written, failed };
    } catch (error) {
      // Only listing the owned Ingresses can fail here: each write's failure lands in `failed`.
      return failedWith('last-replica', error);
    }
  }

  private armInterval(): void {
    this.timer = this.clock.setTimer(this.intervalMs, () => {
      if (this.state !== 'running') return;
      this.requestSync();
      this.armInterval();
    });
  }

  private async runSync(): Promise<StatusSyncResult> {
    try {
      const result = await this.syncOnce();
      this.emit('synced', result);
      return result;
    } catch (thrown) {
      const error = toError(thrown);
      this.emit('sync-failed', error);
      throw error;
    }
  }

  private async syncOnce(): Promise<StatusSyncResult> {
    const empty = { addresses: [], written: [], unchanged: 0, failed: [] };
    if (this.state === 'stopped') return { outcome: 'stopped', ...empty };
    if (!this.isLeader()) return { outcome: 'not-leader', ...empty };
    const addresses = await this.bounded(
      resolveStatusAddresses(this.addressOptions, this.core),
      'resolving addresses',
    );
    const ingresses = await this.readOwned();
    const published = await this.writer.publish(
      ingresses,
      addresses,
      () => this.state !== 'stopped' && this.isLeader(),
    );
    return { outcome: 'synced', addresses, ...published };
  }

  private async readOwned(): Promise<OwnedIngress[]> {
    return [...(await this.listOwnedIngresses())];
  }

  private bounded<T>(promise: Promise<T>, what: string): Promise<T> {
    return withTimeout(promise, this.requestTimeoutMs, this.clock, what);
  }
}

function checkPositive(name: string, value: number): void {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new InvalidStatusSyncOptionsError(`${name} must be a finite number > 0, got ${value}`);
  }
}

function ignore(): void {}
