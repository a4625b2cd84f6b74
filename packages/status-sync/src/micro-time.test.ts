import { describe, expect, it } from 'vitest';
import { formatMicroTime } from './index.js';

describe('formatMicroTime', () => {
  it('writes six fractional digits', () => {
    expect(formatMicroTime(new Date('2024-05-06T07:08:09.123Z'))).toBe('2024-05-06T07:08:09.123000Z');
  });

  it('keeps whole seconds at six zero digits', () => {
    expect(formatMicroTime(new Date('2024-05-06T07:08:09Z'))).toBe('2024-05-06T07:08:09.000000Z');
  });
});
