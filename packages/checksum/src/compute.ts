/** The checksum itself: the md5 of the sorted ids, exactly as Tengine-Ingress computes it. */
import { md5Hex } from './md5.js';

/**
 * Tengine-Ingress's global checksum: lowercase hex md5 of the ids sorted by UTF-16 code unit
 * (byte order for the ASCII ids in use) and joined with `,`. Never sort numerically or by locale:
 * Tengine's Go code uses sort.Strings, so "10-1" < "123992-1" < "9-1". Duplicates are kept.
 */
export function computeChecksum(ids: Iterable<string>): string {
  return hashSortedIds([...ids].sort());
}

/** md5 of ids that are already sorted; callers that need the sorted copy too avoid a second sort. */
export function hashSortedIds(sortedIds: readonly string[]): string {
  return md5Hex(sortedIds.join(','));
}
