import { describe, expect, it } from 'vitest';
import { PersistentMap } from './persistent-map.js';

function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function toSortedEntries<V>(map: Iterable<[string, V]>): [string, V][] {
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

describe('PersistentMap', () => {
  it('keeps earlier versions unchanged when later versions are edited', () => {
    const empty = PersistentMap.empty<number>();
    const one = empty.set('a', 1);
    const two = one.set('b', 2);
    const changed = two.set('a', 10).delete('b');
    expect(empty.size).toBe(0);
    expect(toSortedEntries(one)).toEqual([['a', 1]]);
    expect(toSortedEntries(two)).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(toSortedEntries(changed)).toEqual([['a', 10]]);
  });

  it('returns the same map when a set or delete changes nothing', () => {
    const value = { x: 1 };
    const map = PersistentMap.empty<object>().set('a', value);
    expect(map.set('a', value)).toBe(map);
    expect(map.delete('missing')).toBe(map);
  });

  it('edits in place under the same token and copies after the token is retired', () => {
    const edit = {};
    const first = PersistentMap.empty<number>().set('a', 1, edit);
    const same = first.set('b', 2, edit);
    expect(same).toBe(first);
    const frozen = same;
    const next = frozen.set('c', 3, {});
    expect(next).not.toBe(frozen);
    expect(frozen.has('c')).toBe(false);
    expect(next.get('c')).toBe(3);
  });

  it('matches a Map under random edits while every retired version stays intact', () => {
    const random = createRandom(42);
    let edit = {};
    let map = PersistentMap.empty<number>();
    const reference = new Map<string, number>();
    const frozen: { map: PersistentMap<number>; entries: [string, number][] }[] = [];
    for (let step = 0; step < 20_000; step++) {
      const key = `ns-${Math.floor(random() * 40)}/object-${Math.floor(random() * 100)}`;
      if (random() < 0.35) {
        map = map.delete(key, edit);
        reference.delete(key);
      } else {
        map = map.set(key, step, edit);
        reference.set(key, step);
      }
      if (step % 997 === 0) {
        frozen.push({ map, entries: toSortedEntries(reference) });
        edit = {};
      }
    }
    expect(map.size).toBe(reference.size);
    expect(toSortedEntries(map)).toEqual(toSortedEntries(reference));
    for (const [key, value] of reference) expect(map.get(key)).toBe(value);
    for (const version of frozen) {
      expect(version.map.size).toBe(version.entries.length);
      expect(toSortedEntries(version.map)).toEqual(version.entries);
    }
  });

  it('handles keys whose hashes collide', () => {
    // "Aa" and "BB" share Java's polynomial string hash, so they share the mixed hash too.
    let map = PersistentMap.empty<string>().set('Aa', 'first').set('BB', 'second').set('C', 'third');
    expect(map.get('Aa')).toBe('first');
    expect(map.get('BB')).toBe('second');
    map = map.delete('Aa');
    expect(map.get('BB')).toBe('second');
    expect(map.has('Aa')).toBe(false);
    expect(map.size).toBe(2);
    map = map.delete('BB').delete('C');
    expect(map.size).toBe(0);
  });

  it('builds a map from entries with later keys winning', () => {
    const map = PersistentMap.from([
      ['a', 1],
      ['b', 2],
      ['a', 3],
    ]);
    expect(toSortedEntries(map)).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
  });
});
