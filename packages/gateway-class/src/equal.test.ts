import { describe, expect, it } from 'vitest';
import { isJsonEqual } from './equal.js';

describe('isJsonEqual', () => {
  it('ignores key order and undefined-valued keys but not array order', () => {
    expect(isJsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(isJsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(isJsonEqual([1, 2], [2, 1])).toBe(false);
  });

  it('tells apart values of different shape or content', () => {
    expect(isJsonEqual({ a: 1 }, { a: '1' })).toBe(false);
    expect(isJsonEqual([], {})).toBe(false);
    expect(isJsonEqual(null, {})).toBe(false);
    expect(isJsonEqual({ a: [1] }, { a: [1, 2] })).toBe(false);
  });
});
