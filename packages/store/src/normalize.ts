/**
 * Turns any object the Kubernetes client hands out into plain JSON. Informer caches mix listed
 * model instances (timestamps as `Date`) with watched raw JSON (timestamps as strings)
 * (kubernetes-client/javascript #655); after this every timestamp is an RFC 3339 string.
 */
export function normalizeObject<T>(object: T): T {
  return JSON.parse(JSON.stringify(object, dateToKubernetesTime)) as T;
}

function dateToKubernetesTime(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Date) return original.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return value;
}
