import { describe, expect, it } from 'vitest';
import { PushedContent } from './pushed-content.js';

const digest = (n: number) => n.toString(16).padStart(32, '0');

function accepted(previousVersion: number, version: number, previous = digest(previousVersion)) {
  return {
    version,
    stored: 1,
    deleted: 0,
    digest: digest(version),
    previousVersion,
    previousDigest: previous,
  };
}

describe('PushedContent', () => {
  it('accepts a chain of pushes, each starting where the last one ended', () => {
    const content = new PushedContent();
    expect(content.accept(accepted(0, 1), true)).toBeUndefined();
    expect(content.accept(accepted(1, 2), false)).toBeUndefined();
    expect(content.check({ version: 2, digest: digest(2), stored: digest(2), entries: 3 })).toBeUndefined();
  });

  it('tells a push that did not start from its last one, or from its content', () => {
    const content = new PushedContent();
    content.accept(accepted(0, 1), true);
    expect(content.accept(accepted(2, 3), false)).toMatch(
      /push this controller did not make \(version 2, expected 1\)/,
    );
    // After a drift nothing is known: the next delta is taken as it comes, the next full push restores.
    expect(content.accept(accepted(7, 8), false)).toBeUndefined();
    content.accept(accepted(8, 9), true);
    expect(content.accept(accepted(9, 10, digest(99)), false)).toMatch(/changed between two pushes/);
  });

  it('tells content that is not what the pushes left', () => {
    const content = new PushedContent();
    content.accept(accepted(0, 1), true);
    const current = { version: 1, digest: digest(1), stored: digest(1), entries: 1 };
    expect(content.check({ ...current, digest: digest(5) })).toMatch(/changed outside a push/);
    expect(content.check({ ...current, version: 4, digest: digest(4), stored: digest(4) })).toMatch(
      /did not make \(version 4, expected 1\)/,
    );
    expect(content.check({ ...current, digest: digest(6), stored: digest(6) })).toMatch(
      /not what this controller pushed/,
    );
  });

  it('checks nothing against what it forgot, but still tells a digest that disagrees with its writes', () => {
    const content = new PushedContent();
    content.accept(accepted(0, 1), true);
    content.forget();
    const current = { version: 5, digest: digest(5), stored: digest(5), entries: 1 };
    expect(content.check(current)).toBeUndefined();
    expect(content.check({ ...current, stored: digest(4) })).toMatch(/changed outside a push/);
  });
});
