/** Opens a watch on a bucket: replays what the watcher missed, then registers it for live events. */
import { serializeEntry } from './entries.js';
import { buildExpiredStatus, failWith } from './errors.js';
import { lineFor, type WatchSubscriber } from './fan-out.js';
import { matchesFilter } from './object-filter.js';
import type { Bucket } from './object-store.js';
import { namespaceRange, parseResourceVersion } from './paging.js';
import type { ResourceDefinition } from './resource-definition.js';

/**
 * Starts a watch: replays what the subscriber missed (all current objects as ADDED for an unset
 * or "0" resourceVersion, history events after N otherwise), then streams live changes. Throws
 * 410 `Expired` when N is older than the kept history; the HTTP layer turns that into an ERROR event.
 * Returns the function that stops the watch.
 */
export function subscribeWatch(
  bucket: Bucket,
  definition: ResourceDefinition,
  resourceVersion: string | undefined,
  subscriber: WatchSubscriber,
): () => void {
  const filter = subscriber.filter;
  if (resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0') {
    const keys = bucket.keys();
    const [start, end] = namespaceRange(keys, bucket.namespaced ? filter.namespace : undefined);
    const batch: string[] = [];
    for (let index = start; index < end; index++) {
      const entry = bucket.objects.get(keys[index]!);
      if (!entry || !matchesFilter(entry, filter)) continue;
      batch.push(`{"type":"ADDED","object":${serializeEntry(entry, definition)}}\n`);
      if (batch.length >= 256) subscriber.write(batch.splice(0).join(''));
    }
    if (batch.length > 0) subscriber.write(batch.join(''));
  } else {
    const from = parseResourceVersion(resourceVersion);
    if (!bucket.history.covers(from)) {
      failWith(buildExpiredStatus(`too old resource version: ${from} (${bucket.history.compactedRv})`));
    }
    for (const event of bucket.history.after(from)) {
      const chunk = lineFor(event, subscriber);
      if (chunk) subscriber.write(chunk);
    }
  }
  bucket.subscribers.add(subscriber);
  return () => {
    bucket.subscribers.delete(subscriber);
  };
}
