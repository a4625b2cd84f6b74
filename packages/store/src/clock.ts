/** Time as the store sees it; tests inject a fake one. */
export interface StoreClock {
  /** Milliseconds since an arbitrary origin; only differences are used. */
  now(): number;
  /** Calls `callback` after `ms`; returns a function that cancels it. */
  setTimer(callback: () => void, ms: number): () => void;
}

/** The real clock: `Date.now()` and `setTimeout`. */
export const systemClock: StoreClock = {
  now: () => Date.now(),
  setTimer(callback, ms) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/** Retry delays: exponential from `initialMs` to `maxMs`, each stretched by up to `jitter` (0–1). */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly jitter: number;
}

/** The store's default retry delays: 500 ms doubling up to 30 s, plus up to 20 % jitter. */
export const defaultBackoff: BackoffPolicy = { initialMs: 500, maxMs: 30_000, jitter: 0.2 };

/** The delay before retry number `attempt` (1 = first retry); `random` returns a value in [0, 1). */
export function computeBackoffDelay(policy: BackoffPolicy, attempt: number, random: () => number): number {
  const exponential = policy.initialMs * 2 ** Math.max(0, attempt - 1);
  const capped = Math.min(policy.maxMs, exponential);
  return Math.round(Math.min(policy.maxMs, capped * (1 + policy.jitter * random())));
}
