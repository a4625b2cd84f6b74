import { describe, expect, it } from 'vitest';
import { PersistentMap } from './persistent-map.js';
import { addMember, listMembers, type Members, removeMember, type ReverseIndex } from './reverse-index.js';

describe('addMember', () => {
  it('grows an entry from one member to several and keeps earlier indexes intact', () => {
    const empty: ReverseIndex<number> = PersistentMap.empty();
    const one = addMember(empty, 'svc', 'b', 1, {});
    const two = addMember(one, 'svc', 'a', 2, {});
    const three = addMember(two, 'svc', 'c', 3, {});
    expect(listMembers(one.get('svc'))).toEqual([['b', 1]]);
    expect(listMembers(two.get('svc'))).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(listMembers(three.get('svc')).map(([key]) => key)).toEqual(['a', 'b', 'c']);
    expect(empty.size).toBe(0);
  });

  it('returns the same index when the member is already there with the same value', () => {
    const index = addMember(PersistentMap.empty<Members<true>>(), 'svc', 'a', true, {});
    expect(addMember(index, 'svc', 'a', true, {})).toBe(index);
  });
});

describe('removeMember', () => {
  it('shrinks an entry back to one member and removes it when empty', () => {
    const edit = {};
    let index: ReverseIndex<true> = PersistentMap.empty();
    for (const member of ['a', 'b', 'c']) index = addMember(index, 'secret', member, true, edit);
    const full = index;
    index = removeMember(index, 'secret', 'a', {});
    index = removeMember(index, 'secret', 'c', {});
    expect(listMembers(index.get('secret'))).toEqual([['b', true]]);
    expect(removeMember(index, 'secret', 'missing', {})).toBe(index);
    index = removeMember(index, 'secret', 'b', {});
    expect(index.has('secret')).toBe(false);
    expect(listMembers(full.get('secret')).map(([key]) => key)).toEqual(['a', 'b', 'c']);
  });
});
