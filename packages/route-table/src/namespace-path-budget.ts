/**
 * How many paths the Ingresses of one namespace may have together (the controller's
 * `--max-paths-per-namespace`), so
 * that no tenant can grow the route table (and everyone's translation and push work) without bound.
 * The oldest Ingresses are served first (ties by name); one that would take its namespace past the
 * limit is left out whole, and younger ones that still fit are served. A tenant's new Ingress can
 * therefore never push one of their older ones out, and deleting or shrinking one lets the next
 * ones in.
 */
import { splitObjectKey } from '@ingresskit/kube-objects';

interface Entry {
  key: string;
  namespace: string;
  paths: number;
  createdAt: number;
}

/** Decides which Ingresses of each namespace fit under the path limit, oldest first. */
export class NamespacePathBudget {
  readonly #limit: number;
  /** Entries by namespace, by Ingress key. */
  readonly #namespaces = new Map<string, Map<string, Entry>>();
  /** The Ingresses left out, by key. */
  readonly #leftOut = new Set<string>();
  /** The namespace of each Ingress, by key. */
  readonly #namespaceOf = new Map<string, string>();
  /** Namespaces changed since the last settle. */
  readonly #dirty = new Set<string>();

  /** `limit` > 0 paths per namespace. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * Records that the Ingress `key` has `paths` paths (0 when it is not served at all) and was
   * created at `createdAt` (ms); it counts in `namespace`, by default the namespace of the object
   * key `namespace/name`. Takes effect at the next {@link settle}.
   */
  set(key: string, paths: number, createdAt: number, namespace = namespaceOf(key)): void {
    const previous = this.#namespaceOf.get(key);
    if (previous !== undefined && previous !== namespace) this.delete(key);
    this.#namespaceOf.set(key, namespace);
    let entries = this.#namespaces.get(namespace);
    if (entries === undefined) this.#namespaces.set(namespace, (entries = new Map<string, Entry>()));
    entries.set(key, { key, namespace, paths, createdAt });
    this.#dirty.add(namespace);
  }

  /** Forgets an Ingress (deleted, or no longer ours). Takes effect at the next {@link settle}. */
  delete(key: string): void {
    const namespace = this.#namespaceOf.get(key);
    if (namespace === undefined) return;
    this.#namespaceOf.delete(key);
    if (this.#namespaces.get(namespace)?.delete(key) !== true) return;
    this.#leftOut.delete(key);
    this.#dirty.add(namespace);
  }

  /**
   * Counts the namespaces changed since the last call again (once per batch, so a start with
   * thousands of Ingresses in one namespace sorts it once). Returns the Ingresses that moved
   * inside or outside the limit.
   */
  settle(): string[] {
    const changed: string[] = [];
    for (const namespace of this.#dirty) {
      const entries = this.#namespaces.get(namespace);
      if (entries === undefined) continue;
      if (entries.size === 0) this.#namespaces.delete(namespace);
      else changed.push(...this.#recount(entries));
    }
    this.#dirty.clear();
    return changed;
  }

  /** Why the Ingress is left out, or undefined when it fits. */
  refusal(key: string): string | undefined {
    const namespace = this.#namespaceOf.get(key);
    if (!this.#leftOut.has(key) || namespace === undefined) return undefined;
    const paths = this.#namespaces.get(namespace)?.get(key)?.paths ?? 0;
    return (
      `its ${paths} paths would take namespace ${namespace} past the ${this.#limit} paths ` +
      'this controller serves per namespace (--max-paths-per-namespace; older Ingresses come first); the Ingress is not served'
    );
  }

  #recount(entries: Map<string, Entry>): string[] {
    const ordered = [...entries.values()].sort(
      (a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    const changed: string[] = [];
    let used = 0;
    for (const entry of ordered) {
      const fits = used + entry.paths <= this.#limit;
      if (fits) used += entry.paths;
      const wasLeftOut = this.#leftOut.has(entry.key);
      if (fits === wasLeftOut) changed.push(entry.key);
      if (fits) this.#leftOut.delete(entry.key);
      else this.#leftOut.add(entry.key);
    }
    return changed;
  }
}

function namespaceOf(key: string): string {
  return splitObjectKey(key).namespace ?? '';
}
