/**
 * The HTTP status of a failed @kubernetes/client-node call (`ApiException.code`), or undefined for
 * network errors and anything else. Duck-typed so fakes need not construct an ApiException.
 */
export function statusCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = error.code;
  return typeof code === 'number' ? code : undefined;
}

/** Wraps a thrown value into an Error so events and results always carry one. */
export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
