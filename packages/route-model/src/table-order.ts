/**
 * The order of the route table builder's output: tables and deltas sorted by hostname or id, so
 * equal contents give equal output whatever order the changes came in.
 */
import { compareText as compareKeys } from './precedence.js';
import type { RouteTableDelta } from './types.js';

/** The values of `map` in the order of their keys. */
export function sortValuesByKey<T>(map: ReadonlyMap<string, T>): T[] {
  return [...map.keys()].sort(compareKeys).map((key) => map.get(key)!);
}

/** Sorts every upsert and remove list of `delta` in place, by hostname or id. */
export function sortDelta(delta: RouteTableDelta): void {
  delta.virtualHosts.upsert.sort((a, b) => compareKeys(a.hostname, b.hostname));
  delta.tls.upsert.sort((a, b) => compareKeys(a.hostname, b.hostname));
  delta.certificates.upsert.sort((a, b) => compareKeys(a.id, b.id));
  delta.backends.upsert.sort((a, b) => compareKeys(a.id, b.id));
  for (const part of [delta.virtualHosts, delta.tls, delta.certificates, delta.backends])
    part.remove.sort(compareKeys);
}
