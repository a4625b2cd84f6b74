import { describe, expect, it } from 'vitest';
import {
  countCaptures,
  estimateRegexBytes,
  groupRegexPaths,
  isAnchoredRegex,
  type RegexPath,
} from './regex-groups.js';

function regexPath(index: number, pattern: string, extra: Partial<RegexPath> = {}): RegexPath {
  return { index, pattern, ignoreCase: false, conditioned: false, ...extra };
}

describe('estimateRegexBytes', () => {
  it('counts a class as its 32-byte bitmap and a literal as two bytes', () => {
    expect(estimateRegexBytes('[a-z]') - estimateRegexBytes('')).toBe(33);
    expect(estimateRegexBytes('/abc') - estimateRegexBytes('')).toBe(8);
  });

  it('writes a repeated group out once per copy, but repeats a single item with counts', () => {
    const once = estimateRegexBytes('(?:[a-z]x)');
    expect(estimateRegexBytes('(?:[a-z]x){100}')).toBeGreaterThan(100 * (once - estimateRegexBytes('')));
    expect(estimateRegexBytes('[a-z]{65535}')).toBeLessThan(estimateRegexBytes('[a-z]') + 10);
  });

  it('multiplies nested repeats', () => {
    expect(estimateRegexBytes('((?:ab){10}){10}')).toBeGreaterThan(100 * 4);
  });

  it('gives any text a finite number, unbalanced or not a portable pattern', () => {
    for (const text of ['(', ')', '((((', '(?=a)', '(?<n>a)', '[', '\\', 'a{', '('.repeat(10_000)]) {
      expect(Number.isFinite(estimateRegexBytes(text))).toBe(true);
    }
  });
});

describe('countCaptures', () => {
  it('counts capturing groups only: not (?:, escaped parentheses or parentheses in a class', () => {
    expect(countCaptures('^/(a+)(?:b)\\(c[(](d(e))')).toBe(3);
  });
});

describe('isAnchoredRegex', () => {
  it('is true only for a leading ^ outside any top-level alternation', () => {
    expect(isAnchoredRegex('^/a')).toBe(true);
    expect(isAnchoredRegex('^(?:/a|/b)$')).toBe(true);
    expect(isAnchoredRegex('^/[|]')).toBe(true);
    expect(isAnchoredRegex('^/a|/b')).toBe(false);
    expect(isAnchoredRegex('/a')).toBe(false);
    expect(isAnchoredRegex('\\^/a')).toBe(false);
  });
});

describe('groupRegexPaths', () => {
  it('joins routes in order, each in a group of its case with a marker capture after its own', () => {
    const groups = groupRegexPaths([
      regexPath(2, '^/(a)(b)', { ignoreCase: true }),
      regexPath(5, 'x$'),
      regexPath(6, '^/c'),
    ]);
    expect(groups).toEqual([
      {
        pattern: '^(?:(?i:^/(a)(b))()|[\\s\\S]*?(?:x$)()|(?:^/c)())',
        routes: [2, 5, 6],
        markers: [3, 4, 5],
      },
    ]);
  });

  it('finds the first route whose pattern matches, not the leftmost match', () => {
    const [group] = groupRegexPaths([regexPath(1, 'b'), regexPath(2, '^/a')]);
    const match = new RegExp(group!.pattern).exec('/ab')!;
    expect(group!.markers.filter((marker) => match[marker] !== undefined)).toEqual([group!.markers[0]]);
  });

  it('ends a group after a route with other conditions, which may still fail', () => {
    const groups = groupRegexPaths([
      regexPath(1, '^/a'),
      regexPath(2, '^/b', { conditioned: true }),
      regexPath(3, '^/c'),
    ]);
    expect(groups.map((group) => group.routes)).toEqual([[1, 2], [3]]);
    expect(groups[1]!.markers).toEqual([1]);
  });

  it('starts a new group before the estimate passes the capacity, and keeps a large route alone', () => {
    const paths = Array.from({ length: 100 }, (_, index) => regexPath(index + 1, `^/[a-z]+${index}`));
    const groups = groupRegexPaths(paths, 1_000);
    expect(groups.length).toBeGreaterThan(5);
    expect(groups.flatMap((group) => group.routes)).toEqual(paths.map((path) => path.index));
    for (const group of groups) expect(estimateRegexBytes(group.pattern)).toBeLessThanOrEqual(1_000);
    const alone = groupRegexPaths(
      [regexPath(1, '^/a'), regexPath(2, '(?:[a-z]x){200}'), regexPath(3, '^/b')],
      1_000,
    );
    expect(alone.map((group) => group.routes)).toEqual([[1], [2], [3]]);
  });

  it('matches 1,000 routes built to backtrack in three groups', () => {
    const paths = Array.from({ length: 1_000 }, (_, index) => regexPath(index + 1, `^/(a+)+b${index}`));
    expect(groupRegexPaths(paths).length).toBe(3);
  });

  it('makes no group for no routes', () => {
    expect(groupRegexPaths([])).toEqual([]);
  });
});
