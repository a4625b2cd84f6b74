/**
 * An index from keys to small sets of members, for indexes where nearly every key has one
 * member (the sources of a backend, say): a lone member is stored as the string itself, and a
 * Set is made only for a second. At 10,000 keys that is megabytes less than a Set per key.
 */
export class MemberIndex {
  readonly #entries = new Map<string, string | Set<string>>();

  /** Adds `member` to `key`; returns true when `key` had no member before. */
  add(key: string, member: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#entries.set(key, member);
      return true;
    }
    if (typeof entry === 'string') {
      if (entry !== member) this.#entries.set(key, new Set([entry, member]));
    } else {
      entry.add(member);
    }
    return false;
  }

  /** Removes `member` from `key`; returns true when `key` has no member left. */
  delete(key: string, member: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    if (typeof entry === 'string') {
      if (entry !== member) return false;
      this.#entries.delete(key);
      return true;
    }
    entry.delete(member);
    if (entry.size > 1) return false;
    const [last] = entry;
    if (last === undefined) this.#entries.delete(key);
    else this.#entries.set(key, last);
    return last === undefined;
  }

  /** The members of `key`. */
  members(key: string): string[] {
    const entry = this.#entries.get(key);
    if (entry === undefined) return [];
    return typeof entry === 'string' ? [entry] : [...entry];
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** Each key with its number of members. */
  *counts(): IterableIterator<[string, number]> {
    for (const [key, entry] of this.#entries) yield [key, typeof entry === 'string' ? 1 : entry.size];
  }
}
