import { describe, expect, it } from 'vitest';
import { checkPortableRegex } from './regex.js';

describe('checkPortableRegex', () => {
  it.each([
    '/api/v[0-9]+',
    '^/(?:a|b)/.*$',
    '/a\\.b',
    '/\\d{2,3}',
    '/[-a]',
    '/[a-]',
    '/[\\d-]',
    '/[\\]a]',
    '/[^/]+',
    '/[\\.-z]',
    '/x{0,65535}',
    '/a{2,}',
    '/]}',
    '/[(?]',
  ])('accepts %s', (value) => {
    expect(checkPortableRegex(value)).toBeUndefined();
  });

  it.each([
    ['/(a)\\1', 'may only escape one of . - / d D w W s S ( ) [ ] { } * + ? | ^ $'],
    ['/a\\', 'may only escape one of . - / d D w W s S ( ) [ ] { } * + ? | ^ $'],
    ['/(?=x)', 'may not use "(?" groups other than "(?:"'],
    ['/(?<name>x)', 'may not use "(?" groups other than "(?:"'],
    ['/(?i)x', 'may not use "(?" groups other than "(?:"'],
    ['/[a', 'is not a valid regular expression'],
    // Found by the validation fuzz: JavaScript and nginx's PCRE read these differently.
    [
      '/[]a]',
      'may not start a character class with "]" ("[]" and "[^]" differ between engines; escape it as "\\]")',
    ],
    [
      '/[^]',
      'may not start a character class with "]" ("[]" and "[^]" differ between engines; escape it as "\\]")',
    ],
    [
      '/[[:alpha:]]',
      'may not hold an unescaped "[" in a character class (POSIX classes like [:alpha:] differ between engines)',
    ],
    [
      '/[a[]',
      'may not hold an unescaped "[" in a character class (POSIX classes like [:alpha:] differ between engines)',
    ],
    [
      '/[\\d-z]',
      'may only form a range in a character class between two single characters (not \\d, \\w, \\s or another range)',
    ],
    [
      '/[a-\\w]',
      'may only form a range in a character class between two single characters (not \\d, \\w, \\s or another range)',
    ],
    [
      '/[a-c-e]',
      'may only form a range in a character class between two single characters (not \\d, \\w, \\s or another range)',
    ],
    ['/a{70000}', 'may not repeat more than 65535 times in {n,m}'],
    ['/a{1,65536}', 'may not repeat more than 65535 times in {n,m}'],
    ['/a{,2}', 'may only use "{" to open a quantifier {n}, {n,} or {n,m} (escape a literal one as "\\{")'],
    ['/{', 'may only use "{" to open a quantifier {n}, {n,} or {n,m} (escape a literal one as "\\{")'],
  ])('refuses %s: %s', (value, reason) => {
    expect(checkPortableRegex(value)).toBe(reason);
  });

  it('takes extra escapes when a caller allows them', () => {
    expect(checkPortableRegex('/a\\\\b')).toBeDefined();
    expect(checkPortableRegex('/a\\\\b', '\\')).toBeUndefined();
  });
});
