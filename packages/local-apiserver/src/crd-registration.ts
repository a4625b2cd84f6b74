/**
 * CRD-driven resource registration: each committed CustomResourceDefinition (re)registers its
 * served versions; one that is deleted or serves nothing stops them and drops their objects.
 */
import { crdStorage, defineCrdResources } from './crd.js';
import type { CommitListener, ObjectStore } from './object-store.js';
import type { ResourceCatalog } from './resource-catalog.js';

/** A commit listener that keeps `catalog` and `store` in step with the stored CRDs. */
export function createCrdRegistration(catalog: ResourceCatalog, store: ObjectStore): CommitListener {
  return (bucket, type, entry) => {
    if (bucket.id !== crdStorage) return;
    // A CRD's name is its storage id (`plural.group`), so the entry key names the storage.
    const storage = entry.key;
    const next = type === 'DELETED' ? [] : defineCrdResources(entry.object);
    for (const definition of catalog.listOfStorage(storage)) {
      if (!next.some((candidate) => candidate.version === definition.version)) catalog.unregister(definition);
    }
    for (const definition of next) catalog.register(definition);
    if (next.length === 0) store.closeBucket(storage);
  };
}
