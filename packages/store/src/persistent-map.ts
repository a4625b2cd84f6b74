/**
 * A persistent hash array mapped trie (HAMT) keyed by strings, with Clojure-style transient edits.
 *
 * Every update returns a map; old maps never change, and unchanged subtrees are shared, so a
 * snapshot is just a reference. To keep bulk loads (an initial list of 10,000 objects) from
 * allocating a new path per insert, updates take an edit token: nodes created under the same
 * token are mutated in place. The owner retires its token whenever it hands a map out (a
 * snapshot), which makes every node reachable from that map immutable from then on.
 */

/** A token that marks which nodes an owner may still mutate in place; compare by identity. */
export type EditToken = object;

const BITS = 5;
const MASK = (1 << BITS) - 1;

/** One entry. Its hash is not kept (8 bytes of 48, for every object a store holds): it is computed again on the rare split. */
class Leaf<V> {
  constructor(
    readonly key: string,
    readonly value: V,
  ) {}
}

class Collision<V> {
  constructor(
    public edit: EditToken | undefined,
    readonly hash: number,
    public leaves: Leaf<V>[],
  ) {}
}

class Branch<V> {
  constructor(
    public edit: EditToken | undefined,
    public bitmap: number,
    public slots: Node<V>[],
  ) {}
}

type Node<V> = Leaf<V> | Collision<V> | Branch<V>;

/**
 * An immutable string-keyed map with structural sharing. `set`/`delete` return a new map unless
 * `edit` is given and this map was created under the same token, in which case it is updated in place.
 */
export class PersistentMap<V> implements Iterable<[string, V]> {
  private static readonly emptyMap = new PersistentMap<never>(undefined, new Branch(undefined, 0, []), 0);

  private constructor(
    private edit: EditToken | undefined,
    private root: Branch<V>,
    private count: number,
  ) {}

  /** The shared empty map. */
  static empty<V>(): PersistentMap<V> {
    return PersistentMap.emptyMap;
  }

  /** Builds a map from entries under a fresh token (later keys win). */
  static from<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    const edit: EditToken = {};
    let map = PersistentMap.empty<V>();
    for (const [key, value] of entries) map = map.set(key, value, edit);
    return map;
  }

  /** Number of entries. */
  get size(): number {
    return this.count;
  }

  /** The value stored under `key`, or undefined. */
  get(key: string): V | undefined {
    return findLeaf(this.root, hashKey(key), key)?.value;
  }

  /** Whether `key` is present. */
  has(key: string): boolean {
    return findLeaf(this.root, hashKey(key), key) !== undefined;
  }

  /** A map with `key` set to `value`; returns this map when the value is already identical. */
  set(key: string, value: V, edit?: EditToken): PersistentMap<V> {
    const added = { value: false };
    const root = setIn(this.root, edit, 0, hashKey(key), key, value, added);
    if (root === this.root && !added.value) return this;
    return this.withRoot(edit, root as Branch<V>, this.count + (added.value ? 1 : 0));
  }

  /** A map without `key`; returns this map when the key is absent. */
  delete(key: string, edit?: EditToken): PersistentMap<V> {
    const removed = { value: false };
    const result = removeFrom(this.root, edit, 0, hashKey(key), key, removed);
    if (!removed.value) return this;
    const root = result instanceof Branch ? result : wrapInRoot(edit, result);
    return this.withRoot(edit, root, this.count - 1);
  }

  /** Iterates the keys in hash order (stable for the same content, not sorted). */
  *keys(): IterableIterator<string> {
    for (const leaf of iterateLeaves(this.root)) yield leaf.key;
  }

  /** Iterates the values in hash order. */
  *values(): IterableIterator<V> {
    for (const leaf of iterateLeaves(this.root)) yield leaf.value;
  }

  /** Iterates `[key, value]` pairs in hash order. */
  *entries(): IterableIterator<[string, V]> {
    for (const leaf of iterateLeaves(this.root)) yield [leaf.key, leaf.value];
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  private withRoot(edit: EditToken | undefined, root: Branch<V>, count: number): PersistentMap<V> {
    if (count === 0) return PersistentMap.empty<V>();
    if (edit !== undefined && this.edit === edit) {
      this.root = root;
      this.count = count;
      return this;
    }
    return new PersistentMap(edit, root, count);
  }
}

/** A 32-bit string hash (Java's polynomial, then murmur3's finalizer to spread similar keys). */
function hashKey(key: string): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash;
}

function popcount(bits: number): number {
  let x = bits - ((bits >> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >> 2) & 0x33333333);
  x = (x + (x >> 4)) & 0x0f0f0f0f;
  x += x >> 8;
  x += x >> 16;
  return x & 0x7f;
}

function bitFor(hash: number, shift: number): number {
  return 1 << ((hash >>> shift) & MASK);
}

function findLeaf<V>(root: Branch<V>, hash: number, key: string): Leaf<V> | undefined {
  let node: Node<V> = root;
  let shift = 0;
  for (;;) {
    if (node instanceof Branch) {
      const bit = bitFor(hash, shift);
      if ((node.bitmap & bit) === 0) return undefined;
      node = node.slots[popcount(node.bitmap & (bit - 1))]!;
      shift += BITS;
    } else if (node instanceof Leaf) {
      return node.key === key ? node : undefined;
    } else {
      if (node.hash !== hash) return undefined;
      return node.leaves.find((leaf) => leaf.key === key);
    }
  }
}

