/**
 * The namespace selector's bookkeeping: which namespaces match, and the objects of the others,
 * held back so they can appear the moment their namespace starts matching. No I/O and no events:
 * StoreState decides what a change of a namespace means for the snapshot.
 */
import { type LabelRequirement, matchesLabels } from '@ingresskit/kube-objects';
import type { KubeObject } from './objects.js';
import type { ResourceKind } from './resources.js';

/** What a Namespace event did to the selection. */
export type NamespaceTransition = 'started-matching' | 'stopped-matching' | 'unchanged';

/**
 * Namespaces selected by labels, and the objects of `kinds` held back because their namespace is
 * not (yet) selected. A namespace not seen yet does not match: its objects wait for it.
 */
export class NamespaceFilter {
  private readonly matching = new Set<string>();
  /** namespace → kind → key → object. */
  private readonly held = new Map<string, Map<ResourceKind, Map<string, KubeObject>>>();

  constructor(
    private readonly requirements: readonly LabelRequirement[],
    private readonly kinds: ReadonlySet<ResourceKind>,
  ) {}

  /** Whether objects of `kind` in `namespace` are kept out of the snapshot. */
  isHidden(kind: ResourceKind, namespace: string | undefined): boolean {
    return namespace !== undefined && this.kinds.has(kind) && !this.matching.has(namespace);
  }

  /** Whether objects of `kind` are filtered at all. */
  isFiltered(kind: ResourceKind): boolean {
    return this.kinds.has(kind);
  }

  /** Records a Namespace (undefined labels: it was deleted) and says whether its selection changed. */
  updateNamespace(name: string, labels: Readonly<Record<string, string>> | undefined): NamespaceTransition {
    const was = this.matching.has(name);
    const is = labels !== undefined && matchesLabels(this.requirements, labels);
    if (was === is) return 'unchanged';
    if (is) this.matching.add(name);
    else this.matching.delete(name);
    return is ? 'started-matching' : 'stopped-matching';
  }

  /** Holds `object` (key `key`) of `kind` in `namespace` back, replacing an older held version. */
  hold(kind: ResourceKind, namespace: string, key: string, object: KubeObject): void {
    let byKind = this.held.get(namespace);
    if (byKind === undefined) {
      byKind = new Map<ResourceKind, Map<string, KubeObject>>();
      this.held.set(namespace, byKind);
    }
    let objects = byKind.get(kind);
    if (objects === undefined) {
      objects = new Map<string, KubeObject>();
      byKind.set(kind, objects);
    }
    objects.set(key, object);
  }

  /** Forgets a held object (it was deleted, or it is about to be shown). */
  forget(kind: ResourceKind, namespace: string, key: string): void {
    const byKind = this.held.get(namespace);
    const objects = byKind?.get(kind);
    if (byKind === undefined || objects === undefined || !objects.delete(key)) return;
    if (objects.size === 0) byKind.delete(kind);
    if (byKind.size === 0) this.held.delete(namespace);
  }

  /** Keys of the held objects of `kind`, in `namespace` or in every namespace. */
  heldKeys(kind: ResourceKind, namespace: string | undefined): string[] {
    const namespaces = namespace === undefined ? [...this.held.keys()] : [namespace];
    return namespaces.flatMap((name) => [...(this.held.get(name)?.get(kind)?.keys() ?? [])]);
  }

  /** Removes and returns every object held back in `namespace`, kind by kind. */
  release(namespace: string): [ResourceKind, KubeObject][] {
    const byKind = this.held.get(namespace);
    this.held.delete(namespace);
    if (byKind === undefined) return [];
    return [...byKind].flatMap(([kind, objects]) =>
      [...objects.values()].map((object): [ResourceKind, KubeObject] => [kind, object]),
    );
  }
}
