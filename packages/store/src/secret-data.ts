/**
 * Secrets the store knows of without holding their data. A Secret nothing wants (no Ingress or
 * Gateway references it, it is not kept on request) is shaped as its identity and version only,
 * right after its list page or watch event is parsed: a namespace's Secrets referenced by nothing
 * then cost a key and a resourceVersion each, whatever their size or type, and the state reads a
 * Secret whole once something starts referencing it.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import type { KubeObject } from './objects.js';

/** The Secrets shaped by {@link shapeSecretWithoutData}: a mark that does not change their shape. */
const withoutData = new WeakSet<KubeObject>();

/**
 * Shapes a freshly parsed Secret: whole (by `shapeWhole`) when `isWanted` says its key is wanted,
 * else without its data. Undefined for an object without a name, as `shapeWhole` gives.
 */
export function shapeSecret(
  raw: unknown,
  isWanted: (key: string) => boolean,
  shapeWhole: (raw: unknown) => KubeObject | undefined,
): KubeObject | undefined {
  const metadata = (raw as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
  if (typeof metadata?.name !== 'string') return undefined;
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : undefined;
  return isWanted(namespacedKey(namespace, metadata.name)) ? shapeWhole(raw) : shapeSecretWithoutData(raw);
}

/**
 * A Secret as its name, namespace and resourceVersion only (frozen), marked as shaped without its
 * data. Undefined when `raw` has no name.
 */
export function shapeSecretWithoutData(raw: unknown): KubeObject | undefined {
  const metadata = (raw as { metadata?: Record<string, unknown> } | null)?.metadata;
  if (typeof metadata?.name !== 'string') return undefined;
  const resourceVersion = typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '';
  const secret: KubeObject = Object.freeze({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: Object.freeze(
      typeof metadata.namespace === 'string'
        ? { name: metadata.name, namespace: metadata.namespace, resourceVersion }
        : { name: metadata.name, resourceVersion },
    ),
  });
  withoutData.add(secret);
  return secret;
}

/** Whether `secret` was shaped without its data (it must be read again to be used). */
export function isSecretWithoutData(secret: KubeObject): boolean {
  return withoutData.has(secret);
}

/** The characters of data a stored Secret holds: the length of its base64 values. */
export function measureSecretData(secret: KubeObject): number {
  const data = (secret as { data?: unknown }).data;
  if (typeof data !== 'object' || data === null) return 0;
  let size = 0;
  for (const value of Object.values(data)) if (typeof value === 'string') size += value.length;
  return size;
}
