/** A scheduled callback; `cancel` is idempotent and safe to call after it fired. */
export interface Timer {
  cancel(): void;
}

/**
 * The only source of time in this package: a millisecond reading and one-shot cancellable timers.
 * The shape matches `@ingresskit/task-queue`'s `Clock`, so one clock object can drive both.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch on a clock that never runs backwards. */
  now(): number;
  /** Calls `callback` once after `delayMs` (negative counts as 0) unless cancelled first. */
  setTimer(delayMs: number, callback: () => void): Timer;
}

/**
 * The real clock. Leader election measures durations with it, so it is monotonic (anchored at the
 * epoch when the process started): a wall clock stepping back must not stretch a leader's term.
 */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(delayMs, callback) {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};
