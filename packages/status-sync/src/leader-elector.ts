/**
 * The acquire/renew loop of Lease leader election: when to try, what each attempt means for
 * leading and the renew deadline, and giving the Lease up on stop.
 */
import { systemClock, systemWallClock, type Clock, type Timer, type WallClock } from '@ingresskit/task-queue';
import type { V1Lease } from '@kubernetes/client-node';
import { EventEmitter } from 'eventemitter3';
import { toError } from './api-errors.js';
import {
  checkElectionOptions,
  computeNextAttemptDelay,
  defaultLeaderElectionTiming,
} from './election-timing.js';
import { createLeaseClient, type LeaseApi, type LeaseClient, type LeaseWriteResult } from './lease-client.js';
import {
  buildHolderSpec,
  isObservationValid,
  readLeaseRecord,
  type LeaseObservation,
} from './lease-record.js';
import { withTimeout } from './timeout.js';

/** Options of {@link LeaderElector}. Durations are milliseconds. */
export interface LeaderElectorOptions {
  /** Usually `kubeConfig.makeApiClient(CoordinationV1Api)`. */
  coordinationApi: LeaseApi;
  /** Namespace of the Lease, normally the controller's own. */
  namespace: string;
  /** Name of the Lease (ingress-nginx's `--election-id`). */
  electionId: string;
  /** This replica's identity in `spec.holderIdentity`, normally the pod name; unique per replica. */
  identity: string;
  /** How long candidates wait after the last observed change before taking over; 30 s by default. */
  leaseDurationMs?: number;
  /** How long the leader keeps leading without a successful renew; 15 s by default. */
  renewDeadlineMs?: number;
  /** Pause between attempts; candidates add up to 120 % jitter; 7.5 s by default. */
  retryPeriodMs?: number;
  /** Source of durations and timers; the monotonic system clock by default. */
  clock?: Clock;
  /** Source of the times written into the Lease (acquireTime, renewTime); `Date.now` by default. */
  wallClock?: WallClock;
  /** Uniform numbers in [0, 1) for the candidates' jitter; `Math.random` by default. */
  random?: () => number;
}

/** Why this replica stopped leading. */
export type StoppedLeadingReason =
  /** No renew succeeded within the renew deadline (API server down, slow, or refusing). */
  | 'renew-deadline'
  /** The Lease names another holder (someone edited it, or our clock ran far slower). */
  | 'lost'
  /** `stop()` was called. */
  | 'stopped';

/** Events of {@link LeaderElector}. */
export interface LeaderElectorEvents {
  /** This replica became the leader; `isLeader()` is true from now on until `stopped-leading`. */
  'started-leading': [];
  /** This replica is no longer the leader. */
  'stopped-leading': [reason: StoppedLeadingReason];
  /** A different replica (or this one) was observed holding the Lease. */
  'new-leader': [identity: string];
  /** A get/create/update failed for a reason other than losing a race; the elector keeps trying. */
  'attempt-failed': [error: Error];
  /**
   * `stop()` could not give the Lease up (API server down, too slow, refusing, or conflicts on every
   * try); the Lease then expires after its duration instead. Also in the result of `stop()`.
   */
  'release-failed': [error: Error];
}

/** Options of {@link LeaderElector.stop}. */
export interface StopLeaderElectorOptions {
  /**
   * Give the Lease up (empty holder, 1 s duration, as client-go's ReleaseOnCancel) so another replica
   * takes over at its next attempt; true by default. False models a crash: others wait for expiry.
   */
  release?: boolean;
}

/** What {@link LeaderElector.stop} did with the Lease. */
export interface LeaderElectorStopResult {
  /**
   * True when this call gave the Lease up (wrote an empty holder). False when there was nothing to
   * release (`release: false`, not running, never held, or the Lease names someone else or is
   * gone) and when releasing failed (`error` says why).
   */
  released: boolean;
  /** Why the release failed (`LeaseRequestError`); also emitted as `release-failed`. */
  error?: Error;
}

type AttemptOutcome =
  | { readonly kind: 'acquired'; readonly lease: V1Lease }
  | { readonly kind: 'held'; readonly holder: string }
  | { readonly kind: 'conflict' }
  | { readonly kind: 'abandoned' }
  | { readonly kind: 'failed'; readonly error: Error };

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, modelled on client-go: get, then create or
 * update with the read `resourceVersion` (a 409 means another replica won). A candidate takes over
 * only after the Lease it observes has not changed for its `leaseDurationSeconds` on the candidate's
 * own clock, and a leader stops leading once `renewDeadlineMs` passes since the start of its last
 * successful write; as the renew deadline is shorter than the lease duration, two replicas never
 * lead at once while clocks run at the same rate.
 */
