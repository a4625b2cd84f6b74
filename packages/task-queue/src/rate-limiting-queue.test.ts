import { describe, expect, it } from 'vitest';
import {
  createFakeClock,
  exponentialFailureRateLimiter,
  RateLimitingQueue,
  type FakeClock,
} from './index.js';

function createQueue(clock: FakeClock = createFakeClock()) {
  const queue = new RateLimitingQueue<string>({
    clock,
    rateLimiter: exponentialFailureRateLimiter({ baseMs: 5, maxMs: 40 }),
  });
  return { clock, queue };
}

async function drain(queue: RateLimitingQueue<string>): Promise<string[]> {
  const items: string[] = [];
  while (queue.len() > 0) {
    const next = await queue.get();
    if (next.shutdown) break;
    items.push(next.item);
    queue.done(next.item);
  }
  return items;
}

describe('RateLimitingQueue', () => {
  it('adds an item only once its delay has passed', () => {
    const { clock, queue } = createQueue();
    queue.addAfter('a', 100);
    expect(queue.len()).toBe(0);
    expect(queue.numWaiting()).toBe(1);
    clock.advance(99);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    expect(queue.numWaiting()).toBe(0);
  });

  it('adds at once when the delay is zero or negative', () => {
    const { queue } = createQueue();
    queue.addAfter('a', 0);
    queue.addAfter('b', -10);
    expect(queue.len()).toBe(2);
  });

  it('releases delayed items in order of their ready time', async () => {
    const { clock, queue } = createQueue();
    queue.addAfter('late', 30);
    queue.addAfter('early', 10);
    queue.addAfter('middle', 20);
    clock.advance(30);
    expect(await drain(queue)).toEqual(['early', 'middle', 'late']);
  });

  it('keeps the earlier ready time when a waiting item is added after a delay again', () => {
    const { clock, queue } = createQueue();
    queue.addAfter('a', 50);
    queue.addAfter('a', 100);
    queue.addAfter('b', 100);
    queue.addAfter('b', 10);
    expect(queue.numWaiting()).toBe(2);
    clock.advance(10);
    expect(queue.len()).toBe(1);
    clock.advance(40);
    expect(queue.len()).toBe(2);
    clock.advance(100);
    // The superseded entries do not add anything twice.
    expect(queue.len()).toBe(2);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stores a delayed item once when it is already queued', () => {
    const { clock, queue } = createQueue();
    queue.add('a');
    queue.addAfter('a', 5);
    clock.advance(5);
    expect(queue.len()).toBe(1);
  });

  it('marks a delayed item dirty when it comes due while being processed', async () => {
    const { clock, queue } = createQueue();
    queue.add('a');
    const next = await queue.get();
    queue.addAfter('a', 5);
    clock.advance(5);
    expect(queue.len()).toBe(0);
    queue.done(next.item!);
    expect(queue.len()).toBe(1);
  });

  it('grows the delay of addRateLimited with every failure and caps it', () => {
    const { clock, queue } = createQueue();
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push(queue.addRateLimited('a') ?? -1);
    expect(seen).toEqual([5, 10, 20, 40, 40, 40]);
    expect(queue.numRequeues('a')).toBe(6);
    // One waiting entry, due at the earliest of those times.
    expect(queue.numWaiting()).toBe(1);
    clock.advance(5);
    expect(queue.len()).toBe(1);
  });

  it('starts backoff over when an item is forgotten', () => {
    const { queue } = createQueue();
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
    expect(queue.addRateLimited('a')).toBe(5);
  });

  it('cancels waiting items and leaves no timer behind when it shuts down', () => {
    const { clock, queue } = createQueue();
    queue.addAfter('a', 10);
    queue.addRateLimited('b');
    expect(clock.pendingTimers()).toBe(1);
    queue.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    expect(queue.numWaiting()).toBe(0);
    clock.advance(1_000);
    expect(queue.len()).toBe(0);
    expect(queue.addRateLimited('c')).toBeUndefined();
    queue.addAfter('d', 1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('cancels waiting items and waits for processing items when it shuts down with drain', async () => {
    const { clock, queue } = createQueue();
    queue.add('a');
    const next = await queue.get();
    queue.addAfter('b', 10);
    let isDrained = false;
    const drained = queue.shutDownWithDrain().then(() => {
      isDrained = true;
    });
    expect(clock.pendingTimers()).toBe(0);
    await clock.advanceAsync(10);
    expect(isDrained).toBe(false);
    queue.done(next.item!);
    await drained;
    expect(queue.len()).toBe(0);
  });

  it('re-arms its timer when an earlier item arrives', () => {
    const { clock, queue } = createQueue();
    queue.addAfter('late', 1_000);
    queue.addAfter('soon', 10);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(10);
    expect(queue.len()).toBe(1);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(990);
    expect(queue.len()).toBe(2);
    expect(clock.pendingTimers()).toBe(0);
  });
});
