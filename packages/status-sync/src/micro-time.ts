/**
 * Formats a Kubernetes MicroTime (Lease `acquireTime`/`renewTime`) with exactly six fractional
 * digits. A `Date` serializes with three, which a real API server rejects with 400.
 */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
