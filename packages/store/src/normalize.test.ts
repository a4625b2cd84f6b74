import { describe, expect, it } from 'vitest';
import { normalizeObject } from './index.js';

describe('normalizeObject', () => {
  it('gives listed (Date) and watched (string) objects the same shape', () => {
    const listed = { metadata: { name: 'a', creationTimestamp: new Date('2024-01-01T00:00:00Z') } };
    const watched = { metadata: { name: 'a', creationTimestamp: '2024-01-01T00:00:00Z' } };
    expect(normalizeObject(listed)).toEqual(watched);
    expect(normalizeObject(watched)).toEqual(watched);
  });

  it('does not change its input', () => {
    const date = new Date('2024-01-01T00:00:00Z');
    const listed = { metadata: { creationTimestamp: date } };
    normalizeObject(listed);
    expect(listed.metadata.creationTimestamp).toBe(date);
  });
});
