/**
 * creationTimestamps read and ordered as the API server orders them, so the default class picked
 * here is the one it would pick.
 */
import type { Timestamp } from './types.js';

/** A point in time split so that string timestamps keep their sub-millisecond digits. */
export interface Instant {
  readonly ms: number;
  /** Nanoseconds past `ms`, 0–999,999 (only strings with more than three fraction digits have any). */
  readonly nanos: number;
}

// RFC 3339 as Kubernetes writes metav1.Time; case-sensitive like Go's time.RFC3339 layout.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Reads a creationTimestamp from a `Date` or an RFC 3339 string; undefined when it is missing or invalid
 * (including calendar errors such as February 30, which `Date.parse` would silently roll over).
 */
export function parseTimestamp(value: Timestamp | null | undefined): Instant | undefined {
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isNaN(ms) ? undefined : { ms, nanos: 0 };
  }
  if (typeof value !== 'string') return undefined;
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', zone, zoneHour, zoneMinute] = match;
  if (
    !isInRange(month, 1, 12) ||
    !isInRange(day, 1, countDaysInMonth(Number(year), Number(month))) ||
    !isInRange(hour, 0, 23) ||
    !isInRange(minute, 0, 59) ||
    !isInRange(second, 0, 59) ||
    (zoneHour !== undefined && !isInRange(zoneHour, 0, 23)) ||
    (zoneMinute !== undefined && !isInRange(zoneMinute, 0, 59))
  ) {
    return undefined;
  }
  const digits = fraction.padEnd(9, '0');
  const ms = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}.${digits.slice(0, 3)}${zone}`);
  return Number.isNaN(ms) ? undefined : { ms, nanos: Number(digits.slice(3)) };
}

/**
 * Orders two instants newest first; a missing or invalid one counts as the oldest, as Go's zero
 * time does in the API server's comparison.
 */
export function compareNewestFirst(a: Instant | undefined, b: Instant | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  return b.ms - a.ms || b.nanos - a.nanos;
}

function isInRange(text: string | undefined, min: number, max: number): boolean {
  const value = Number(text);
  return value >= min && value <= max;
}

function countDaysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
