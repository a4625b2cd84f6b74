/**
 * The data plane's memory (nginx's shared dict: the controller's `--lua-shared-dict-size` and
 * `--max-namespace-dict-share`, which its messages name) shared fairly between namespaces, so
 * that no tenant can fill it: a full dict refuses every push,
 * everyone's endpoint changes included. What each object brings into the dict (its routes, the
 * shared policies and certificates it names) is counted before anything is pushed. A quarter of
 * the dict is kept free for what the counts leave out (the change log, entries being replaced,
 * the allocator's waste). Of the rest, one namespace may fill at most its share; when namespaces
 * together need more than there is, each gets an equal part, and a namespace that needs less
 * leaves the remainder to the others (max-min fairness): a namespace within its equal part is
 * never cut, whatever the others do. Within a namespace the oldest objects come first (ties by
 * key); one that would pass the namespace's allowance is left out whole, and younger ones that
 * still fit are served, so a tenant's new object never pushes out an older one of theirs.
 */

/** The part of the dict the budget hands out; the rest stays free. */
const USABLE_FRACTION = 0.75;

/** What one object brings into the dict. */
export interface ObjectData {
  /** Bytes of entries (or parts of entries) that are this object's alone: its routes, its hosts. */
  own: number;
  /** Entries that objects of a namespace may share (policies, certificates), by key, with their bytes. */
  shared: ReadonlyMap<string, number>;
}

interface Item extends ObjectData {
  key: string;
  createdAt: number;
}

/**
 * The objects of one namespace and what they take together, kept as they change: a change costs
 * the entries of the object changed, not a walk over the namespace (tens of thousands of objects
 * in a single-tenant cluster).
 */
class NamespaceItems {
  readonly items = new Map<string, Item>();
  /** Objects left out of this namespace's allowance. */
  readonly leftOut = new Set<string>();
  #own = 0;
  /** Shared entries (policies, certificates) with their bytes and how many objects name them. */
  readonly #shared = new Map<string, { bytes: number; refs: number }>();
  #sharedBytes = 0;

  /** What all the objects take together, each shared entry once. */
  get demand(): number {
    return this.#own + this.#sharedBytes;
  }

  /** Adds or replaces an object; one left out stays so until the next recount says otherwise. */
  set(item: Item): void {
    this.#forget(item.key);
    this.items.set(item.key, item);
    this.#own += item.own;
    for (const [key, bytes] of item.shared) {
      const entry = this.#shared.get(key);
      if (entry === undefined) {
        this.#shared.set(key, { bytes, refs: 1 });
        this.#sharedBytes += bytes;
      } else {
        // Objects measure a shared entry alike; the last measure counts.
        this.#sharedBytes += bytes - entry.bytes;
        entry.bytes = bytes;
        entry.refs += 1;
      }
    }
  }

  delete(key: string): void {
    this.#forget(key);
    this.leftOut.delete(key);
  }

  #forget(key: string): void {
    const item = this.items.get(key);
    if (item === undefined) return;
    this.items.delete(key);
    this.#own -= item.own;
    for (const shared of item.shared.keys()) {
      const entry = this.#shared.get(shared)!;
      entry.refs -= 1;
      if (entry.refs === 0) {
        this.#shared.delete(shared);
        this.#sharedBytes -= entry.bytes;
      }
    }
  }
}

/** Options of {@link NamespaceDataBudget}. */
export interface NamespaceDataBudgetOptions {
  /** Bytes of the shared dict. */
  capacityBytes: number;
  /** The largest part of the usable dict one namespace may fill, more than 0 and at most 1. */
  namespaceShare: number;
}

/** Decides which objects of each namespace fit in its part of the shared dict, oldest first. */
export class NamespaceDataBudget {
  readonly #options: NamespaceDataBudgetOptions;
  readonly #usable: number;
  /** Objects by namespace. */
  readonly #namespaces = new Map<string, NamespaceItems>();
  readonly #namespaceOf = new Map<string, string>();
  /** What each namespace may take, as of the last settle. */
  readonly #allowances = new Map<string, number>();
  /** Namespaces changed since the last settle. */
  readonly #dirty = new Set<string>();

  constructor(options: NamespaceDataBudgetOptions) {
    this.#options = options;
    this.#usable = Math.floor(options.capacityBytes * USABLE_FRACTION);
  }

