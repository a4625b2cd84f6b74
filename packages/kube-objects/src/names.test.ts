import { describe, expect, it } from 'vitest';
import { checkDnsLabel, checkDnsSubdomain, checkPortName, isPortNumber } from './names.js';

describe('checkDnsLabel', () => {
  it.each(['a', 'shop', 'team-1', 'a'.repeat(63)])('accepts %s', (value) => {
    expect(checkDnsLabel(value)).toBeUndefined();
  });

  it.each([
    ['', 'must be a non-empty string'],
    [42, 'must be a non-empty string'],
    ['a'.repeat(64), 'must be at most 63 characters'],
    ['Shop', 'must be an RFC 1123 label (a-z, 0-9 and "-", starting and ending alphanumeric)'],
    ['-x', 'must be an RFC 1123 label (a-z, 0-9 and "-", starting and ending alphanumeric)'],
    ['a.b', 'must be an RFC 1123 label (a-z, 0-9 and "-", starting and ending alphanumeric)'],
  ])('refuses %j: %s', (value, reason) => {
    expect(checkDnsLabel(value)).toBe(reason);
  });
});

describe('checkDnsSubdomain', () => {
  it.each(['a', 'web.shop', 'tls-1.example.com'])('accepts %s', (value) => {
    expect(checkDnsSubdomain(value)).toBeUndefined();
  });

  it.each(['', 'a..b', 'a;b', 'API.example.org', `${'a'.repeat(64)}.b`, 'x'.repeat(254)])(
    'refuses %j',
    (value) => {
      expect(checkDnsSubdomain(value)).toBeDefined();
    },
  );
});

describe('checkPortName', () => {
  it('accepts IANA service names and refuses the rest', () => {
    expect(['http', 'metrics-1', 'h2c'].map(checkPortName)).toEqual([undefined, undefined, undefined]);
    for (const value of ['', '80', 'HTTP', 'a--b', 'very-long-port-name', '-x']) {
      expect(checkPortName(value)).toBeDefined();
    }
  });
});

describe('isPortNumber', () => {
  it('takes whole numbers from 1 to 65535 only', () => {
    expect([1, 80, 65535].every(isPortNumber)).toBe(true);
    expect([0, 65536, 80.5, '80', Number.NaN].some(isPortNumber)).toBe(false);
  });
});
