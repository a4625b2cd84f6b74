/**
 * Reads one page of a list from a bucket: at the planned resourceVersion (older states rebuilt
 * from history), in key order, filtered, with the continue token and count for the rest.
 */
import type { Entry } from './entries.js';
import { buildExpiredStatus, failWith } from './errors.js';
import { matchesFilter, type ObjectFilter } from './object-filter.js';
import type { Bucket } from './object-store.js';
import { encodeContinueToken, lowerBound, namespaceRange, planListRead, type ListQuery } from './paging.js';

/** One page of a list: entries in key order, the list resourceVersion and the paging fields. */
export interface ListResult {
  entries: Entry[];
  resourceVersion: number;
  continueToken?: string;
  remainingItemCount?: number;
}

/** The `metadata` of a list answer: its resourceVersion and, when paged, `continue` and `remainingItemCount`. */
export function listMetadataOf(
  list: Pick<ListResult, 'resourceVersion' | 'continueToken' | 'remainingItemCount'>,
): Record<string, string | number> {
  const metadata: Record<string, string | number> = { resourceVersion: String(list.resourceVersion) };
  if (list.continueToken !== undefined) metadata.continue = list.continueToken;
  if (list.remainingItemCount !== undefined) metadata.remainingItemCount = list.remainingItemCount;
  return metadata;
}

/** Lists with kube-apiserver's resourceVersion, resourceVersionMatch, limit and continue semantics. */
export function readListPage(
  bucket: Bucket,
  filter: ObjectFilter,
  query: ListQuery,
  currentRv: number,
): ListResult {
  const { atRv, startKey, limit } = planListRead(query, currentRv, (rv) => bucket.history.covers(rv));
  const view = viewAt(bucket, atRv);
  const keys = view.keys;
  const [first, end] = rangeOf(keys, bucket.namespaced ? filter.namespace : undefined, filter);
  let index = first;
  if (startKey !== undefined) index = Math.max(index, lowerBound(keys, startKey));
  const hasSelectors = filter.labels.length > 0 || filter.fields.length > 0;
  const entries: Entry[] = [];
  let lastKey: string | undefined;
  for (; index < end; index++) {
    if (limit > 0 && entries.length >= limit) break;
    const entry = view.lookup(keys[index]!);
    if (!entry) continue;
    lastKey = entry.key;
    if (hasSelectors && !matchesFilter(entry, filter)) continue;
    entries.push(entry);
  }
  const result: ListResult = { entries, resourceVersion: atRv };
  if (limit > 0 && index < end && lastKey !== undefined) {
    result.continueToken = encodeContinueToken(atRv, `${lastKey}\u0000`);
    if (!hasSelectors) result.remainingItemCount = end - index;
  }
  return result;
}

/**
 * The `[start, end)` range of sorted keys a list scans: one namespace's, or all; only the one key
 * when the field selector names the object (`metadata.name=x` in a namespace), as kube-apiserver
 * reads a single key for such a list.
 */
function rangeOf(
  keys: readonly string[],
  namespace: string | undefined,
  filter: ObjectFilter,
): [number, number] {
  const name = filter.fields.find(
    (requirement) => requirement.field === 'metadata.name' && requirement.operator === 'equals',
  )?.value;
  if (name === undefined || namespace === undefined) return namespaceRange(keys, namespace);
  const index = lowerBound(keys, `${namespace}/${name}`);
  return keys[index] === `${namespace}/${name}` ? [index, index + 1] : [index, index];
}

function viewAt(bucket: Bucket, rv: number): { keys: string[]; lookup: (key: string) => Entry | undefined } {
  if (rv >= bucket.lastRv) return { keys: bucket.keys(), lookup: (key) => bucket.objects.get(key) };
  if (!bucket.history.covers(rv))
    failWith(buildExpiredStatus('The resourceVersion for the provided list is too old.'));
  // Undo the newer events, newest first, so each key ends at its state as of `rv`.
  const overlay = new Map<string, Entry | null>();
  for (const event of bucket.history.afterNewestFirst(rv))
    overlay.set(event.entry.key, event.previous ?? null);
  const keys = new Set(bucket.keys());
  for (const key of overlay.keys()) keys.add(key);
  return {
    keys: [...keys].sort(),
    lookup: (key) => {
      const undone = overlay.get(key);
      return undone === undefined ? bucket.objects.get(key) : (undone ?? undefined);
    },
  };
}
