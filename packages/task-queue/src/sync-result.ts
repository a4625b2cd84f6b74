/**
 * What a sync asks of its queue when it returns, on controller-runtime's `Result` model: done, or
 * run again, after the rate limiter's backoff or after a delay of the sync's choosing. A thrown
 * error (or a rejection) still means "run again after the backoff", as it does there.
 */
import { InvalidSyncResultError } from './errors.js';

/**
 * The answer of a sync function. `done`: the key is synced (its backoff starts over). `retry`: run
 * it again after the rate limiter's delay, which grows with every retry in a row (controller-runtime's
 * `Requeue`). `retryAfter`: run it again after `delayMs` (finite, ≥ 0), and start the backoff over
 * (controller-runtime's `RequeueAfter`). Returning nothing is `done`.
 */
export type SyncResult =
  | { readonly kind: 'done' }
  | { readonly kind: 'retry' }
  | { readonly kind: 'retryAfter'; readonly delayMs: number };

/**
 * The result a sync function returned, checked: nothing is `done`; anything that is no
 * {@link SyncResult} (an unknown kind, a negative or infinite delay) is an
 * InvalidSyncResultError, which the queue treats as a thrown error.
 */
export function checkSyncResult(result: unknown): SyncResult | InvalidSyncResultError {
  if (result === undefined) return { kind: 'done' };
  const kind =
    typeof result === 'object' && result !== null ? (result as { kind?: unknown }).kind : undefined;
  if (kind === 'done' || kind === 'retry') return result as SyncResult;
  if (kind === 'retryAfter') {
    const { delayMs } = result as { delayMs?: unknown };
    if (typeof delayMs === 'number' && Number.isFinite(delayMs) && delayMs >= 0) return result as SyncResult;
    return new InvalidSyncResultError(
      `a sync asked to run again after ${String(delayMs)} ms; delayMs must be a finite number ≥ 0`,
    );
  }
  return new InvalidSyncResultError(
    `a sync returned ${describe(result)}; it must return nothing or a SyncResult (done, retry, retryAfter)`,
  );
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
