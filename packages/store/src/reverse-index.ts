/**
 * The store's reverse indexes (an object to those that refer to it), persistent, and small for the
 * common lone referrer.
 */
import { type EditToken, PersistentMap } from './persistent-map.js';

/**
 * The members of one index entry. Most targets (a Service, a TLS Secret) are referenced by one
 * object, so a lone member is kept as a two-field record instead of a map: it saves about two
 * thirds of an index's memory at 10,000 Ingresses.
 */
export type Members<V> = SingleMember<V> | PersistentMap<V>;

/** An index entry with exactly one member. */
export class SingleMember<V> {
  constructor(
    readonly key: string,
    readonly value: V,
  ) {}
}

/** target → members, persistent like everything a snapshot holds. */
export type ReverseIndex<V> = PersistentMap<Members<V>>;

/** The index with `member` (and its value) added under `target`. */
export function addMember<V>(
  index: ReverseIndex<V>,
  target: string,
  member: string,
  value: V,
  edit: EditToken,
): ReverseIndex<V> {
  const members = index.get(target);
  if (members === undefined) return index.set(target, new SingleMember(member, value), edit);
  if (members instanceof SingleMember) {
    if (members.key === member) {
      return members.value === value ? index : index.set(target, new SingleMember(member, value), edit);
    }
    const map = PersistentMap.empty<V>().set(members.key, members.value, edit).set(member, value, edit);
    return index.set(target, map, edit);
  }
  const next = members.set(member, value, edit);
  return next === members ? index : index.set(target, next, edit);
}

/** The index without `member` under `target`; an entry left empty is removed. */
export function removeMember<V>(
  index: ReverseIndex<V>,
  target: string,
  member: string,
  edit: EditToken,
): ReverseIndex<V> {
  const members = index.get(target);
  if (members === undefined) return index;
  if (members instanceof SingleMember) return members.key === member ? index.delete(target, edit) : index;
  const next = members.delete(member, edit);
  if (next.size === 1) {
    for (const [key, value] of next) return index.set(target, new SingleMember(key, value), edit);
  }
  return next === members ? index : index.set(target, next, edit);
}

/** The `[member, value]` pairs of an entry, sorted by member key. */
export function listMembers<V>(members: Members<V> | undefined): [string, V][] {
  if (members === undefined) return [];
  if (members instanceof SingleMember) return [[members.key, members.value]];
  return [...members.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The member keys of an entry, unsorted (cheaper than {@link listMembers} when order does not matter). */
export function memberKeys<V>(members: Members<V> | undefined): Iterable<string> {
  if (members === undefined) return [];
  return members instanceof SingleMember ? [members.key] : members.keys();
}

/** Whether some member of an entry satisfies `predicate` (false for none). */
export function hasMember<V>(members: Members<V> | undefined, predicate: (key: string) => boolean): boolean {
  for (const key of memberKeys(members)) if (predicate(key)) return true;
  return false;
}
