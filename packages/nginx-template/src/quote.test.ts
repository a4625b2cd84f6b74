import { describe, expect, it } from 'vitest';
import { quoteNginxLiteral, quoteNginxString } from './index.js';

describe('quoteNginxString', () => {
  it('wraps plain values in double quotes', () => {
    expect(quoteNginxString('example.com')).toBe('"example.com"');
  });

  it('escapes quotes and backslashes so the token cannot end early', () => {
    expect(quoteNginxString('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  it('keeps characters nginx reads literally inside quotes', () => {
    expect(quoteNginxString('a;b{c}#d e')).toBe('"a;b{c}#d e"');
  });

  it.each(['a\nb', 'a\u0000b', '$host', 'x\r', 'a\tb', '\u007f'])('refuses %j', (value) => {
    expect(quoteNginxString(value)).toBeUndefined();
  });
});

describe('quoteNginxLiteral', () => {
  it('keeps $ for directives that do not expand variables', () => {
    expect(quoteNginxLiteral('$prefix/lua/?.lua;;')).toBe('"$prefix/lua/?.lua;;"');
  });

  it('doubles backslashes, which nginx turns back into one', () => {
    expect(quoteNginxLiteral('^/a\\.b$')).toBe('"^/a\\\\.b$"');
  });

  it.each(['a\nb', 'a\u0000'])('refuses %j', (value) => {
    expect(quoteNginxLiteral(value)).toBeUndefined();
  });
});
