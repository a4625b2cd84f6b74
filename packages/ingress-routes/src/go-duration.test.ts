import { describe, expect, it } from 'vitest';
import { parseGoDuration } from './go-duration.js';

describe('parseGoDuration', () => {
  it.each([
    ['1m', 60],
    ['10s', 10],
    ['1h30m', 5400],
    ['1.5m', 90],
    ['500ms', 0.5],
    ['0', 0],
    ['2h0m3s', 7203],
    ['1.5\u00b5s', 1.5e-6],
    ['.5s', 0.5],
  ])('reads %s as Go does: %d s', (value, seconds) => {
    expect(parseGoDuration(value)).toBeCloseTo(seconds, 9);
  });

  it.each(['', '1', '1d', 'm', '-1m', '1 m', '1m ', '1M', '1.m2'])('refuses %j', (value) => {
    expect(parseGoDuration(value)).toBeUndefined();
  });
});
