/**
 * The GatewayClass controller: the leader keeps the status and the gateway-exists finalizer of this
 * controllerName's classes.
 */
import { isOwnGatewayClass, isValidControllerName } from '@ingresskit/class-resolution';
import { mergeConditions } from '@ingresskit/kube-objects';
import {
  RateLimitingQueue,
  callGuarded,
  ListenerError,
  systemClock,
  systemWallClock,
  type Clock,
  type RateLimiter,
  type Timer,
  type WallClock,
} from '@ingresskit/task-queue';
import type { KubeConfig } from '@kubernetes/client-node';
import { EventEmitter } from 'eventemitter3';
import { createGatewayClassClient, type GatewayClassClient } from './client.js';
import { GatewayClassConditionType, hasNewerConditions } from './conditions.js';
import { isJsonEqual } from './equal.js';
import {
  ControllerStateError,
  GatewayClassConflictError,
  InvalidControllerNameError,
  InvalidVersionPolicyError,
} from './errors.js';
import { evaluateGatewayClass, type GatewayClassEvaluation } from './evaluate.js';
import { GATEWAY_EXISTS_FINALIZER, withGatewayExistsFinalizer } from './finalizer.js';
import { listAffectedGatewayClasses, type GatewayClassSource } from './source.js';
import type { GatewayClass, GatewayClassSummary } from './types.js';
import { defaultVersionPolicy, isValidVersionPattern, type VersionPolicy } from './versions.js';

/** Options of {@link GatewayClassController}. */
export interface GatewayClassControllerOptions {
  /** Our Gateway API controllerName; classes naming another controller are never touched. */
  controllerName: string;
  /** Cached reads and change notifications (e.g. `@ingresskit/store` behind a few lines of glue). */
  source: GatewayClassSource;
  /** Used to build the API client when `client` is not given. */
  kubeConfig?: KubeConfig;
  /** The writes; built from `kubeConfig` by default. */
  client?: GatewayClassClient;
  /** Only while this returns true does the controller read from or write to the API server; default always. */
  isLeader?: () => boolean;
  /** Supported Gateway API bundle versions and the policy for others; default {@link defaultVersionPolicy}. */
  versionPolicy?: VersionPolicy;
  /** Feature names published in `status.supportedFeatures` together with Accepted; unset leaves the field alone. */
  supportedFeatures?: readonly string[];
  /** Time source of retries and resyncs; `systemClock` by default. */
  clock?: Clock;
  /** Backoff of failed reconciles; task-queue's default controller rate limiter by default. */
  rateLimiter?: RateLimiter<string>;
  /** Source of `lastTransitionTime`; `Date.now` by default. */
  wallClock?: WallClock;
  /** Read-modify-write attempts per reconcile before giving up on conflicts (then retried with backoff); 5. */
  maxConflictAttempts?: number;
  /** When > 0, every class is reconciled again this often, as a safety net against missed events. */
  resyncPeriodMs?: number;
}

/** What one reconcile of a class did. */
export type GatewayClassReconcileOutcome =
  /** Wrote the finalizer and/or the status. */
  | 'updated'
  /** Everything was already as desired; nothing was written. */
  | 'unchanged'
  /** The class names another controller. */
  | 'ignored'
  /** The class does not exist (any more). */
  | 'gone'
  /** This replica is not the leader; nothing was read or written. */
  | 'not-leader'
  /** The source has not synced; retried with backoff. */
  | 'not-synced'
  /** The class's status records a newer generation than the one read; a later reconcile will catch up. */
  | 'stale';

/** Result of one reconcile, emitted as `reconciled`. */
export interface GatewayClassReconcileResult {
  name: string;
  outcome: GatewayClassReconcileOutcome;
  finalizer: 'added' | 'removed' | 'unchanged';
  statusWritten: boolean;
  /** The evaluation the status was derived from, when the class is ours. */
  evaluation?: GatewayClassEvaluation;
}

/** Events of {@link GatewayClassController}. */
export interface GatewayClassControllerEvents {
  /** A reconcile finished (including the ones that decided to do nothing). */
  reconciled: [result: GatewayClassReconcileResult];
  /** A reconcile failed; the class is retried with backoff. */
  error: [error: unknown, name: string];
}

const ownedConditionTypes: readonly string[] = Object.values(GatewayClassConditionType);

function isDeleting(gatewayClass: GatewayClass): boolean {
  return Boolean(gatewayClass.metadata?.deletionTimestamp);
}

/**
 * Reconciles GatewayClasses of one controllerName: sets Accepted and SupportedVersion through the
 * status subresource (re-read, merge, skip when equal, retry on conflict) and keeps the
 * gateway-exists finalizer on a class exactly while Gateways reference it. Work goes through a
 * rate-limited queue keyed by class name; only the leader talks to the API server.
 */
