import { describe, expect, it } from 'vitest';
import { HistoryRing } from './history.js';

describe('HistoryRing', () => {
  it('returns events after a resourceVersion in order and compacts past evicted ones', () => {
    const ring = new HistoryRing<{ rv: number }>(3);
    for (const rv of [2, 4, 6, 8]) ring.push({ rv });
    expect(ring.compactedRv).toBe(2);
    expect(ring.after(4).map((event) => event.rv)).toEqual([6, 8]);
    expect(ring.after(0).map((event) => event.rv)).toEqual([4, 6, 8]);
    expect(ring.afterNewestFirst(4).map((event) => event.rv)).toEqual([8, 6]);
    expect(ring.covers(1)).toBe(false);
    expect(ring.covers(2)).toBe(true);
  });

  it('refuses every older resourceVersion after compact()', () => {
    const ring = new HistoryRing<{ rv: number }>(10);
    ring.push({ rv: 1 });
    ring.compact(5);
    expect(ring.after(0)).toEqual([]);
    expect(ring.covers(4)).toBe(false);
    expect(ring.covers(5)).toBe(true);
  });
});
