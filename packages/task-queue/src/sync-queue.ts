/**
 * The queue every sync goes through: changes coalesced per key into as few syncs as possible,
 * failures and the retries a sync asks for (its SyncResult) run again with backoff or after a delay.
 */
import { objectKey, type ObjectWithMetadata } from '@ingresskit/kube-objects';
import { EventEmitter } from 'eventemitter3';
import { type Clock, type Timer, systemClock } from './clock.js';
import { InvalidOptionError, InvalidSyncResultError, SyncQueueShutDownError } from './errors.js';
import { callGuarded } from './listener-guard.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { checkSyncResult, type SyncResult } from './sync-result.js';

/** One unit of work handed to the sync function. */
export interface SyncTask {
  /** `namespace/name` of the object that caused it, or a name such as `initial-sync`. */
  readonly key: string;
  /** False for forced tasks and retries, which are never skipped. */
  readonly skippable: boolean;
  /** True when this task repeats a sync that failed or asked to run again. */
  readonly isRetry: boolean;
  /** Clock time of the latest enqueue folded into this task, or of the sync a retry repeats. */
  readonly enqueuedAt: number;
  /**
   * How many retries with backoff this key had in a row: syncs that threw or returned `retry`
   * since its last `done` or `retryAfter`.
   */
  readonly retries: number;
}

/**
 * Does the work and says whether and when to run the key again (a {@link SyncResult}; nothing
 * means done). Throwing or rejecting re-queues the key rate limited, as `retry` does, and is also
 * reported as `syncError`. The key is informational.
 */
export type SyncFunction = (
  task: SyncTask,
  signal: AbortSignal,
) => Promise<SyncResult | void> | SyncResult | void;

/** Options of {@link SyncQueue}. */
export interface SyncQueueOptions {
  /** The injected sync, run by one worker, never twice at the same time. */
  sync: SyncFunction;
  /** Time source; `systemClock` by default. */
  clock?: Clock;
  /** Delays retries, keyed by task key; `defaultControllerRateLimiter` by default. */
  rateLimiter?: RateLimiter<string>;
  /**
   * Minimum time between the starts of two syncs (ingress-nginx's `--sync-rate-limit`: 0.3 per
   * second is about 3,333 ms); 0 by default. Tasks arriving while the worker waits are folded in.
   */
  minIntervalMs?: number;
}

/** Options of {@link SyncQueue.enqueue}. */
export interface EnqueueOptions {
  /**
   * True for ordinary change events: skipped when a sync that started later succeeded. False (the
   * default) forces a sync, as ingress-nginx does for the initial sync and ConfigMap changes.
   */
  skippable?: boolean;
}

/** Options of {@link SyncQueue.shutDown}. */
export interface SyncQueueShutDownOptions {
  /** Run the tasks already queued (skipping rules apply) before stopping; false by default. */
  drain?: boolean;
  /** Abort the running sync's signal with a `SyncQueueShutDownError`; false by default. */
  abortRunning?: boolean;
}

/** A finished sync, as reported by the `syncEnd` event. */
export interface SyncOutcome {
  readonly task: SyncTask;
  readonly startedAt: number;
  readonly durationMs: number;
}

/** A failed sync, as reported by the `syncError` event. */
export interface SyncFailure extends SyncOutcome {
  readonly error: unknown;
}

/** A retry scheduled, as reported by the `requeue` event. */
export interface SyncRequeue {
  readonly key: string;
  readonly delayMs: number;
  readonly retries: number;
  /** What asked for it: the sync threw (`error`) or returned `retry` or `retryAfter`. */
  readonly reason: 'error' | SyncRetryKind;
}

/** The kinds of {@link SyncResult} that run a key again. */
type SyncRetryKind = Exclude<SyncResult['kind'], 'done'>;

/** A task left out because a later sync already covered it, as reported by the `skip` event. */
export interface SyncSkip {
  readonly task: SyncTask;
  /** Start time of the successful sync that covered the task. */
  readonly lastSync: number;
}

/** Events of a {@link SyncQueue} and their arguments. */
export interface SyncQueueEvents {
  syncStart: [task: SyncTask, startedAt: number];
  syncEnd: [outcome: SyncOutcome];
  syncError: [failure: SyncFailure];
  requeue: [requeue: SyncRequeue];
  skip: [skip: SyncSkip];
  /** An enqueue after shutdown, which is dropped. */
  drop: [key: string];
}

interface PendingTask {
  // Position in the sequence of all enqueues; compared with the position at a sync's start.
  order: number;
  enqueuedAt: number;
  skippable: boolean;
}

// Queue items: one for the pending task of a key, one for its retry, so a waiting retry is never
// merged into a skippable task (and skipped with it) and the limiter counts failures per key.
const taskPrefix = 't:';
const retryPrefix = 'r:';
const prefixLength = 2;

