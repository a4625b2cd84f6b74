/** Creation timestamps as route-model origins rank them. */

/**
 * Milliseconds since the epoch of a creationTimestamp (a `Date` or an RFC 3339 string). A missing
 * or invalid one is `Infinity`: route-model sorts it after every known time, so an object without
 * a valid timestamp never wins a conflict.
 */
export function toMillis(value: unknown): number {
  const millis =
    value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(millis) ? Number.POSITIVE_INFINITY : millis;
}
