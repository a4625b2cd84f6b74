/**
 * The store's key of an object: `namespace/name`, or `name` for cluster-scoped objects. The same
 * format as client-go's MetaNamespaceKeyFunc, so keys can be handed to a work queue as they are.
 */
export function objectKey(metadata: { readonly namespace?: string; readonly name: string }): string {
  return metadata.namespace ? `${metadata.namespace}/${metadata.name}` : metadata.name;
}

/** The key of `name` in `namespace` (a reference written inside an object of that namespace). */
export function namespacedKey(namespace: string | undefined, name: string): string {
  // Keys live as long as their objects: a flat string costs a third of the tree of pieces a
  // template literal makes, and a JSON round trip is the portable way to get one.
  return namespace ? (JSON.parse(JSON.stringify(`${namespace}/${name}`)) as string) : name;
}

/** The namespace part of a key, or undefined for cluster-scoped keys. */
export function namespaceOfKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash < 0 ? undefined : key.slice(0, slash);
}
