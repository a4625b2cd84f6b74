import { describe, expect, it } from 'vitest';
import { checkHost, checkLiteralPath, checkRegexPath, parseCidr, readBoolean } from './grammar.js';

describe('checkHost', () => {
  it.each([
    'example.com',
    'a',
    'a-b.c-d.example',
    '*.example.com',
    'xn--bcher-kva.example',
    `${'a'.repeat(63)}.com`,
  ])('accepts %j', (host) => {
    expect(checkHost(host)).toBeUndefined();
  });

  it.each([
    '',
    '*',
    '*.',
    '.example.com',
    'example.com.',
    'a..b',
    'Example.com',
    'a_b.com',
    '::1',
    '1.2.3.4',
    'a b',
    'a\nb',
    '*.a*.com',
    `${'a.'.repeat(127)}com`,
    42,
    null,
  ])('refuses %j', (host) => {
    expect(checkHost(host)).toBeDefined();
  });
});

describe('checkLiteralPath', () => {
  it.each(['/', '/a/b/', '/a-b_c.d~e', '/v1.2/x'])('accepts %j', (value) => {
    expect(checkLiteralPath(value)).toBeUndefined();
  });

  it.each(['', 'a', '/a b', '/a?x', '/a%20', '/a;', '/$a', '/a"', "/a'", '/a{', '/a\\', '/a\u0000', '/ü'])(
    'refuses %j',
    (value) => {
      expect(checkLiteralPath(value)).toBeDefined();
    },
  );
});

describe('checkRegexPath', () => {
  it.each([
    '/api(/|$)(.*)',
    '/v[0-9]+/items',
    '/a\\.b',
    '/x{2,3}',
    '/(?:a|b)/c',
    '/[^/]+/edit$',
    '/a\\d+\\/b',
  ])('accepts %j', (value) => {
    expect(checkRegexPath(value)).toBeUndefined();
  });

  it.each([
    'api',
    '/a(',
    '/[a',
    '/a**',
    '/(?i)x',
    '/(?<n>x)',
    '/(?=a)',
    '/(*ACCEPT)',
    '/\\1',
    '/\\n',
    '/\\x41',
    '/\\',
    '/a b',
    '/a"b',
    '/a;b',
    '/a#b',
    '/a`b',
    '/é',
    '/a{3,1}',
    `/${'a'.repeat(512)}`,
  ])('refuses %j', (value) => {
    expect(checkRegexPath(value)).toBeDefined();
  });
});

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3', '10.1.2.3'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['::/0', '::/0'],
  ])('accepts %j', (value, expected) => {
    expect(parseCidr(value)).toBe(expected);
  });

  it.each([
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/-1',
    '10.0.0.0/08',
    '1.2.3',
    '1.2.3.4.5',
    'fe80::1%1',
    'a.b.c.d',
    '10.0.0.0/8 ',
  ])('refuses %j', (value) => {
    expect(parseCidr(value)).toBeUndefined();
  });
});

describe('readBoolean', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])("reads %j as true, as Go's strconv.ParseBool", (value) => {
    expect(readBoolean(value)).toBe(true);
  });

  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])(
    "reads %j as false, as Go's strconv.ParseBool",
    (value) => {
      expect(readBoolean(value)).toBe(false);
    },
  );

  it.each(['', 'tRuE', 'fAlse', 'yes', 'no', 'on', 'off', 'y', '01', '2', ' true', 'true ', 'TRUE\n'])(
    'refuses %j, which ParseBool refuses too',
    (value) => {
      expect(readBoolean(value)).toBeUndefined();
    },
  );
});