  /**
   * Records what the object `key` of `namespace`, created at `createdAt` (ms), brings into the
   * dict. Takes effect at the next {@link settle}.
   */
  set(key: string, namespace: string, createdAt: number, data: ObjectData): void {
    const previous = this.#namespaceOf.get(key);
    if (previous !== undefined && previous !== namespace) this.delete(key);
    let items = this.#namespaces.get(namespace);
    if (items === undefined) this.#namespaces.set(namespace, (items = new NamespaceItems()));
    items.set({ key, createdAt, ...data });
    this.#namespaceOf.set(key, namespace);
    this.#dirty.add(namespace);
  }

  /** Forgets an object (deleted, or not served for another reason). Takes effect at the next settle. */
  delete(key: string): void {
    const namespace = this.#namespaceOf.get(key);
    if (namespace === undefined) return;
    this.#namespaceOf.delete(key);
    this.#namespaces.get(namespace)?.delete(key);
    this.#dirty.add(namespace);
  }

  /**
   * Shares the dict out again after changes (once per batch) and returns the objects that moved
   * inside or outside their namespace's allowance.
   */
  settle(): string[] {
    if (this.#dirty.size === 0) return [];
    for (const namespace of this.#dirty) {
      if (this.#namespaces.get(namespace)?.items.size === 0) {
        this.#namespaces.delete(namespace);
        this.#allowances.delete(namespace);
      }
    }
    const changed: string[] = [];
    for (const [namespace, allowance] of this.#shareOut()) {
      if (!this.#dirty.has(namespace) && this.#allowances.get(namespace) === allowance) continue;
      this.#allowances.set(namespace, allowance);
      changed.push(...recount(this.#namespaces.get(namespace)!, allowance));
    }
    this.#dirty.clear();
    return changed;
  }

  /** Why the object is left out, or undefined when it fits. */
  refusal(key: string): string | undefined {
    const namespace = this.#namespaceOf.get(key);
    const items = namespace === undefined ? undefined : this.#namespaces.get(namespace);
    if (items === undefined || !items.leftOut.has(key)) return undefined;
    const item = items.items.get(key);
    const bytes = item === undefined ? 0 : item.own + sum(item.shared.values());
    const allowance = this.#allowances.get(namespace!) ?? 0;
    return (
      `its routes, policies and certificates take ${formatBytes(bytes)} of nginx's shared memory, ` +
      `which would take namespace ${namespace} past its part of it: ${formatBytes(allowance)} of the ` +
      `${formatBytes(this.#options.capacityBytes)} --lua-shared-dict-size (a namespace may fill at most ` +
      `${Math.round(this.#options.namespaceShare * 100)}% of three quarters of it, less while other ` +
      'namespaces need their part: --max-namespace-dict-share; older objects come first)'
    );
  }

  /** Each namespace's allowance: max-min fair shares of the usable dict, capped by the share. */
  #shareOut(): Map<string, number> {
    const cap = Math.floor(this.#usable * this.#options.namespaceShare);
    const byDemand = [...this.#namespaces].map(([namespace, items]) => [namespace, items.demand] as const);
    byDemand.sort((a, b) => a[1] - b[1]);
    const allowances = new Map<string, number>();
    let remaining = this.#usable;
    byDemand.forEach(([namespace, demand], index) => {
      const level = Math.floor(remaining / (byDemand.length - index));
      const allowance = Math.min(demand, level, cap);
      allowances.set(namespace, allowance);
      remaining -= allowance;
    });
    return allowances;
  }
}

/**
 * Which objects of a namespace fit `allowance`, oldest first (ties by key), recorded in its
 * `leftOut`; returns those that moved in or out. A namespace within its allowance has nothing
 * left out, found without ordering its objects.
 */
function recount(namespace: NamespaceItems, allowance: number): string[] {
  if (namespace.demand <= allowance) {
    const changed = [...namespace.leftOut];
    namespace.leftOut.clear();
    return changed;
  }
  const ordered = [...namespace.items.values()].sort(
    (a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  const changed: string[] = [];
  const counted = new Set<string>();
  let used = 0;
  for (const item of ordered) {
    let cost = item.own;
    for (const [key, bytes] of item.shared) if (!counted.has(key)) cost += bytes;
    const fits = used + cost <= allowance;
    if (fits) {
      used += cost;
      for (const key of item.shared.keys()) counted.add(key);
    }
    if (fits === namespace.leftOut.has(item.key)) changed.push(item.key);
    if (fits) namespace.leftOut.delete(item.key);
    else namespace.leftOut.add(item.key);
  }
  return changed;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}