function setIn<V>(
  node: Node<V>,
  edit: EditToken | undefined,
  shift: number,
  hash: number,
  key: string,
  value: V,
  added: { value: boolean },
): Node<V> {
  if (node instanceof Branch) {
    const bit = bitFor(hash, shift);
    const index = popcount(node.bitmap & (bit - 1));
    if ((node.bitmap & bit) === 0) {
      added.value = true;
      const leaf = new Leaf(key, value);
      const slots = withSlot(node.slots, index, leaf);
      if (edit !== undefined && node.edit === edit) {
        node.slots = slots;
        node.bitmap |= bit;
        return node;
      }
      return new Branch(edit, node.bitmap | bit, slots);
    }
    const child = node.slots[index]!;
    const updated = setIn(child, edit, shift + BITS, hash, key, value, added);
    return updated === child ? node : replaceSlot(node, edit, index, updated);
  }
  if (node instanceof Leaf) {
    if (node.key === key) return node.value === value ? node : new Leaf(key, value);
    added.value = true;
    const leaf = new Leaf(key, value);
    const nodeHash = hashKey(node.key);
    if (nodeHash === hash) return new Collision(edit, hash, [node, leaf]);
    return mergeLeaves(edit, shift, node, nodeHash, leaf, hash);
  }
  if (node.hash !== hash) {
    // A collision node sits where a different hash now needs to go: push it one level down.
    const branch = new Branch<V>(edit, bitFor(node.hash, shift), [node]);
    return setIn(branch, edit, shift, hash, key, value, added);
  }
  const at = node.leaves.findIndex((leaf) => leaf.key === key);
  if (at >= 0 && node.leaves[at]!.value === value) return node;
  const leaf = new Leaf(key, value);
  if (at < 0) added.value = true;
  const leaves = edit !== undefined && node.edit === edit ? node.leaves : node.leaves.slice();
  if (at < 0) leaves.push(leaf);
  else leaves[at] = leaf;
  if (leaves === node.leaves) return node;
  return new Collision(edit, hash, leaves);
}

function mergeLeaves<V>(
  edit: EditToken | undefined,
  shift: number,
  a: Leaf<V>,
  hashA: number,
  b: Leaf<V>,
  hashB: number,
): Branch<V> {
  const indexA = (hashA >>> shift) & MASK;
  const indexB = (hashB >>> shift) & MASK;
  if (indexA === indexB)
    return new Branch(edit, 1 << indexA, [mergeLeaves(edit, shift + BITS, a, hashA, b, hashB)]);
  return new Branch(edit, (1 << indexA) | (1 << indexB), indexA < indexB ? [a, b] : [b, a]);
}

function replaceSlot<V>(
  node: Branch<V>,
  edit: EditToken | undefined,
  index: number,
  child: Node<V>,
): Branch<V> {
  if (edit !== undefined && node.edit === edit) {
    node.slots[index] = child;
    return node;
  }
  const slots = node.slots.slice();
  slots[index] = child;
  return new Branch(edit, node.bitmap, slots);
}

/** Returns the node without `key`; a branch left with a single leaf or collision collapses into it. */
function removeFrom<V>(
  node: Branch<V>,
  edit: EditToken | undefined,
  shift: number,
  hash: number,
  key: string,
  removed: { value: boolean },
): Node<V> | undefined {
  const bit = bitFor(hash, shift);
  if ((node.bitmap & bit) === 0) return node;
  const index = popcount(node.bitmap & (bit - 1));
  const child = node.slots[index]!;
  let updated: Node<V> | undefined;
  if (child instanceof Leaf) {
    if (child.key !== key) return node;
    removed.value = true;
    updated = undefined;
  } else if (child instanceof Branch) {
    updated = removeFrom(child, edit, shift + BITS, hash, key, removed);
    if (updated === child) return node;
  } else {
    if (child.hash !== hash) return node;
    const at = child.leaves.findIndex((leaf) => leaf.key === key);
    if (at < 0) return node;
    removed.value = true;
    const leaves = child.leaves.filter((_, i) => i !== at);
    updated = leaves.length === 1 ? leaves[0]! : new Collision(edit, hash, leaves);
  }
  if (updated !== undefined) {
    if (node.slots.length === 1 && !(updated instanceof Branch)) return updated;
    return replaceSlot(node, edit, index, updated);
  }
  if (node.slots.length === 1) return undefined;
  if (node.slots.length === 2 && shift > 0) {
    const other = node.slots[1 - index]!;
    if (!(other instanceof Branch)) return other;
  }
  const slots = node.slots.filter((_, i) => i !== index);
  if (edit !== undefined && node.edit === edit) {
    node.slots = slots;
    node.bitmap &= ~bit;
    return node;
  }
  return new Branch(edit, node.bitmap & ~bit, slots);
}

/**
 * `slots` with `slot` inserted at `index`, as a new array of exactly that length: `splice` in place
 * grows an array's store by half again, and a bulk load left 40 % of the trie's slot arrays unused.
 */
function withSlot<V>(slots: readonly Node<V>[], index: number, slot: Node<V>): Node<V>[] {
  const result = new Array<Node<V>>(slots.length + 1);
  for (let i = 0; i < index; i++) result[i] = slots[i]!;
  result[index] = slot;
  for (let i = index; i < slots.length; i++) result[i + 1] = slots[i]!;
  return result;
}

function wrapInRoot<V>(edit: EditToken | undefined, node: Leaf<V> | Collision<V> | undefined): Branch<V> {
  if (node === undefined) return new Branch<V>(edit, 0, []);
  return new Branch<V>(edit, bitFor(node instanceof Leaf ? hashKey(node.key) : node.hash, 0), [node]);
}

function* iterateLeaves<V>(node: Node<V>): Generator<Leaf<V>> {
  if (node instanceof Leaf) {
    yield node;
  } else if (node instanceof Collision) {
    yield* node.leaves;
  } else {
    for (const slot of node.slots) yield* iterateLeaves(slot);
  }
}
