import type { Clock } from './clock.js';

/** A clock for tests: time stands still until `advance` moves it and fires the timers that fall due. */
export interface ManualClock extends Clock {
  /**
   * Moves time forward by `ms`, firing due timers in due order (creation order on ties) with `now()`
   * at each timer's due time, and lets pending promise callbacks run before and after each timer.
   */
  advance(ms: number): Promise<void>;
  /** How many timers are scheduled and neither fired nor cancelled. */
  pendingTimers(): number;
}

interface ManualTimer {
  readonly dueAt: number;
  readonly order: number;
  readonly callback: () => void;
  isActive: boolean;
}

/** Creates a {@link ManualClock} starting at `startMs` (2024-01-01T00:00:00Z by default). */
export function createManualClock(startMs = Date.UTC(2024, 0, 1)): ManualClock {
  let now = startMs;
  let created = 0;
  let timers: ManualTimer[] = [];

  const takeDue = (until: number): ManualTimer | undefined => {
    timers = timers.filter((timer) => timer.isActive);
    let next: ManualTimer | undefined;
    for (const timer of timers) {
      if (timer.dueAt > until) continue;
      if (
        next === undefined ||
        timer.dueAt < next.dueAt ||
        (timer.dueAt === next.dueAt && timer.order < next.order)
      ) {
        next = timer;
      }
    }
    if (next !== undefined) next.isActive = false;
    return next;
  };

  return {
    now: () => now,
    setTimer(delayMs, callback) {
      const timer: ManualTimer = {
        dueAt: now + Math.max(0, delayMs),
        order: created++,
        callback,
        isActive: true,
      };
      timers.push(timer);
      return {
        cancel: () => {
          timer.isActive = false;
        },
      };
    },
    async advance(ms) {
      const target = now + Math.max(0, ms);
      await settlePromises();
      for (let timer = takeDue(target); timer !== undefined; timer = takeDue(target)) {
        now = timer.dueAt;
        timer.callback();
        await settlePromises();
      }
      now = target;
      await settlePromises();
    },
    pendingTimers: () => timers.filter((timer) => timer.isActive).length,
  };
}

// One macrotask turn: every promise reaction queued so far, and those they queue, runs before it.
function settlePromises(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
