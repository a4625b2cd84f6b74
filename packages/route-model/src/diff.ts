/**
 * Per-key deltas between route tables: what a data plane must upsert and remove to go from one
 * table to the next, host by host, so a change to one host costs the same at any table size.
 */
import { isDeepEqual } from './equal.js';
import type { Listener, RouteTable, RouteTableDelta } from './types.js';

type Keyed = { virtualHosts: 'hostname'; tls: 'hostname'; certificates: 'id'; backends: 'id' };
const KEYS: Keyed = { virtualHosts: 'hostname', tls: 'hostname', certificates: 'id', backends: 'id' };

/** A delta that changes nothing. */
export function createEmptyDelta(): RouteTableDelta {
  return {
    virtualHosts: { upsert: [], remove: [] },
    tls: { upsert: [], remove: [] },
    certificates: { upsert: [], remove: [] },
    backends: { upsert: [], remove: [] },
  };
}

/** Whether `delta` changes nothing. */
export function isEmptyDelta(delta: RouteTableDelta): boolean {
  return (
    delta.listeners === undefined &&
    (Object.keys(KEYS) as (keyof Keyed)[]).every(
      (part) => delta[part].upsert.length === 0 && delta[part].remove.length === 0,
    )
  );
}

function diffPart<T extends object>(
  previous: readonly T[],
  next: readonly T[],
  key: keyof T,
): { upsert: T[]; remove: string[] } {
  const before = new Map(previous.map((entry) => [String(entry[key]), entry]));
  const upsert: T[] = [];
  const seen = new Set<string>();
  for (const entry of next) {
    const id = String(entry[key]);
    seen.add(id);
    const old = before.get(id);
    if (old === undefined || !isDeepEqual(old, entry)) upsert.push(entry);
  }
  const remove = [...before.keys()].filter((id) => !seen.has(id)).sort();
  return { upsert, remove };
}

/**
 * The delta that turns `previous` (undefined: an empty table) into `next`: every virtual host,
 * TLS binding, certificate and backend that is new or different is upserted, every one that is
 * gone is removed, and the listeners come along when they differ.
 */
export function diffRouteTables(previous: RouteTable | undefined, next: RouteTable): RouteTableDelta {
  const delta: RouteTableDelta = {
    virtualHosts: diffPart(previous?.virtualHosts ?? [], next.virtualHosts, KEYS.virtualHosts),
    tls: diffPart(previous?.tls ?? [], next.tls, KEYS.tls),
    certificates: diffPart(previous?.certificates ?? [], next.certificates, KEYS.certificates),
    backends: diffPart(previous?.backends ?? [], next.backends, KEYS.backends),
  };
  if (!isDeepEqual(previous?.listeners ?? [], next.listeners)) delta.listeners = next.listeners;
  return delta;
}

function applyPart<T extends object>(
  entries: readonly T[],
  change: { upsert: readonly T[]; remove: readonly string[] },
  key: keyof T,
): T[] {
  const byKey = new Map(entries.map((entry) => [String(entry[key]), entry]));
  for (const id of change.remove) byKey.delete(id);
  for (const entry of change.upsert) byKey.set(String(entry[key]), entry);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry);
}

/** Applies `delta` to `table` and returns the new table (the input is not changed). */
export function applyRouteTableDelta(table: RouteTable, delta: RouteTableDelta): RouteTable {
  const listeners: Listener[] = delta.listeners ?? table.listeners;
  return {
    listeners,
    virtualHosts: applyPart(table.virtualHosts, delta.virtualHosts, KEYS.virtualHosts),
    tls: applyPart(table.tls, delta.tls, KEYS.tls),
    certificates: applyPart(table.certificates, delta.certificates, KEYS.certificates),
    backends: applyPart(table.backends, delta.backends, KEYS.backends),
  };
}
