/** Reading objects as a user or the API server wrote them, before their fields are checked. */

/** `value` when it is an object (fields still unchecked), else an empty one. */
export function objectOr<T extends object>(value: unknown): Partial<T> {
  return typeof value === 'object' && value !== null ? value : {};
}
