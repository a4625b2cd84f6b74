/** A StoreClock for unit tests: time moves only when a test calls `advance`. */
import type { StoreClock } from '../src/clock.js';

/** Fires due timers in `advance(ms)`; `pending()` lists the delays still waiting. */
export class FakeClock implements StoreClock {
  time = 0;
  timers: { at: number; callback: () => void; cancelled: boolean }[] = [];

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, ms: number): () => void {
    const timer = { at: this.time + ms, callback, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Delays of the timers still pending. */
  pending(): number[] {
    return this.timers.filter((timer) => !timer.cancelled).map((timer) => timer.at - this.time);
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((timer) => !timer.cancelled && timer.at <= this.time);
    this.timers = this.timers.filter((timer) => !due.includes(timer));
    for (const timer of due) timer.callback();
  }
}
