/**
 * client-go's work queue, the base the other queues build on: each item queued once, and again only
 * after it is done.
 */
import { Queue } from 'mnemonist';

/** What `get` resolves to: the next item, or `shutdown: true` once the queue is shut down and empty. */
export type GetResult<T> = { shutdown: false; item: T } | { shutdown: true; item?: undefined };

/** Options of {@link WorkQueue.get}. */
export interface GetOptions {
  /** Stops waiting: the pending `get` rejects with the signal's reason and takes no item. */
  signal?: AbortSignal;
}

interface Waiter<T> {
  resolve(result: GetResult<T>): void;
  detach(): void;
}

const shutDownResult: GetResult<never> = Object.freeze({ shutdown: true });

/**
 * client-go's work queue: FIFO, an item waiting in the queue is stored once, an item added again
 * while it is being processed is queued again after `done`, and shutting down releases every waiter.
 * Items are compared like `Set` members (SameValueZero), so use strings or other stable values.
 */
export class WorkQueue<T> {
  readonly #queue = new Queue<T>();
  // Items that need processing: queued, or added again while processing.
  readonly #dirty = new Set<T>();
  // Items handed out by `get` and not yet `done`.
  readonly #processing = new Set<T>();
  // A Set keeps the order of waiters and lets an aborted one leave from the middle.
  readonly #waiters = new Set<Waiter<T>>();
  #drainWaiters: (() => void)[] = [];
  #isShuttingDown = false;

  /** Marks `item` as needing processing; ignored while it is already queued or after shutdown. */
  add(item: T): void {
    if (this.#isShuttingDown || this.#dirty.has(item)) return;
    this.#dirty.add(item);
    // `done` queues it again; queueing it now would let two workers process the same item.
    if (this.#processing.has(item)) return;
    this.#push(item);
  }

  /**
   * Resolves with the next item, which the caller owns until it calls `done(item)`. While queued
   * items remain it keeps handing them out even after shutdown, then resolves `{ shutdown: true }`.
   */
  get(options: GetOptions = {}): Promise<GetResult<T>> {
    if (this.#queue.size > 0) return Promise.resolve(this.#take(this.#queue.dequeue() as T));
    if (this.#isShuttingDown) return Promise.resolve(shutDownResult);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters.delete(waiter);
        reject(abortReason(signal!));
      };
      const waiter: Waiter<T> = {
        resolve,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Ends processing of `item`; if it was added meanwhile it is queued again. */
  done(item: T): void {
    if (!this.#processing.delete(item)) return;
    if (this.#dirty.has(item)) {
      this.#push(item);
    } else if (this.#processing.size === 0) {
      this.#releaseDrainWaiters();
    }
  }

  /** How many items are queued and not handed out (items being processed are not counted). */
  len(): number {
    return this.#queue.size;
  }

  /** How many items `get` handed out that are not `done` yet. */
  numProcessing(): number {
    return this.#processing.size;
  }

  /** True once `shutDown` or `shutDownWithDrain` was called. */
  isShuttingDown(): boolean {
    return this.#isShuttingDown;
  }

  /**
   * Stops accepting items and resolves every pending `get` with `{ shutdown: true }`; never rejects.
   * Also releases a pending `shutDownWithDrain`.
   */
  shutDown(): void {
    this.#isShuttingDown = true;
    this.#releaseWaiters();
    this.#releaseDrainWaiters();
  }

  /** Like `shutDown`, then resolves once every item handed out by `get` is `done`. */
  shutDownWithDrain(): Promise<void> {
    this.#isShuttingDown = true;
    this.#releaseWaiters();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  #push(item: T): void {
    // Waiters exist only while the queue is empty, so handing over directly keeps FIFO order.
    const waiter = firstOf(this.#waiters);
    if (waiter === undefined) {
      this.#queue.enqueue(item);
      return;
    }
    this.#waiters.delete(waiter);
    waiter.detach();
    waiter.resolve(this.#take(item));
  }

  #take(item: T): GetResult<T> {
    this.#dirty.delete(item);
    this.#processing.add(item);
    return { shutdown: false, item };
  }

  #releaseWaiters(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const waiter of waiters) {
      waiter.detach();
      waiter.resolve(shutDownResult);
    }
  }

  #releaseDrainWaiters(): void {
    const drainWaiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const resolve of drainWaiters) resolve();
  }
}

function firstOf<T>(set: Set<T>): T | undefined {
  for (const value of set) return value;
  return undefined;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException(String(reason), 'AbortError');
}
