import { describe, expect, it } from 'vitest';
import { checkPortableRegex } from './regex.js';

describe('checkPortableRegex', () => {
  it.each(['/api/v[0-9]+', '^/(?:a|b)/.*$', '/a\\.b', '/\\d{2,3}'])('accepts %s', (value) => {
    expect(checkPortableRegex(value)).toBeUndefined();
  });

  it.each([
    ['/(a)\\1', 'may only escape one of . - / d D w W s S ( ) [ ] { } * + ? | ^ $'],
    ['/a\\', 'may only escape one of . - / d D w W s S ( ) [ ] { } * + ? | ^ $'],
    ['/(?=x)', 'may not use "(?" groups other than "(?:"'],
    ['/(?<name>x)', 'may not use "(?" groups other than "(?:"'],
    ['/(?i)x', 'may not use "(?" groups other than "(?:"'],
    ['/[a', 'is not a valid regular expression'],
  ])('refuses %s: %s', (value, reason) => {
    expect(checkPortableRegex(value)).toBe(reason);
  });

  it('takes extra escapes when a caller allows them', () => {
    expect(checkPortableRegex('/a\\\\b')).toBeDefined();
    expect(checkPortableRegex('/a\\\\b', '\\')).toBeUndefined();
  });
});
