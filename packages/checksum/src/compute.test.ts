import { describe, expect, it } from 'vitest';
import { computeChecksum } from './index.js';

describe('computeChecksum', () => {
  it('matches the Tengine vector for two ids given in any order', () => {
    expect(computeChecksum(['27524-1', '123992-1'])).toBe('294560cb5ddc0f5b4ad1fde6916622c0');
  });

  it('hashes the empty string when there are no ids', () => {
    expect(computeChecksum([])).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });
});
