/** The one object key of the project: client-go's `namespace/name` (or `name`), made and taken apart. */
import { flatString } from './flat-string.js';

/** The smallest shape a key can be made from: any Kubernetes object's metadata. */
export interface ObjectWithMetadata {
  metadata?: { name?: string; namespace?: string } | undefined;
}

/**
 * The key of `name` in `namespace`: `namespace/name`, or `name` when the namespace is empty or
 * undefined (cluster-scoped). A flat string, since keys live as long as their objects.
 */
export function namespacedKey(namespace: string | undefined, name: string): string {
  return namespace ? flatString(`${namespace}/${name}`) : name;
}

/** client-go's MetaNamespaceKeyFunc: {@link namespacedKey} of the object's metadata; throws without a name. */
export function objectKey(object: ObjectWithMetadata): string {
  const name = object.metadata?.name;
  if (!name) throw new TypeError('cannot make a key: the object has no metadata.name');
  return namespacedKey(object.metadata?.namespace, name);
}

/** Inverse of {@link objectKey}: `{ namespace, name }`, namespace undefined for cluster-scoped keys. */
export function splitObjectKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  if (slash === -1) return { namespace: undefined, name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
