/** Ids found on one side only; each list sorted like the checksum input. */
export interface IdDiff {
  /** Ids this controller computed that the checksum object does not list. */
  localOnly: string[];
  /** Ids the checksum object lists that this controller did not compute. */
  publishedOnly: string[];
}

/**
 * Both directions of difference between the locally computed ids and a checksum object's ids.
 * Duplicates count: an id present twice locally but once in the object appears once in
 * `localOnly`, so a checksum mismatch caused by a duplicate never shows an empty diff.
 */
export function diffIds(localIds: Iterable<string>, publishedIds: Iterable<string>): IdDiff {
  const remaining = new Map<string, number>();
  for (const id of publishedIds) remaining.set(id, (remaining.get(id) ?? 0) + 1);

  const localOnly: string[] = [];
  for (const id of localIds) {
    const count = remaining.get(id) ?? 0;
    if (count === 0) localOnly.push(id);
    else remaining.set(id, count - 1);
  }

  const publishedOnly: string[] = [];
  for (const [id, count] of remaining) {
    for (let i = 0; i < count; i++) publishedOnly.push(id);
  }
  return { localOnly: localOnly.sort(), publishedOnly: publishedOnly.sort() };
}
