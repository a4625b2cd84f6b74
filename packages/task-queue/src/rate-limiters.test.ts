import { describe, expect, it } from 'vitest';
import {
  bucketRateLimiter,
  createFakeClock,
  defaultControllerRateLimiter,
  exponentialFailureRateLimiter,
  InvalidOptionError,
  maxOfRateLimiter,
  type RateLimiter,
} from './index.js';

function delays<T>(limiter: RateLimiter<T>, item: T, count: number): number[] {
  return Array.from({ length: count }, () => limiter.when(item));
}

describe('exponentialFailureRateLimiter', () => {
  it('doubles the delay of an item with every failure when it keeps failing', () => {
    const limiter = exponentialFailureRateLimiter<string>({ baseMs: 5, maxMs: 1_000_000 });
    expect(delays(limiter, 'a', 6)).toEqual([5, 10, 20, 40, 80, 160]);
    expect(limiter.numRequeues('a')).toBe(6);
  });

  it('caps the delay at maxMs when the backoff grows past it', () => {
    const limiter = exponentialFailureRateLimiter<string>({ baseMs: 5, maxMs: 1_000 });
    expect(delays(limiter, 'a', 10).slice(6)).toEqual([320, 640, 1_000, 1_000]);
  });

  it('stays at the cap when failures overflow the exponent', () => {
    const limiter = exponentialFailureRateLimiter<string>();
    const all = delays(limiter, 'a', 1_100);
    expect(all.at(-1)).toBe(1_000_000);
    expect(all.every((delay) => Number.isFinite(delay))).toBe(true);
  });

  it('uses client-go defaults (5 ms to 1000 s) when given no options', () => {
    const limiter = exponentialFailureRateLimiter<string>();
    expect(delays(limiter, 'a', 2)).toEqual([5, 10]);
    expect(delays(limiter, 'a', 30).at(-1)).toBe(1_000_000);
  });

  it('tracks items separately and starts over when an item is forgotten', () => {
    const limiter = exponentialFailureRateLimiter<string>({ baseMs: 1 });
    delays(limiter, 'a', 3);
    expect(limiter.when('b')).toBe(1);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(1);
    expect(limiter.numRequeues('b')).toBe(1);
  });

  it('rejects a negative base delay', () => {
    expect(() => exponentialFailureRateLimiter({ baseMs: -1 })).toThrow(InvalidOptionError);
  });
});

describe('bucketRateLimiter', () => {
  it('lets a burst through at once, then spaces attempts by 1/qps when the bucket is empty', () => {
    const clock = createFakeClock();
    const limiter = bucketRateLimiter({ qps: 10, burst: 3, clock });
    expect(delays(limiter, 'x', 6)).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('refills tokens as time passes, up to the burst size', () => {
    const clock = createFakeClock();
    const limiter = bucketRateLimiter({ qps: 10, burst: 2, clock });
    delays(limiter, 'x', 2);
    clock.advance(100);
    expect(delays(limiter, 'x', 2)).toEqual([0, 100]);
    clock.advance(10_000);
    expect(delays(limiter, 'x', 3)).toEqual([0, 0, 100]);
  });

  it('shares one bucket between all items and keeps no per-item count', () => {
    const clock = createFakeClock();
    const limiter = bucketRateLimiter<string>({ qps: 1, burst: 1, clock });
    expect(limiter.when('a')).toBe(0);
    expect(limiter.when('b')).toBe(1_000);
    limiter.forget('b');
    expect(limiter.numRequeues('b')).toBe(0);
    expect(limiter.when('c')).toBe(2_000);
  });

  it('never delays when qps is Infinity', () => {
    const limiter = bucketRateLimiter({ qps: Infinity, burst: 1, clock: createFakeClock() });
    expect(delays(limiter, 'x', 5)).toEqual([0, 0, 0, 0, 0]);
  });

  it('rejects qps ≤ 0 and a burst below 1', () => {
    expect(() => bucketRateLimiter({ qps: 0 })).toThrow(InvalidOptionError);
    expect(() => bucketRateLimiter({ burst: 0 })).toThrow(InvalidOptionError);
    expect(() => bucketRateLimiter({ burst: 1.5 })).toThrow(InvalidOptionError);
  });
});

describe('maxOfRateLimiter', () => {
  it('waits the longest delay and records the attempt in every limiter', () => {
    const fast = exponentialFailureRateLimiter<string>({ baseMs: 1 });
    const slow = exponentialFailureRateLimiter<string>({ baseMs: 100 });
    const limiter = maxOfRateLimiter(fast, slow);
    expect(delays(limiter, 'a', 3)).toEqual([100, 200, 400]);
    expect(fast.numRequeues('a')).toBe(3);
    expect(limiter.numRequeues('a')).toBe(3);
  });

  it('forgets the item in every limiter', () => {
    const first = exponentialFailureRateLimiter<string>();
    const second = exponentialFailureRateLimiter<string>();
    const limiter = maxOfRateLimiter(first, second);
    delays(limiter, 'a', 2);
    limiter.forget('a');
    expect([first.numRequeues('a'), second.numRequeues('a')]).toEqual([0, 0]);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('backs off one failing item exponentially from 5 ms', () => {
    const limiter = defaultControllerRateLimiter<string>({ clock: createFakeClock() });
    expect(delays(limiter, 'a', 4)).toEqual([5, 10, 20, 40]);
  });

  it('holds many distinct items to 10 per second once the burst of 100 is used', () => {
    const limiter = defaultControllerRateLimiter<string>({ clock: createFakeClock() });
    const all = Array.from({ length: 103 }, (_, i) => limiter.when(`item-${i}`));
    expect(all.slice(0, 100).every((delay) => delay === 5)).toBe(true);
    expect(all.slice(100)).toEqual([100, 200, 300]);
  });
});
