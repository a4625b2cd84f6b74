import { describe, expect, it } from 'vitest';
import { MemberIndex } from './member-index.js';

describe('MemberIndex', () => {
  it('tells when a key gets its first member and loses its last, through one and several members', () => {
    const index = new MemberIndex();
    expect(index.add('backend', 'a')).toBe(true);
    expect(index.add('backend', 'a')).toBe(false);
    expect(index.add('backend', 'b')).toBe(false);
    expect(index.members('backend').sort()).toEqual(['a', 'b']);
    expect(index.delete('backend', 'a')).toBe(false);
    expect(index.delete('backend', 'missing')).toBe(false);
    expect(index.members('backend')).toEqual(['b']);
    expect(index.delete('backend', 'b')).toBe(true);
    expect(index.has('backend')).toBe(false);
    expect(index.delete('backend', 'b')).toBe(false);
  });

  it('counts the members of every key', () => {
    const index = new MemberIndex();
    index.add('x', '1');
    index.add('y', '1');
    index.add('y', '2');
    expect(new Map(index.counts())).toEqual(
      new Map([
        ['x', 1],
        ['y', 2],
      ]),
    );
  });
});
