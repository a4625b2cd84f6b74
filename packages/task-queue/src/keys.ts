/** The smallest shape a key can be made from: any Kubernetes object's metadata. */
export interface ObjectWithMetadata {
  metadata?: { name?: string; namespace?: string } | undefined;
}

/** client-go's MetaNamespaceKeyFunc: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(object: ObjectWithMetadata): string {
  const name = object.metadata?.name;
  if (!name) throw new TypeError('cannot make a key: the object has no metadata.name');
  const namespace = object.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** Inverse of {@link objectKey}: `{ namespace, name }`, namespace undefined for cluster-scoped keys. */
export function splitObjectKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  if (slash === -1) return { namespace: undefined, name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
