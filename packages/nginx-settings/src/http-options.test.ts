import { describe, expect, it } from 'vitest';
import { HTTP_WHOLE_NUMBER_RANGES, isInRange } from './index.js';

describe('isInRange', () => {
  it('accepts whole numbers from the minimum to the maximum, both included', () => {
    const range = HTTP_WHOLE_NUMBER_RANGES.serverNamesHashBucketSize;
    expect([31, 32, 65_536, 65_537].map((value) => isInRange(value, range))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });

  it('refuses fractions, NaN, infinities and numbers written as text', () => {
    const range = HTTP_WHOLE_NUMBER_RANGES.brotliLevel;
    expect(
      [4.5, Number.NaN, Number.POSITIVE_INFINITY, '4', undefined].map((value) => isInRange(value, range)),
    ).toEqual([false, false, false, false, false]);
  });
});

describe('HTTP_WHOLE_NUMBER_RANGES', () => {
  it('bounds every whole number with a minimum no greater than its maximum', () => {
    for (const [name, { min, max }] of Object.entries(HTTP_WHOLE_NUMBER_RANGES)) {
      expect(Number.isSafeInteger(min) && Number.isSafeInteger(max) && min <= max, name).toBe(true);
    }
  });
});
