/** The one retry backoff of the project: exponential delays with an optional jitter, as plain data. */

/** Retry delays: `initialMs` doubling with every attempt up to `maxMs`, each stretched by up to `jitter` (0–1). */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** How much longer a delay may randomly be, as a fraction of it; 0 (none) when unset. */
  readonly jitter?: number;
}

/**
 * The delay before retry number `attempt` (1 = the first retry): `initialMs * 2^(attempt-1)`,
 * capped at `maxMs`, then stretched by `jitter * random()` and capped again. `random` returns a
 * value in [0, 1); it is not called when the policy has no jitter.
 */
export function computeBackoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  // 2 ** exponent overflows to Infinity after ~1024 attempts; the cap still applies.
  const exponential = policy.initialMs * 2 ** Math.max(0, attempt - 1);
  const capped = exponential > policy.maxMs ? policy.maxMs : exponential;
  const jitter = policy.jitter ?? 0;
  if (jitter === 0) return capped;
  // Jitter spreads the retries of many clients that failed together (an API server restart).
  return Math.round(Math.min(policy.maxMs, capped * (1 + jitter * random())));
}
