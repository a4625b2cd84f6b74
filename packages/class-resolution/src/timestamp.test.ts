import { describe, expect, it } from 'vitest';
import { compareNewestFirst, parseTimestamp } from './timestamp.js';

describe('parseTimestamp', () => {
  it.each<[string, number, number]>([
    ['2024-12-04T03:35:34Z', Date.UTC(2024, 11, 4, 3, 35, 34), 0],
    ['2024-12-04T11:35:34+08:00', Date.UTC(2024, 11, 4, 3, 35, 34), 0],
    ['2024-12-03T22:35:34-05:00', Date.UTC(2024, 11, 4, 3, 35, 34), 0],
    ['2024-02-29T00:00:00.5Z', Date.UTC(2024, 1, 29, 0, 0, 0, 500), 0],
    ['2024-01-01T00:00:00.123456789Z', Date.UTC(2024, 0, 1, 0, 0, 0, 123), 456_789],
  ])('reads %s', (text, ms, nanos) => {
    expect(parseTimestamp(text)).toEqual({ ms, nanos });
  });

  it('reads a Date', () => {
    expect(parseTimestamp(new Date(Date.UTC(2024, 0, 1)))).toEqual({ ms: Date.UTC(2024, 0, 1), nanos: 0 });
  });

  it.each([
    '',
    'yesterday',
    '2024-12-04',
    '2024-12-04 03:35:34Z',
    '2024-12-04T03:35:34',
    '2024-12-04t03:35:34z',
    '2023-02-29T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:60Z',
    '2024-01-01T00:00:00+24:00',
    '2024-01-01T00:00:00.1234567890Z',
  ])('returns undefined for %j', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });

  it('returns undefined for an invalid Date, null and undefined', () => {
    expect(parseTimestamp(new Date('nope'))).toBeUndefined();
    expect(parseTimestamp(null)).toBeUndefined();
    expect(parseTimestamp(undefined)).toBeUndefined();
  });
});

describe('compareNewestFirst', () => {
  const older = { ms: 1, nanos: 0 };
  const newer = { ms: 1, nanos: 1 };

  it('orders newer before older, and missing last', () => {
    expect(compareNewestFirst(newer, older)).toBeLessThan(0);
    expect(compareNewestFirst(older, newer)).toBeGreaterThan(0);
    expect(compareNewestFirst(older, undefined)).toBeLessThan(0);
    expect(compareNewestFirst(undefined, older)).toBeGreaterThan(0);
  });

  it('reports ties as 0', () => {
    expect(compareNewestFirst(older, { ms: 1, nanos: 0 })).toBe(0);
    expect(compareNewestFirst(undefined, undefined)).toBe(0);
  });
});
