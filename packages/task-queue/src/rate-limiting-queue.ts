/**
 * The work queue with delays, as client-go's: items come back after a set time or after a rate
 * limiter's delay.
 */
import { Heap } from 'mnemonist';
import { type Clock, type Timer, systemClock } from './clock.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';
import { WorkQueue } from './work-queue.js';

/** Options of {@link RateLimitingQueue}. */
export interface RateLimitingQueueOptions<T> {
  /** Decides the delay of `addRateLimited`; `defaultControllerRateLimiter` by default. */
  rateLimiter?: RateLimiter<T>;
  /** Time source of delays (and of the default limiter); `systemClock` by default. */
  clock?: Clock;
}

interface WaitingEntry<T> {
  readonly item: T;
  readonly readyAt: number;
  readonly order: number;
}

/**
 * client-go's rate-limiting (and delaying) queue: a {@link WorkQueue} whose items can also be added
 * after a delay or after a rate limiter's delay. An item already waiting keeps the earlier of its two
 * ready times. Shutting down cancels every waiting item and the timer.
 */
export class RateLimitingQueue<T> extends WorkQueue<T> {
  readonly #clock: Clock;
  readonly #limiter: RateLimiter<T>;
  // The current waiting entry per item; heap entries that are not current are stale and skipped.
  readonly #waiting = new Map<T, WaitingEntry<T>>();
  readonly #heap = new Heap<WaitingEntry<T>>((a, b) => a.readyAt - b.readyAt || a.order - b.order);
  #order = 0;
  #timer: Timer | undefined;
  #timerAt = Infinity;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super();
    this.#clock = options.clock ?? systemClock;
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter<T>({ clock: this.#clock });
  }

  /** Adds `item` once `delayMs` has passed (at once when ≤ 0); ignored after shutdown. */
  addAfter(item: T, delayMs: number): void {
    if (this.isShuttingDown()) return;
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const current = this.#waiting.get(item);
    if (current !== undefined && current.readyAt <= readyAt) return;
    const entry: WaitingEntry<T> = { item, readyAt, order: this.#order++ };
    this.#waiting.set(item, entry);
    this.#heap.push(entry);
    this.#arm();
  }

  /** Adds `item` after the rate limiter's delay and returns that delay; `undefined` after shutdown. */
  addRateLimited(item: T): number | undefined {
    if (this.isShuttingDown()) return undefined;
    const delayMs = this.#limiter.when(item);
    this.addAfter(item, delayMs);
    return delayMs;
  }

  /** Tells the rate limiter `item` is finished with (succeeded or given up); resets its backoff. */
  forget(item: T): void {
    this.#limiter.forget(item);
  }

  /** How many times `item` was rate limited since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }

  /** How many items wait for their delay to pass (they are not in `len()` yet). */
  numWaiting(): number {
    return this.#waiting.size;
  }

  /** Cancels waiting items and the timer, then shuts the queue down like {@link WorkQueue.shutDown}. */
  override shutDown(): void {
    this.#stopWaiting();
    super.shutDown();
  }

  /** Cancels waiting items and the timer, then drains like {@link WorkQueue.shutDownWithDrain}. */
  override shutDownWithDrain(): Promise<void> {
    this.#stopWaiting();
    return super.shutDownWithDrain();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#clock.now();
    for (
      let next = this.#peekCurrent();
      next !== undefined && next.readyAt <= now;
      next = this.#peekCurrent()
    ) {
      this.#heap.pop();
      this.#waiting.delete(next.item);
      this.add(next.item);
    }
    this.#arm();
  }

  // One timer, always set for the earliest waiting entry.
  #arm(): void {
    const next = this.#peekCurrent();
    if (next === undefined) {
      this.#cancelTimer();
      return;
    }
    if (this.#timer !== undefined && this.#timerAt <= next.readyAt) return;
    this.#cancelTimer();
    this.#timerAt = next.readyAt;
    this.#timer = this.#clock.setTimer(next.readyAt - this.#clock.now(), () => this.#fire());
  }

  #peekCurrent(): WaitingEntry<T> | undefined {
    for (let top = this.#heap.peek(); top !== undefined; top = this.#heap.peek()) {
      if (this.#waiting.get(top.item) === top) return top;
      this.#heap.pop();
    }
    return undefined;
  }

  #cancelTimer(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  #stopWaiting(): void {
    this.#cancelTimer();
    this.#waiting.clear();
    this.#heap.clear();
  }
}
