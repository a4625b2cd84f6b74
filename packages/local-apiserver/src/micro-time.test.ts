import { describe, expect, it } from 'vitest';
import { findMicroTimeDecodeError, isMicroTime } from './micro-time.js';

describe('isMicroTime', () => {
  it.each([
    ['2024-01-01T00:00:00.123456Z', true],
    ['2024-01-01T00:00:00.123456+02:00', true],
    ['2024-01-01T00:00:00.123Z', false],
    ['2024-01-01T00:00:00Z', false],
    ['2024-01-01T00:00:00.1234567Z', false],
    ['2024-13-01T00:00:00.123456Z', false],
    ['yesterday', false],
  ])('%j → %s', (value, expected) => {
    expect(isMicroTime(value)).toBe(expected);
  });
});

describe('findMicroTimeDecodeError', () => {
  const paths = ['eventTime', 'series.lastObservedTime'];

  it('returns undefined when every MicroTime decodes or is absent or null', () => {
    expect(findMicroTimeDecodeError({}, paths)).toBeUndefined();
    expect(
      findMicroTimeDecodeError(
        { eventTime: null, series: { lastObservedTime: '2024-01-01T00:00:00.000000Z' } },
        paths,
      ),
    ).toBeUndefined();
  });

  it.each([
    ['2024-01-01T00:00:00.123Z', 'cannot parse ".123Z" as ".000000"'],
    ['2024-01-01T00:00:00Z', 'cannot parse "Z" as ".000000"'],
    ['2024-01-01T00:00:00.1234567Z', 'cannot parse "7Z" as "Z07:00"'],
    ['2024-13-01T00:00:00.000000Z', 'date or time out of range'],
    ['yesterday', 'not an RFC 3339 date and time'],
  ])('names the value, the layout and the mismatch when the time is %j', (value, mismatch) => {
    expect(findMicroTimeDecodeError({ series: { lastObservedTime: value } }, paths)).toBe(
      `parsing time "${value}" as "2006-01-02T15:04:05.000000Z07:00": ${mismatch}`,
    );
  });

  it('reports the JSON type like Go when the value is not a string', () => {
    expect(findMicroTimeDecodeError({ eventTime: 1 }, paths)).toBe(
      'json: cannot unmarshal number into Go value of type string',
    );
    expect(findMicroTimeDecodeError({ eventTime: {} }, paths)).toBe(
      'json: cannot unmarshal object into Go value of type string',
    );
  });
});
