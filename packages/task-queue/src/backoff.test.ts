import { describe, expect, it } from 'vitest';
import { computeBackoffDelay } from './index.js';

describe('computeBackoffDelay', () => {
  it('doubles the delay with every attempt when the policy has no jitter', () => {
    const policy = { initialMs: 500, maxMs: 30_000 };
    expect([1, 2, 3, 4].map((attempt) => computeBackoffDelay(policy, attempt))).toEqual([
      500, 1_000, 2_000, 4_000,
    ]);
  });

  it('caps the delay at maxMs when the attempts grow past it, even when the exponent overflows', () => {
    const policy = { initialMs: 500, maxMs: 30_000 };
    expect(computeBackoffDelay(policy, 7)).toBe(30_000);
    expect(computeBackoffDelay(policy, 5_000)).toBe(30_000);
  });

  it('stretches the delay by up to the jitter fraction when random() is high', () => {
    const policy = { initialMs: 1_000, maxMs: 30_000, jitter: 0.2 };
    expect(computeBackoffDelay(policy, 1, () => 0)).toBe(1_000);
    expect(computeBackoffDelay(policy, 1, () => 0.5)).toBe(1_100);
    expect(computeBackoffDelay(policy, 2, () => 0.99)).toBe(2_396);
  });

  it('keeps a jittered delay within maxMs when the cap is reached', () => {
    expect(computeBackoffDelay({ initialMs: 1_000, maxMs: 1_500, jitter: 0.5 }, 2, () => 0.9)).toBe(1_500);
  });

  it('treats attempt 0 like the first retry when a caller counts from zero', () => {
    expect(computeBackoffDelay({ initialMs: 250, maxMs: 1_000 }, 0)).toBe(250);
  });
});
