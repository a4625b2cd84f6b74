import { describe, expect, it } from 'vitest';
import { hasNewerConditions } from './conditions.js';
import type { Condition } from './types.js';

describe('hasNewerConditions', () => {
  it('reports a condition of the given types with a higher observedGeneration', () => {
    const conditions: Condition[] = [
      {
        type: 'Accepted',
        status: 'True',
        reason: 'Accepted',
        message: '',
        observedGeneration: 3,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ];
    expect(hasNewerConditions(conditions, ['Accepted'], 2)).toBe(true);
    expect(hasNewerConditions(conditions, ['Accepted'], 3)).toBe(false);
    expect(hasNewerConditions(conditions, ['SupportedVersion'], 1)).toBe(false);
    expect(hasNewerConditions(undefined, ['Accepted'], 1)).toBe(false);
  });
});
