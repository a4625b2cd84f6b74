import { createHash } from 'node:crypto';

/**
 * Tengine-Ingress's global checksum: lowercase hex md5 of the ids sorted by UTF-16 code unit
 * (byte order for the ASCII ids in use) and joined with `,`. Never sort numerically or by locale:
 * Tengine's Go code uses sort.Strings, so "10-1" < "123992-1" < "9-1".
 */
export function computeChecksum(ids: Iterable<string>): string {
  const sorted = [...ids].sort();
  return createHash('md5').update(sorted.join(','), 'utf8').digest('hex');
}
