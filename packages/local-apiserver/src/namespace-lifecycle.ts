/**
 * Namespace lifecycle, standing in for kube's NamespaceLifecycle admission and namespace
 * controller: no new content in a terminating namespace; a deleted namespace is emptied, then
 * removed once it holds nothing and has no finalizers left.
 */
import type { Entry } from './entries.js';
import { buildFailureStatus, buildNotFoundStatus, failWith } from './errors.js';
import type { Bucket, CommitListener, ObjectStore } from './object-store.js';
import type { JsonObject } from './objects.js';
import { lowerBound } from './paging.js';
import type { ResourceDefinition } from './resource-definition.js';

/** The storage id of Namespaces. */
export const namespaceStorage = 'namespaces';

/** Deletes one object as a client's DELETE would (finalizers and all), without a dry run. */
export type DeleteContent = (bucket: Bucket, entry: Entry) => void;

/** Admission and finalisation of namespaces over `store`; content is deleted through `deleteContent`. */
export class NamespaceLifecycle {
  constructor(
    private readonly store: ObjectStore,
    private readonly deleteContent: DeleteContent,
  ) {}

  /** The commit listener: a deletion inside a terminating namespace may be the last one it waits for. */
  readonly onCommit: CommitListener = (bucket, type, entry) => {
    const namespace = entry.object.metadata.namespace;
    if (type === 'DELETED' && bucket.namespaced && namespace !== undefined) this.finalize(namespace);
  };

  /** A 404 when `namespace` does not exist, a 403 `Forbidden` while it is being terminated. */
  checkWritable(definition: ResourceDefinition, namespace: string, name: string): void {
    const entry = this.store.findBucket(namespaceStorage)!.objects.get(namespace);
    if (!entry)
      failWith(buildNotFoundStatus({ group: '', plural: 'namespaces', kind: 'Namespace' }, namespace));
    if (!entry.object.metadata.deletionTimestamp) return;
    const message = `unable to create new content in namespace ${namespace} because it is being terminated`;
    const details: JsonObject = { name };
    if (definition.group !== '') details.group = definition.group;
    details.kind = definition.plural;
    details.causes = [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }];
    const resource = definition.group === '' ? definition.plural : `${definition.plural}.${definition.group}`;
    failWith(buildFailureStatus(403, `${resource} "${name}" is forbidden: ${message}`, 'Forbidden', details));
  }

  /** Deletes everything in the namespace just marked deleting; returns its latest entry (DELETED once empty). */
  terminate(namespace: Entry): Entry {
    const name = namespace.key;
    const prefix = `${name}/`;
    for (const storage of this.store.listBuckets()) {
      if (!storage.namespaced) continue;
      const keys = storage.keys();
      const doomed: Entry[] = [];
      for (let i = lowerBound(keys, prefix); i < keys.length && keys[i]!.startsWith(prefix); i++) {
        const entry = storage.objects.get(keys[i]!);
        if (entry) doomed.push(entry);
      }
      for (const entry of doomed) this.deleteContent(storage, entry);
    }
    return this.finalize(name) ?? namespace;
  }

  /** Removes the namespace `name` if it is deleting, empty and without finalizers; returns its latest entry. */
  finalize(name: string): Entry | undefined {
    const namespaces = this.store.findBucket(namespaceStorage)!;
    const entry = namespaces.objects.get(name);
    if (!entry?.object.metadata.deletionTimestamp) return entry;
    if (this.store.countInNamespace(name) > 0) return entry;
    if ((entry.object.metadata.finalizers ?? []).length > 0) return entry;
    return this.store.commit(
      namespaces,
      'DELETED',
      { ...entry.object, metadata: { ...entry.object.metadata } },
      entry,
    );
  }
}
