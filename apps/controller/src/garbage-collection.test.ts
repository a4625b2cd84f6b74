import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectPiledGarbage } from './garbage-collection.js';

const MiB = 2 ** 20;

describe('collectPiledGarbage', () => {
  afterEach(() => vi.useRealTimers());

  it('collects first to learn the live heap, then only when the used heap outgrows it by the slack', () => {
    vi.useFakeTimers();
    let used = 130 * MiB;
    const gc = vi.fn(() => (used = 70 * MiB));
    const stop = collectPiledGarbage({ gc, usedHeap: () => used, intervalMs: 1000, slackBytes: 48 * MiB });
    vi.advanceTimersByTime(1000);
    expect(gc).toHaveBeenCalledTimes(1);
    used = 110 * MiB;
    vi.advanceTimersByTime(1000);
    expect(gc).toHaveBeenCalledTimes(1);
    used = 120 * MiB;
    vi.advanceTimersByTime(1000);
    expect(gc).toHaveBeenCalledTimes(2);
    stop();
    used = 500 * MiB;
    vi.advanceTimersByTime(5000);
    expect(gc).toHaveBeenCalledTimes(2);
  });

  it('does nothing without a collector (no --expose-gc)', () => {
    vi.useFakeTimers();
    const usedHeap = vi.fn(() => 0);
    const stop = collectPiledGarbage({ usedHeap, intervalMs: 1000 });
    vi.advanceTimersByTime(5000);
    expect(usedHeap).not.toHaveBeenCalled();
    stop();
  });
});