export class LeaderElector extends EventEmitter<LeaderElectorEvents> {
  private readonly lease: LeaseClient;
  private readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly wallClock: WallClock;
  private readonly random: () => number;

  private state: 'idle' | 'running' | 'stopped' = 'idle';
  private isLeading = false;
  private leadingUntil = 0;
  private observation: LeaseObservation | undefined;
  private reportedLeader: string | undefined;
  private attemptSeq = 0;
  private currentAttempt = 0;
  private mayHoldLease = false;
  private retryTimer: Timer | undefined;
  private deadlineTimer: Timer | undefined;
  private releasing: Promise<boolean> | undefined;

  /** Validates identity and timing (lease > renew deadline > retry period > 0); throws InvalidStatusSyncOptionsError. */
  constructor(options: LeaderElectorOptions) {
    super();
    this.identity = options.identity;
    this.leaseDurationMs = options.leaseDurationMs ?? defaultLeaderElectionTiming.leaseDurationMs;
    this.renewDeadlineMs = options.renewDeadlineMs ?? defaultLeaderElectionTiming.renewDeadlineMs;
    this.retryPeriodMs = options.retryPeriodMs ?? defaultLeaderElectionTiming.retryPeriodMs;
    this.clock = options.clock ?? systemClock;
    this.wallClock = options.wallClock ?? systemWallClock;
    this.random = options.random ?? Math.random;
    checkElectionOptions(options.identity, {
      leaseDurationMs: this.leaseDurationMs,
      renewDeadlineMs: this.renewDeadlineMs,
      retryPeriodMs: this.retryPeriodMs,
    });
    this.lease = createLeaseClient({
      api: options.coordinationApi,
      namespace: options.namespace,
      name: options.electionId,
      clock: this.clock,
      wallClock: this.wallClock,
      timeoutMs: this.renewDeadlineMs,
    });
  }

  /**
   * Starts competing for the Lease (first attempt at once, or once a release from a previous
   * `stop()` is done); does nothing while already running.
   */
  start(): void {
    if (this.state === 'running') return;
    this.state = 'running';
    if (this.releasing === undefined) {
      this.runAttempt();
      return;
    }
    // A release landing after a new acquisition would empty the Lease under a running leader.
    const resume = (): void => {
      if (this.state === 'running' && this.currentAttempt === 0 && this.retryTimer === undefined)
        this.runAttempt();
    };
    this.releasing.then(resume, resume);
  }

  /**
   * Stops competing: emits `stopped-leading` if leading, cancels all timers and, unless
   * `release: false`, gives the Lease up when it names this replica. Never rejects: when the release
   * fails, the Lease is left to expire and the result carries the `error` (also emitted as
   * `release-failed`).
   */
  async stop(options: StopLeaderElectorOptions = {}): Promise<LeaderElectorStopResult> {
    if (this.state !== 'running') {
      this.state = 'stopped';
      return { released: false };
    }
    this.state = 'stopped';
    // Results of an attempt still in flight are ignored from here on.
    this.currentAttempt = 0;
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    this.deadlineTimer?.cancel();
    this.deadlineTimer = undefined;
    if (this.isLeading) {
      this.isLeading = false;
      this.emit('stopped-leading', 'stopped');
    }
    if (!(options.release ?? true) || !this.mayHoldLease) return { released: false };
    this.mayHoldLease = false;
    const releasing = this.releaseLease();
    this.releasing = releasing;
    try {
      return { released: await releasing };
    } catch (thrown) {
      // A shutdown cannot do better than letting the Lease expire, which is what a crash does too.
      const error = toError(thrown);
      this.emit('release-failed', error);
      return { released: false, error };
    } finally {
      if (this.releasing === releasing) this.releasing = undefined;
    }
  }

  /** True while this replica leads and its renew deadline has not passed (checked against the clock). */
  isLeader(): boolean {
    return this.isLeading && this.clock.now() < this.leadingUntil;
  }

  /** The holder of the Lease as last observed (this replica included), or undefined when nobody holds it. */
  leader(): string | undefined {
    const holder = this.observation?.record.holderIdentity;
    return holder === undefined || holder === '' ? undefined : holder;
  }

