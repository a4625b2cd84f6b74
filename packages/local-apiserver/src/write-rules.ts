/**
 * What an update may change: the metadata kept from the stored object, when the generation moves,
 * and which finalizers it may add.
 */
import { isDeepEqual, type KubeObject, type ObjectMeta } from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';

/**
 * The metadata an update stores: the request's, with the fields a client cannot change taken
 * from the stored object (name, namespace, uid, creationTimestamp, generation, deletion marks).
 * Omitted managedFields keep the stored ones, as kube-apiserver treats "not sent" as "unchanged".
 */
export function mergeUpdateMetadata(incoming: ObjectMeta, old: ObjectMeta): ObjectMeta {
  const meta: ObjectMeta = { ...incoming };
  meta.name = old.name;
  if (old.namespace !== undefined) meta.namespace = old.namespace;
  meta.uid = old.uid;
  meta.creationTimestamp = old.creationTimestamp;
  if (old.generation !== undefined) meta.generation = old.generation;
  else delete meta.generation;
  if (old.deletionTimestamp !== undefined) {
    meta.deletionTimestamp = old.deletionTimestamp;
    meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  } else {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  if (!('managedFields' in incoming) && old.managedFields !== undefined)
    meta.managedFields = old.managedFields;
  if (Array.isArray(meta.managedFields) && meta.managedFields.length === 0) delete meta.managedFields;
  if (Array.isArray(meta.finalizers) && meta.finalizers.length === 0) delete meta.finalizers;
  delete meta.selfLink;
  return meta;
}

/** True when an update must bump `metadata.generation` under the resource's rule. */
export function isGenerationChange(
  definition: ResourceDefinition,
  before: KubeObject,
  after: KubeObject,
): boolean {
  if (definition.generation === 'none') return false;
  if (definition.generation === 'spec') return !isDeepEqual(before.spec, after.spec);
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    if (key === 'metadata' || key === 'apiVersion' || key === 'kind') continue;
    if (key === 'status' && definition.hasStatus) continue;
    if (!isDeepEqual(before[key], after[key])) return true;
  }
  return false;
}

/** Finalizers in `next` that `old` did not have (forbidden once an object is being deleted). */
export function findNewFinalizers(old: ObjectMeta, next: ObjectMeta): string[] {
  const before = new Set(old.finalizers ?? []);
  return (next.finalizers ?? []).filter((finalizer) => !before.has(finalizer));
}
