import { describe, expect, it } from 'vitest';
import { quoteNginxString } from './index.js';

describe('quoteNginxString', () => {
  it('wraps plain values in double quotes', () => {
    expect(quoteNginxString('example.com')).toBe('"example.com"');
  });

  it('escapes quotes and backslashes so the token cannot end early', () => {
    expect(quoteNginxString('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  it.each(['a\nb', 'a\u0000b', '$host', 'x\r'])('refuses %j', (value) => {
    expect(quoteNginxString(value)).toBeUndefined();
  });
});