  private runAttempt(): void {
    if (this.state !== 'running') return;
    const attempt = ++this.attemptSeq;
    this.currentAttempt = attempt;
    const startedAt = this.clock.now();
    // A hung request must not stall the elector; its late result is dropped via currentAttempt.
    void withTimeout(
      this.tryAcquireOrRenew(attempt),
      this.renewDeadlineMs,
      this.clock,
      this.lease.describe('attempt on'),
    ).then(
      (outcome) => this.finishAttempt(attempt, startedAt, outcome),
      (error: unknown) => this.finishAttempt(attempt, startedAt, { kind: 'failed', error: toError(error) }),
    );
  }

  private async tryAcquireOrRenew(attempt: number): Promise<AttemptOutcome> {
    // The Lease says when the attempt started, on the wall clock other replicas and humans read.
    const stampedAt = this.wallClock();
    const lease = await this.lease.read();
    if (attempt !== this.currentAttempt) return { kind: 'abandoned' };
    if (lease === undefined) {
      this.mayHoldLease = true;
      return acquiredOrConflict(
        await this.lease.create(buildHolderSpec(this.identity, this.leaseDurationMs, stampedAt, undefined)),
      );
    }
    const observed = this.observe(lease);
    const holder = observed.record.holderIdentity;
    if (
      holder !== '' &&
      holder !== this.identity &&
      isObservationValid(observed, this.leaseDurationMs, this.clock.now())
    ) {
      return { kind: 'held', holder };
    }
    const spec = buildHolderSpec(this.identity, this.leaseDurationMs, stampedAt, observed.record);
    this.mayHoldLease = true;
    return acquiredOrConflict(await this.lease.replace({ ...lease, spec: { ...lease.spec, ...spec } }));
  }

  private finishAttempt(attempt: number, startedAt: number, outcome: AttemptOutcome): void {
    if (attempt !== this.currentAttempt || this.state !== 'running') return;
    this.currentAttempt = 0;
    switch (outcome.kind) {
      case 'acquired': {
        this.observe(outcome.lease);
        // The server applied the write after startedAt, so every other replica observed it later
        // and waits a full lease duration from then: leading until startedAt + renewDeadline is safe.
        const until = startedAt + this.renewDeadlineMs;
        if (this.clock.now() < until) {
          this.leadingUntil = until;
          this.armDeadline();
          if (!this.isLeading) {
            this.isLeading = true;
            this.emit('started-leading');
          }
        }
        break;
      }
      case 'held':
        if (this.isLeading) this.stepDown('lost');
        break;
      case 'failed':
        this.emit('attempt-failed', outcome.error);
        break;
      case 'conflict':
      case 'abandoned':
        break;
    }
    if (this.isLeading && this.clock.now() >= this.leadingUntil) this.stepDown('renew-deadline');
    this.scheduleAttempt(computeNextAttemptDelay(this.retryPeriodMs, this.isLeading, this.random));
  }

  private scheduleAttempt(delayMs: number): void {
    if (this.state !== 'running' || this.currentAttempt !== 0) return;
    this.retryTimer?.cancel();
    this.retryTimer = this.clock.setTimer(delayMs, () => {
      this.retryTimer = undefined;
      this.runAttempt();
    });
  }

  private armDeadline(): void {
    this.deadlineTimer?.cancel();
    this.deadlineTimer = this.clock.setTimer(this.leadingUntil - this.clock.now(), () => {
      this.deadlineTimer = undefined;
      if (this.isLeading && this.clock.now() >= this.leadingUntil) this.stepDown('renew-deadline');
    });
  }

  private stepDown(reason: StoppedLeadingReason): void {
    this.isLeading = false;
    this.deadlineTimer?.cancel();
    this.deadlineTimer = undefined;
    this.emit('stopped-leading', reason);
  }

  private observe(lease: V1Lease): LeaseObservation {
    const record = readLeaseRecord(lease.spec);
    const key = JSON.stringify(record);
    if (this.observation?.key !== key) {
      this.observation = { record, key, observedAt: this.clock.now() };
    }
    const holder = record.holderIdentity === '' ? undefined : record.holderIdentity;
    if (holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      if (holder !== undefined) this.emit('new-leader', holder);
    }
    return this.observation;
  }

  /** True when the Lease was given up; false when it was gone or named someone else already. */
  private async releaseLease(): Promise<boolean> {
    const released = await this.lease.release(this.identity);
    if (released === undefined) return false;
    this.observe(released);
    return true;
  }
}

function acquiredOrConflict(result: LeaseWriteResult): AttemptOutcome {
  return result.kind === 'written' ? { kind: 'acquired', lease: result.lease } : result;
}
