import { describe, expect, it } from 'vitest';
import { checkRegex, parseDuration, parseLiteralPath } from './grammar.js';

describe('parseDuration', () => {
  it('reads GEP-2257 durations into milliseconds', () => {
    expect(parseDuration('10s')).toBe(10_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1m500ms')).toBe(60_500);
    expect(parseDuration('0s')).toBe(0);
  });

  it('refuses what is not a duration', () => {
    for (const value of ['10', '1.5s', '1d', '-1s', ' 1s', '1s1s1s1s1s', 10])
      expect(parseDuration(value)).toBeUndefined();
  });
});

describe('parseLiteralPath', () => {
  it('accepts absolute paths and decodes percent-escapes', () => {
    expect(parseLiteralPath('/a/b')).toEqual({ ok: true, path: '/a/b' });
    expect(parseLiteralPath('/a%20b')).toEqual({ ok: true, path: '/a b' });
  });

  it.each([
    'a/b',
    '/a//b',
    '/a/./b',
    '/a/../b',
    '/a%2Fb',
    '/a#b',
    '/a/.',
    '/a/..',
    '/a b',
    '/%0a',
    '/%zz',
    '',
  ])('refuses %j', (value) => {
    expect(parseLiteralPath(value).ok).toBe(false);
  });
});

describe('checkRegex', () => {
  it('accepts the subset PCRE and JavaScript agree on', () => {
    for (const value of ['/v[0-9]+', '^/api/(v1|v2)/.*$', '\\d{3}', '(?:a|b)+'])
      expect(checkRegex(value)).toBeUndefined();
  });

  it('refuses look-arounds, back-references, named groups, control characters and broken patterns', () => {
    for (const value of ['(?=a)', '(?<name>a)', '(a)\\1', 'a\nb', '([a-z]', '\\k<x>', '']) {
      expect(checkRegex(value)).toBeDefined();
    }
  });
});
