/**
 * Time for the whole project: the monotonic Clock behind every timer and duration, the WallClock
 * for timestamps, and a fake for tests.
 */
import { Heap } from 'mnemonist';
import { InvalidOptionError, TimerLoopError } from './errors.js';

/** A scheduled callback; `cancel` is idempotent and safe to call after it fired. */
export interface Timer {
  cancel(): void;
}

/** The only source of time in this package: a millisecond reading and one-shot cancellable timers. */
export interface Clock {
  /** Milliseconds on a clock that never runs backwards. */
  now(): number;
  /** Calls `callback` once after `delayMs` (negative or NaN counts as 0) unless cancelled first. */
  setTimer(delayMs: number, callback: () => void): Timer;
}

// setTimeout fires at once for delays above 2^31-1 ms, so longer timers are chained.
const maxTimeoutMs = 2_147_483_647;

/**
 * The real clock: monotonic milliseconds anchored at the Unix epoch when the process started, and
 * `setTimeout`. Monotonic time keeps a wall clock stepping back from stalling syncs (ingress-nginx #14374).
 */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(delayMs, callback) {
    let handle: ReturnType<typeof setTimeout> | undefined;
    const arm = (remainingMs: number): void => {
      handle =
        remainingMs > maxTimeoutMs
          ? setTimeout(() => arm(remainingMs - maxTimeoutMs), maxTimeoutMs)
          : setTimeout(callback, remainingMs);
    };
    arm(clampDelay(delayMs));
    return {
      cancel: () => {
        clearTimeout(handle);
        handle = undefined;
      },
    };
  },
};

/**
 * Epoch milliseconds for timestamps written to the API (a Lease's renewTime, a condition's
 * lastTransitionTime). Never used to measure a duration: that is {@link Clock}'s `now`, which a
 * wall clock stepping back or forward cannot disturb.
 */
export type WallClock = () => number;

/** The real wall clock: `Date.now`. */
export const systemWallClock: WallClock = () => Date.now();

/** A clock for tests: time stands still until `advance` moves it and fires the timers that fall due. */
export interface FakeClock extends Clock {
  /**
   * Moves time forward by `ms`, firing due timers in due order (creation order on ties) with `now()`
   * set to each timer's due time, including timers they schedule inside the window. Returns how many fired.
   */
  advance(ms: number): number;
  /** Like `advance`, but lets pending promise callbacks run before and after each timer fires. */
  advanceAsync(ms: number): Promise<number>;
  /** How many timers are scheduled and not yet fired or cancelled. */
  pendingTimers(): number;
  /** Milliseconds from now until each scheduled timer is due, soonest first (what a backoff waits). */
  pendingDelays(): number[];
}

/** Options of {@link createFakeClock}. */
export interface FakeClockOptions {
  /** The initial reading of `now()`; 0 by default. */
  now?: number;
  /** How many timers one `advance` may fire before it throws `TimerLoopError`; 100,000 by default. */
  maxTimersPerAdvance?: number;
}

interface FakeTimer {
  readonly dueAt: number;
  readonly order: number;
  readonly callback: () => void;
  isActive: boolean;
}

/** Creates a manual clock whose time only moves through `advance` / `advanceAsync`. */
export function createFakeClock(options: FakeClockOptions = {}): FakeClock {
  let now = options.now ?? 0;
  const maxTimers = options.maxTimersPerAdvance ?? 100_000;
  let created = 0;
  let active = 0;
  const timers = new Heap<FakeTimer>((a, b) => a.dueAt - b.dueAt || a.order - b.order);

  const takeDue = (until: number): FakeTimer | undefined => {
    for (let top = timers.peek(); top !== undefined; top = timers.peek()) {
      if (!top.isActive) {
        timers.pop();
        continue;
      }
      if (top.dueAt > until) return undefined;
      timers.pop();
      top.isActive = false;
      active -= 1;
      return top;
    }
    return undefined;
  };

  const checkStep = (ms: number): number => {
    if (!(ms >= 0) || !Number.isFinite(ms)) {
      throw new InvalidOptionError(`a fake clock advances by a finite ms ≥ 0, got ${ms}`);
    }
    return now + ms;
  };

  const checkLoop = (fired: number): void => {
    if (fired > maxTimers) {
      throw new TimerLoopError(
        `more than ${maxTimers} timers fell due in one advance; a timer keeps rescheduling itself`,
      );
    }
  };

  return {
    now: () => now,
    setTimer(delayMs, callback) {
      const timer: FakeTimer = {
        dueAt: now + clampDelay(delayMs),
        order: created++,
        callback,
        isActive: true,
      };
      timers.push(timer);
      active += 1;
      return {
        cancel: () => {
          if (!timer.isActive) return;
          timer.isActive = false;
          active -= 1;
        },
      };
    },
    advance(ms) {
      const target = checkStep(ms);
      let fired = 0;
      for (let timer = takeDue(target); timer !== undefined; timer = takeDue(target)) {
        checkLoop(++fired);
        // max: a callback that advances the clock itself must not make time run backwards.
        now = Math.max(now, timer.dueAt);
        timer.callback();
      }
      now = Math.max(now, target);
      return fired;
    },
    async advanceAsync(ms) {
      const target = checkStep(ms);
      let fired = 0;
      await settlePromises();
      for (let timer = takeDue(target); timer !== undefined; timer = takeDue(target)) {
        checkLoop(++fired);
        now = Math.max(now, timer.dueAt);
        timer.callback();
        await settlePromises();
      }
      now = Math.max(now, target);
      await settlePromises();
      return fired;
    },
    pendingTimers: () => active,
    pendingDelays: () =>
      timers
        .toArray()
        .filter((timer) => timer.isActive)
        .map((timer) => timer.dueAt - now)
        .sort((a, b) => a - b),
  };
}

function clampDelay(delayMs: number): number {
  return delayMs > 0 ? delayMs : 0;
}

// One macrotask turn: every promise reaction queued so far (and those they queue) runs before it.
function settlePromises(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
