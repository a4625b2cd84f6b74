import { describe, expect, it } from 'vitest';
import { compareHostnames, hostnameCandidates, isHostCovered, isValidHostname } from './hostnames.js';

describe('isValidHostname', () => {
  it('accepts lower-case DNS names, one leading wildcard label and the catch-all', () => {
    for (const name of ['a.example.com', 'localhost', '*.example.com', '*', 'x-1.y2']) {
      expect(isValidHostname(name), name).toBe(true);
    }
  });

  it('refuses upper case, empty labels, a wildcard not in front, and over-long names', () => {
    for (const name of ['A.example.com', 'a..b', 'a.*.com', '-a.com', `${'a'.repeat(64)}.com`, '*.', '']) {
      expect(isValidHostname(name), name).toBe(false);
    }
    expect(isValidHostname(`${'a.'.repeat(127)}a`)).toBe(false);
  });
});

describe('isHostCovered', () => {
  it('covers exactly one label with one-label wildcards and any number with suffix wildcards', () => {
    expect(isHostCovered('*.example.com', 'one-label', 'a.example.com')).toBe(true);
    expect(isHostCovered('*.example.com', 'one-label', 'a.b.example.com')).toBe(false);
    expect(isHostCovered('*.example.com', 'suffix', 'a.b.example.com')).toBe(true);
    for (const kind of ['one-label', 'suffix'] as const) {
      expect(isHostCovered('*.example.com', kind, 'example.com')).toBe(false);
      expect(isHostCovered('*.example.com', kind, 'badexample.com')).toBe(false);
    }
  });

  it('covers only the same name when exact, and every name with the catch-all', () => {
    expect(isHostCovered('a.example.com', 'exact', 'a.example.com')).toBe(true);
    expect(isHostCovered('a.example.com', 'exact', 'b.example.com')).toBe(false);
    expect(isHostCovered('*', 'any', 'anything.at.all')).toBe(true);
  });
});

describe('hostnameCandidates', () => {
  it('lists the host, then wildcards dropping one label at a time, then the catch-all', () => {
    expect(hostnameCandidates('a.b.example.com')).toEqual([
      'a.b.example.com',
      '*.b.example.com',
      '*.example.com',
      '*.com',
      '*',
    ]);
    expect(hostnameCandidates('localhost')).toEqual(['localhost', '*']);
  });
});

describe('compareHostnames', () => {
  it('orders exact names, then longer wildcards, then the catch-all', () => {
    const sorted = ['*', '*.com', 'b.example.com', '*.example.com', 'a.example.com'].sort(compareHostnames);
    expect(sorted).toEqual(['a.example.com', 'b.example.com', '*.example.com', '*.com', '*']);
  });
});
