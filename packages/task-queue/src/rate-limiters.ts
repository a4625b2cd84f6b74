/**
 * How long an item waits before its next try: client-go's rate limiters, per-item backoff and a
 * shared token bucket.
 */
import { computeBackoffDelay } from './backoff.js';
import { type Clock, systemClock } from './clock.js';
import { InvalidOptionError } from './errors.js';

/** Decides how long an item waits before its next attempt (client-go's `TypedRateLimiter`). */
export interface RateLimiter<T> {
  /** Milliseconds `item` should wait now; records the attempt (it may count as a failure). */
  when(item: T): number;
  /** Clears what was recorded about `item` (call after it succeeded or was given up). */
  forget(item: T): void;
  /** How many times `item` was rate limited since it was last forgotten. */
  numRequeues(item: T): number;
}

/** Options of {@link exponentialFailureRateLimiter}. */
export interface ExponentialFailureOptions {
  /** Delay after the first failure; 5 ms by default. */
  baseMs?: number;
  /** Upper bound of every delay; 1,000,000 ms (1000 s) by default. */
  maxMs?: number;
}

/** Per-item exponential backoff: `baseMs * 2^failures`, capped at `maxMs`; `forget` resets the item. */
export function exponentialFailureRateLimiter<T>(options: ExponentialFailureOptions = {}): RateLimiter<T> {
  const baseMs = options.baseMs ?? 5;
  const maxMs = options.maxMs ?? 1_000_000;
  requireNonNegative('baseMs', baseMs);
  requireNonNegative('maxMs', maxMs);
  const failures = new Map<T, number>();
  return {
    when(item) {
      const attempt = (failures.get(item) ?? 0) + 1;
      failures.set(item, attempt);
      return computeBackoffDelay({ initialMs: baseMs, maxMs }, attempt);
    },
    forget(item) {
      failures.delete(item);
    },
    numRequeues: (item) => failures.get(item) ?? 0,
  };
}

/** Options of {@link bucketRateLimiter}. */
export interface BucketOptions {
  /** Tokens added per second; 10 by default. `Infinity` never delays. */
  qps?: number;
  /** Bucket size, the number of attempts allowed at once; 100 by default. */
  burst?: number;
  /** Time source; `systemClock` by default. */
  clock?: Clock;
}

/**
 * One token bucket shared by all items (golang.org/x/time/rate semantics): starts full with `burst`
 * tokens, refills at `qps`, and each `when` reserves a token, returning how long until it exists.
 * It keeps no per-item state, so `numRequeues` is 0 and `forget` does nothing.
 */
export function bucketRateLimiter<T>(options: BucketOptions = {}): RateLimiter<T> {
  const qps = options.qps ?? 10;
  const burst = options.burst ?? 100;
  const clock = options.clock ?? systemClock;
  if (!(qps > 0)) throw new InvalidOptionError(`qps must be > 0, got ${qps}`);
  if (!Number.isInteger(burst) || burst < 1) {
    throw new InvalidOptionError(`burst must be an integer ≥ 1, got ${burst}`);
  }
  let tokens = burst;
  let last: number | undefined;
  return {
    when() {
      if (qps === Infinity) return 0;
      const now = clock.now();
      if (last !== undefined && now > last) tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
      if (last === undefined || now > last) last = now;
      // A reservation is taken even when it has to wait, so later callers queue up behind it.
      tokens -= 1;
      return tokens >= 0 ? 0 : (-tokens * 1000) / qps;
    },
    forget() {},
    numRequeues: () => 0,
  };
}

/** Combines limiters: waits the longest of their delays and reports the largest requeue count. */
export function maxOfRateLimiter<T>(...limiters: RateLimiter<T>[]): RateLimiter<T> {
  return {
    when(item) {
      let longest = 0;
      // Every limiter must record the attempt, so none is short-circuited.
      for (const limiter of limiters) longest = Math.max(longest, limiter.when(item));
      return longest;
    },
    forget(item) {
      for (const limiter of limiters) limiter.forget(item);
    },
    numRequeues(item) {
      let most = 0;
      for (const limiter of limiters) most = Math.max(most, limiter.numRequeues(item));
      return most;
    },
  };
}

/** Options of {@link defaultControllerRateLimiter}. */
export interface DefaultControllerRateLimiterOptions {
  /** Time source of the bucket; `systemClock` by default. */
  clock?: Clock;
}

/**
 * client-go's `DefaultControllerRateLimiter`: the larger of per-item exponential backoff
 * (5 ms doubling up to 1000 s) and an overall bucket of 10 qps with a burst of 100.
 */
export function defaultControllerRateLimiter<T>(
  options: DefaultControllerRateLimiterOptions = {},
): RateLimiter<T> {
  return maxOfRateLimiter<T>(
    exponentialFailureRateLimiter({ baseMs: 5, maxMs: 1_000_000 }),
    bucketRateLimiter({ qps: 10, burst: 100, clock: options.clock ?? systemClock }),
  );
}

function requireNonNegative(name: string, value: number): void {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new InvalidOptionError(`${name} must be a finite number ≥ 0, got ${value}`);
  }
}