export class GatewayClassController extends EventEmitter<GatewayClassControllerEvents> {
  readonly #options: GatewayClassControllerOptions;
  readonly #client: GatewayClassClient;
  readonly #clock: Clock;
  readonly #isLeader: () => boolean;
  readonly #wallClock: WallClock;
  readonly #maxAttempts: number;
  readonly #queue: RateLimitingQueue<string>;
  readonly #abort = new AbortController();
  #unsubscribe: (() => void) | undefined;
  #worker: Promise<void> | undefined;
  #resyncTimer: Timer | undefined;
  #state: 'new' | 'running' | 'stopped' = 'new';

  /** Validates the options (throws InvalidControllerNameError / InvalidVersionPolicyError); starts nothing. */
  constructor(options: GatewayClassControllerOptions) {
    super();
    if (!isValidControllerName(options.controllerName)) {
      throw new InvalidControllerNameError(options.controllerName);
    }
    for (const pattern of options.versionPolicy?.supportedVersions ?? []) {
      if (!isValidVersionPattern(pattern)) throw new InvalidVersionPolicyError(pattern);
    }
    if (options.client === undefined && options.kubeConfig === undefined) {
      throw new TypeError('GatewayClassController needs a kubeConfig or a client');
    }
    this.#options = options;
    this.#client = options.client ?? createGatewayClassClient(options.kubeConfig as KubeConfig);
    this.#clock = options.clock ?? systemClock;
    this.#isLeader = options.isLeader ?? (() => true);
    this.#wallClock = options.wallClock ?? systemWallClock;
    this.#maxAttempts = Math.max(1, options.maxConflictAttempts ?? 5);
    this.#queue = new RateLimitingQueue<string>({
      clock: this.#clock,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    });
  }