/**
 * ingress-nginx's task queue: change events are coalesced per key and run through one injected sync
 * function. A skippable task is skipped when it was enqueued before the last successful sync started
 * (that sync saw its change), so a burst of events collapses into at most two syncs; forced tasks and
 * retries always run. A sync that throws or returns `retry` is run again after the rate limiter's
 * delay, one that returns `retryAfter` after its own delay; only `done` (or nothing) is a success.
 * Order is decided by enqueue sequence, not clock readings, so equal milliseconds or a clock
 * stepping back cannot hide a change.
 */
export class SyncQueue {
  readonly #sync: SyncFunction;
  readonly #clock: Clock;
  readonly #limiter: RateLimiter<string>;
  readonly #minIntervalMs: number;
  readonly #queue: RateLimitingQueue<string>;
  readonly #events = new EventEmitter<SyncQueueEvents>();
  readonly #abort = new AbortController();
  readonly #pending = new Map<string, PendingTask>();
  readonly #failedAt = new Map<string, number>();
  #idleWaiters: (() => void)[] = [];
  #enqueues = 0;
  #lastSync: number | undefined;
  #lastSyncOrder = -1;
  #lastStartedAt: number | undefined;
  #intervalWait: { timer: Timer; resolve: () => void } | undefined;
  #worker: Promise<void> | undefined;
  #isStopping = false;
  #isDraining = false;

