/**
 * The store's key of an object: `namespace/name`, or `name` for cluster-scoped objects. The same
 * format as client-go's MetaNamespaceKeyFunc, so keys can be handed to a work queue as they are.
 */
export function objectKey(metadata: { readonly namespace?: string; readonly name: string }): string {
  return metadata.namespace ? `${metadata.namespace}/${metadata.name}` : metadata.name;
}

/** The key of `name` in `namespace` (a reference written inside an object of that namespace). */
export function namespacedKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** The namespace part of a key, or undefined for cluster-scoped keys. */
export function namespaceOfKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash < 0 ? undefined : key.slice(0, slash);
}