  /**
   * Subscribes to the source, queues every class and starts the worker. Call it once the source
   * has synced: a half-filled Gateway list would remove finalizers of classes still in use.
   */
  start(): void {
    if (this.#state !== 'new') throw new ControllerStateError(this.#state);
    this.#state = 'running';
    this.#unsubscribe = this.#options.source.subscribe((change) => {
      const names = listAffectedGatewayClasses(
        change,
        this.#options.source.listGatewayClasses(),
        this.#options.controllerName,
      );
      for (const name of names) this.#queue.add(name);
    });
    this.resync();
    this.#worker = this.#runWorker();
    this.#scheduleResync();
  }

  /**
   * Queues every class in the source. Call it when this replica becomes the leader, since classes
   * skipped while following are not retried by themselves.
   */
  resync(): void {
    for (const gatewayClass of this.#options.source.listGatewayClasses()) {
      const name = gatewayClass.metadata?.name;
      if (name) this.#queue.add(name);
    }
  }

  /** Queues one class by name. */
  enqueue(name: string): void {
    this.#queue.add(name);
  }

  /** Stops listening, cancels queued and in-flight work (aborting its requests) and resolves when the worker has exited. */
  async stop(): Promise<void> {
    if (this.#state === 'stopped') return this.#worker;
    this.#state = 'stopped';
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#resyncTimer?.cancel();
    this.#resyncTimer = undefined;
    this.#abort.abort();
    this.#queue.shutDown();
    await this.#worker;
  }

  #scheduleResync(): void {
    const period = this.#options.resyncPeriodMs ?? 0;
    if (!(period > 0) || this.#state !== 'running') return;
    this.#resyncTimer = this.#clock.setTimer(period, () => {
      this.resync();
      this.#scheduleResync();
    });
  }

  async #runWorker(): Promise<void> {
    for (;;) {
      const next = await this.#queue.get();
      if (next.shutdown) return;
      const name = next.item;
      let result: GatewayClassReconcileResult | undefined;
      let failure: unknown;
      try {
        result = await this.#reconcile(name);
      } catch (error) {
        failure = error;
      }
      if (this.#abort.signal.aborted) {
        // Errors of requests aborted by stop() are the cancellation itself, not failures.
        this.#queue.done(name);
        continue;
      }
      if (result === undefined || result.outcome === 'not-synced') this.#queue.addRateLimited(name);
      else this.#queue.forget(name);
      this.#queue.done(name);
      if (result === undefined) this.#emitError(failure, name);
      else this.#emitReconciled(result);
    }
  }

  // Listeners run inside the worker loop; one that throws must not end the loop.
  #emitReconciled(result: GatewayClassReconcileResult): void {
    callGuarded(
      () => this.emit('reconciled', result),
      (cause) =>
        this.#emitError(
          new ListenerError('a reconciled listener of GatewayClassController', { cause }),
          result.name,
        ),
    );
  }

  // An error listener that throws has nowhere left to report to: callGuarded rethrows it outside
  // the worker loop.
  #emitError(error: unknown, name: string): void {
    callGuarded(() => this.emit('error', error, name));
  }

  async #reconcile(name: string): Promise<GatewayClassReconcileResult> {
    const base = { name, finalizer: 'unchanged', statusWritten: false } as const;
    const { source, controllerName } = this.#options;
    if (!this.#isLeader()) return { ...base, outcome: 'not-leader' };
    if (source.hasSynced !== undefined && !source.hasSynced()) return { ...base, outcome: 'not-synced' };
    const cached = findByName(source.listGatewayClasses(), name);
    if (cached !== undefined && !isOwnGatewayClass(cached, controllerName)) {
      return { ...base, outcome: 'ignored' };
    }

    let finalizer: GatewayClassReconcileResult['finalizer'] = 'unchanged';
    let statusWritten = false;
    const signal = this.#abort.signal;
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt += 1) {
      let current = await this.#client.get(name, signal);
      if (current === undefined) return { name, outcome: 'gone', finalizer, statusWritten };
      if (!isOwnGatewayClass(current, controllerName)) return { ...base, outcome: 'ignored' };

      const finalizers = current.metadata?.finalizers ?? [];
      const isInUse = isNonEmpty(source.listGatewaysForClass(name));
      // The API server refuses new finalizers on an object being deleted; one already there stays.
      const wantFinalizer =
        isInUse && (!isDeleting(current) || finalizers.includes(GATEWAY_EXISTS_FINALIZER));
      const nextFinalizers = withGatewayExistsFinalizer(finalizers, wantFinalizer);
      if (nextFinalizers.length !== finalizers.length) {
        if (!this.#isLeader()) return { name, outcome: 'not-leader', finalizer, statusWritten };
        const written = await this.#client.replace(
          { ...current, metadata: { ...current.metadata, finalizers: nextFinalizers } },
          signal,
        );
        if (written.outcome === 'conflict') continue;
        if (written.outcome === 'gone') return { name, outcome: 'gone', finalizer, statusWritten };
        finalizer = wantFinalizer ? 'added' : 'removed';
        if (isDeleting(current) && nextFinalizers.length === 0) {
          // Removing the last finalizer of a deleted object deletes it; no status left to write.
          return { name, outcome: 'updated', finalizer, statusWritten };
        }
        current = written.gatewayClass;
      }

      const evaluation = evaluateGatewayClass(current, {
        controllerName,
        now: new Date(this.#wallClock()),
        customResourceDefinitions: source.listCustomResourceDefinitions(),
        getParametersObject: (ref) => source.getParametersObject(ref),
        versionPolicy: this.#options.versionPolicy ?? defaultVersionPolicy,
        ...(this.#options.supportedFeatures ? { supportedFeatures: this.#options.supportedFeatures } : {}),
      });
      if (evaluation === null) return { ...base, outcome: 'ignored' };
      const done = (outcome: GatewayClassReconcileOutcome): GatewayClassReconcileResult => ({
        name,
        outcome,
        finalizer,
        statusWritten,
        evaluation,
      });

      const generation = current.metadata?.generation ?? 0;
      if (hasNewerConditions(current.status?.conditions, ownedConditionTypes, generation)) {
        return done('stale');
      }
      const status = {
        ...current.status,
        conditions: mergeConditions(current.status?.conditions, evaluation.conditions),
        ...(evaluation.supportedFeatures ? { supportedFeatures: evaluation.supportedFeatures } : {}),
      };
      if (isJsonEqual(status, current.status ?? {})) {
        return done(finalizer === 'unchanged' ? 'unchanged' : 'updated');
      }
      if (!this.#isLeader()) return done('not-leader');
      const written = await this.#client.replaceStatus({ ...current, status }, signal);
      if (written.outcome === 'conflict') continue;
      if (written.outcome === 'gone') return done('gone');
      statusWritten = true;
      return done('updated');
    }
    throw new GatewayClassConflictError(name, this.#maxAttempts);
  }
}

function findByName(
  gatewayClasses: Iterable<GatewayClassSummary>,
  name: string,
): GatewayClassSummary | undefined {
  for (const gatewayClass of gatewayClasses) {
    if (gatewayClass.metadata?.name === name) return gatewayClass;
  }
  return undefined;
}

function isNonEmpty(items: Iterable<unknown>): boolean {
  for (const _ of items) return true;
  return false;
}