  constructor(options: SyncQueueOptions) {
    this.#sync = options.sync;
    this.#clock = options.clock ?? systemClock;
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter<string>({ clock: this.#clock });
    this.#minIntervalMs = options.minIntervalMs ?? 0;
    if (!(this.#minIntervalMs >= 0) || !Number.isFinite(this.#minIntervalMs)) {
      throw new InvalidOptionError(`minIntervalMs must be a finite number ≥ 0, got ${this.#minIntervalMs}`);
    }
    // Retries are delayed with addAfter and the limiter above (keyed by task key), so the
    // queue's own limiter is never consulted.
    this.#queue = new RateLimitingQueue<string>({ clock: this.#clock, rateLimiter: this.#limiter });
  }

  /** Starts the single worker; tasks enqueued before are kept. Idempotent; ignored after shutdown. */
  start(): void {
    if (this.#worker !== undefined || this.#isStopping) return;
    this.#worker = this.#work();
  }

  /**
   * Queues a sync caused by `object` (or a plain key). A task still waiting for the same key absorbs it
   * (it stays forced if either was forced). Returns false, and emits `drop`, after shutdown.
   * Throws a TypeError when the object has no `metadata.name`.
   */
  enqueue(object: ObjectWithMetadata | string, options: EnqueueOptions = {}): boolean {
    const key = typeof object === 'string' ? object : objectKey(object);
    if (this.#isStopping) {
      this.#emit('drop', key);
      return false;
    }
    const skippable = options.skippable ?? false;
    const order = ++this.#enqueues;
    const enqueuedAt = this.#clock.now();
    const pending = this.#pending.get(key);
    if (pending === undefined) {
      this.#pending.set(key, { order, enqueuedAt, skippable });
    } else {
      pending.order = order;
      pending.enqueuedAt = enqueuedAt;
      pending.skippable &&= skippable;
    }
    this.#queue.add(taskPrefix + key);
    return true;
  }

  /** Subscribes to an event; returns the function that unsubscribes. Listeners must not throw. */
  on<E extends keyof SyncQueueEvents>(event: E, listener: (...args: SyncQueueEvents[E]) => void): () => void {
    const events = this.#events as unknown as EventEmitter<string>;
    events.on(event, listener);
    return () => {
      events.off(event, listener);
    };
  }

  /** Start time (clock ms) of the last successful sync, or undefined before the first one. */
  lastSync(): number | undefined {
    return this.#lastSync;
  }

  /** How many tasks are queued and not yet taken by the worker (waiting retries are not counted). */
  len(): number {
    return this.#queue.len();
  }

  /** True once `shutDown` was called. */
  isShuttingDown(): boolean {
    return this.#isStopping;
  }

  /**
   * Resolves when no task is queued or being worked on (retries waiting for their delay do not count),
   * or when the queue has shut down.
   */
  onIdle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops accepting tasks, cancels waiting retries and timers, and resolves once the running sync
   * has finished (after the queued tasks too with `drain`). Never rejects. A later call without
   * `drain` cuts a drain short; one with `abortRunning` aborts the running sync. Awaiting it from
   * inside the sync would wait for itself.
   */
  async shutDown(options: SyncQueueShutDownOptions = {}): Promise<void> {
    const drain = options.drain ?? false;
    if (!this.#isStopping) {
      this.#isStopping = true;
      this.#isDraining = drain;
      this.#queue.shutDown();
    } else if (!drain) {
      this.#isDraining = false;
    }
    if (!this.#isDraining) this.#cancelIntervalWait();
    if (options.abortRunning && !this.#abort.signal.aborted) this.#abort.abort(new SyncQueueShutDownError());
    await this.#worker;
    this.#pending.clear();
    this.#failedAt.clear();
    this.#releaseIdleWaiters();
  }

  async #work(): Promise<void> {
    for (;;) {
      const next = await this.#queue.get();
      if (next.shutdown) return;
      try {
        await this.#process(next.item);
      } finally {
        this.#queue.done(next.item);
        if (this.#isIdle()) this.#releaseIdleWaiters();
      }
    }
  }

  async #process(item: string): Promise<void> {
    const key = item.slice(prefixLength);
    const task = item.startsWith(retryPrefix) ? this.#takeRetry(key) : this.#takeTask(key);
    if (this.#isStopping && !this.#isDraining) return;
    if (task.skippable && task.order <= this.#lastSyncOrder) {
      this.#emit('skip', { task: task.task, lastSync: this.#lastSync ?? 0 });
      return;
    }
    await this.#waitForInterval();
    if (this.#isStopping && !this.#isDraining) return;
    await this.#runSync(task.task);
  }

  #takeTask(key: string): { task: SyncTask; order: number; skippable: boolean } {
    const pending = this.#pending.get(key);
    this.#pending.delete(key);
    const skippable = pending?.skippable ?? false;
    const task: SyncTask = {
      key,
      skippable,
      isRetry: false,
      enqueuedAt: pending?.enqueuedAt ?? this.#clock.now(),
      retries: this.#limiter.numRequeues(key),
    };
    return { task, order: pending?.order ?? Infinity, skippable };
  }

  #takeRetry(key: string): { task: SyncTask; order: number; skippable: boolean } {
    const failedAt = this.#failedAt.get(key);
    this.#failedAt.delete(key);
    const task: SyncTask = {
      key,
      skippable: false,
      isRetry: true,
      enqueuedAt: failedAt ?? this.#clock.now(),
      retries: this.#limiter.numRequeues(key),
    };
    return { task, order: Infinity, skippable: false };
  }

  async #runSync(task: SyncTask): Promise<void> {
    const startedAt = this.#clock.now();
    // Everything enqueued up to here is visible to this sync, whatever the clock says.
    const startOrder = this.#enqueues;
    this.#lastStartedAt = startedAt;
    this.#emit('syncStart', task, startedAt);
    const sync = this.#sync;
    let result: SyncResult | InvalidSyncResultError;
    try {
      result = checkSyncResult(await sync(task, this.#abort.signal));
    } catch (error) {
      this.#fail(task, startedAt, error);
      return;
    }
    if (result instanceof InvalidSyncResultError) {
      this.#fail(task, startedAt, result);
      return;
    }
    if (result.kind === 'retry') {
      this.#requeue(task.key, 'retry');
      return;
    }
    // As controller-runtime's RequeueAfter: the sync chose the delay, so the backoff starts over.
    this.#limiter.forget(task.key);
    if (result.kind === 'retryAfter') {
      this.#requeue(task.key, 'retryAfter', result.delayMs);
      return;
    }
    this.#lastSync = startedAt;
    this.#lastSyncOrder = startOrder;
    this.#emit('syncEnd', { task, startedAt, durationMs: this.#clock.now() - startedAt });
  }

  #fail(task: SyncTask, startedAt: number, error: unknown): void {
    this.#emit('syncError', { task, error, startedAt, durationMs: this.#clock.now() - startedAt });
    this.#requeue(task.key, 'error');
  }

  /** Runs `key` again after `delayMs`, or after the rate limiter's delay (a retry with backoff). */
  #requeue(key: string, reason: SyncRequeue['reason'], delayMs?: number): void {
    // A retry asked for during shutdown is dropped (a failure is still a syncError): nobody would run it.
    if (this.#queue.isShuttingDown()) return;
    delayMs ??= this.#limiter.when(key);
    if (!this.#failedAt.has(key)) this.#failedAt.set(key, this.#clock.now());
    this.#queue.addAfter(retryPrefix + key, delayMs);
    this.#emit('requeue', { key, delayMs, retries: this.#limiter.numRequeues(key), reason });
  }

  #waitForInterval(): Promise<void> | undefined {
    if (this.#minIntervalMs === 0 || this.#lastStartedAt === undefined) return undefined;
    const waitMs = this.#lastStartedAt + this.#minIntervalMs - this.#clock.now();
    if (waitMs <= 0) return undefined;
    return new Promise((resolve) => {
      const timer = this.#clock.setTimer(waitMs, () => {
        this.#intervalWait = undefined;
        resolve();
      });
      this.#intervalWait = { timer, resolve };
    });
  }

  #cancelIntervalWait(): void {
    const wait = this.#intervalWait;
    this.#intervalWait = undefined;
    wait?.timer.cancel();
    wait?.resolve();
  }

  #isIdle(): boolean {
    return this.#queue.len() === 0 && this.#queue.numProcessing() === 0;
  }

  #releaseIdleWaiters(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  #emit<E extends keyof SyncQueueEvents>(event: E, ...args: SyncQueueEvents[E]): void {
    // A throwing listener must not wedge the worker; the error still surfaces as uncaught.
    callGuarded(() => (this.#events as unknown as EventEmitter<string>).emit(event, ...args));
  }
}
