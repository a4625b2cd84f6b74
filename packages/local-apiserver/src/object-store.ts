/**
 * Object storage and resourceVersions: the objects of every storage, one global resourceVersion
 * counter, bounded per-storage history, and the commit that records a change and fans it out.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import { makeEntry, type ChangeType, type Entry } from './entries.js';
import { buildNotFoundStatus, failWith } from './errors.js';
import { publishEvent, type StoredEvent, type WatchSubscriber } from './fan-out.js';
import { HistoryRing } from './history.js';
import { scopeOf } from './object-filter.js';
import type { KubeObject } from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';

/** The objects, history and watches of one storage (shared by every served version of a resource). */
export class Bucket {
  /** Live objects by `namespace/name` (cluster-scoped: `name`). */
  readonly objects = new Map<string, Entry>();
  readonly subscribers = new Set<WatchSubscriber>();
  readonly history: HistoryRing<StoredEvent>;
  /** The resourceVersion of the newest change to this storage. */
  lastRv = 0;
  private sortedKeys: string[] | undefined = [];

  constructor(
    readonly id: string,
    public namespaced: boolean,
    historyLimit: number,
  ) {
    this.history = new HistoryRing<StoredEvent>(historyLimit);
  }

  /** The keys of `objects` in sorted order; sorted again only after a key was added or removed. */
  keys(): string[] {
    this.sortedKeys ??= [...this.objects.keys()].sort();
    return this.sortedKeys;
  }

  /** Records one committed change: the live object, the sorted keys, the history and `lastRv`. */
  record(event: StoredEvent): void {
    const key = event.entry.key;
    if (event.type === 'DELETED') {
      this.objects.delete(key);
      this.sortedKeys = undefined;
    } else {
      if (event.type === 'ADDED') this.sortedKeys = undefined;
      this.objects.set(key, event.entry);
    }
    this.history.push(event);
    this.lastRv = event.rv;
  }
}

/** Called after each commit, once its watchers have the event; listeners run in registration order. */
export type CommitListener = (bucket: Bucket, type: ChangeType, entry: Entry) => void;

/**
 * Every storage's bucket and the resourceVersion counter. Commits are synchronous: a commit's
 * listeners (CRD registration, namespace finalisation) may commit again before it returns.
 */
export class ObjectStore {
  private rv = 0;
  private readonly buckets = new Map<string, Bucket>();
  // Objects per namespace, so finalising a namespace need not scan every storage on each deletion.
  private readonly namespaceCounts = new Map<string, number>();
  private readonly listeners: CommitListener[] = [];

  constructor(private readonly historyLimit: number) {}

  /** The latest resourceVersion handed out. */
  currentResourceVersion(): number {
    return this.rv;
  }

  /** Adds `listener` to the ones called after every commit. */
  onCommit(listener: CommitListener): void {
    this.listeners.push(listener);
  }

  /** The bucket of `storage`, created empty when missing; its scope follows the latest definition. */
  openBucket(storage: string, namespaced: boolean): Bucket {
    let bucket = this.buckets.get(storage);
    if (bucket) bucket.namespaced = namespaced;
    else {
      bucket = new Bucket(storage, namespaced, this.historyLimit);
      this.buckets.set(storage, bucket);
    }
    return bucket;
  }

  /** Drops the bucket of `storage` with its objects (no events) and ends its watches. */
  closeBucket(storage: string): void {
    const bucket = this.buckets.get(storage);
    if (!bucket) return;
    this.buckets.delete(storage);
    for (const subscriber of bucket.subscribers) subscriber.end();
    bucket.subscribers.clear();
    if (!bucket.namespaced) return;
    for (const entry of bucket.objects.values()) this.countIn(entry.object.metadata.namespace, -1);
  }

  /** Every open bucket, in the order the storages were opened. */
  listBuckets(): Iterable<Bucket> {
    return this.buckets.values();
  }

  /** The bucket of `storage`, if it is open. */
  findBucket(storage: string): Bucket | undefined {
    return this.buckets.get(storage);
  }

  /** The bucket serving `definition`, or a 404 `NotFound` (its CRD went away mid-request). */
  bucketOf(definition: ResourceDefinition): Bucket {
    const bucket = this.buckets.get(definition.storage);
    if (!bucket) failWith(buildNotFoundStatus(definition, ''));
    return bucket;
  }

  /** The live entry, or undefined. */
  find(definition: ResourceDefinition, namespace: string | undefined, name: string): Entry | undefined {
    return this.bucketOf(definition).objects.get(namespacedKey(scopeOf(definition, namespace), name));
  }

  /** The live entry, or a 404 `NotFound`. */
  get(definition: ResourceDefinition, namespace: string | undefined, name: string): Entry {
    const entry = this.find(definition, namespace, name);
    if (!entry) failWith(buildNotFoundStatus(definition, name));
    return entry;
  }

  /** The live objects of `storage` (none when it is not open). */
  *listObjects(storage: string): Iterable<KubeObject> {
    const bucket = this.buckets.get(storage);
    if (!bucket) return;
    for (const entry of bucket.objects.values()) yield entry.object;
  }

  /** How many objects live in `namespace`, over every namespaced storage. */
  countInNamespace(namespace: string): number {
    return this.namespaceCounts.get(namespace) ?? 0;
  }

  /** The number of open watches. */
  countWatches(): number {
    let count = 0;
    for (const bucket of this.buckets.values()) count += bucket.subscribers.size;
    return count;
  }

  /** Ends every open watch cleanly; clients reconnect from their last resourceVersion. */
  dropWatches(): number {
    let dropped = 0;
    for (const bucket of this.buckets.values()) {
      for (const subscriber of [...bucket.subscribers]) {
        bucket.subscribers.delete(subscriber);
        subscriber.end();
        dropped += 1;
      }
    }
    return dropped;
  }

  /**
   * Forgets all history: watches, exact lists and continue tokens from any resourceVersion issued
   * so far get 410 Expired. The counter moves on by one so a fresh list's resourceVersion is valid.
   */
  expireHistory(): void {
    this.rv += 1;
    for (const bucket of this.buckets.values()) bucket.history.compact(this.rv);
  }

  /**
   * Stores `object` (mutated: it gets the next resourceVersion) as an ADDED, MODIFIED or DELETED
   * change, sends it to the bucket's watches, then runs the commit listeners. Returns the new entry.
   */
  commit(bucket: Bucket, type: ChangeType, object: KubeObject, previous: Entry | undefined): Entry {
    const rv = ++this.rv;
    object.metadata.resourceVersion = String(rv);
    const key = namespacedKey(object.metadata.namespace, object.metadata.name ?? '');
    const entry = makeEntry(key, object, rv);
    if (bucket.namespaced && type !== 'MODIFIED')
      this.countIn(object.metadata.namespace, type === 'ADDED' ? 1 : -1);
    const event: StoredEvent = { type, rv, entry, previous };
    bucket.record(event);
    publishEvent(bucket.subscribers, event);
    for (const listener of this.listeners) listener(bucket, type, entry);
    return entry;
  }

  private countIn(namespace: string | undefined, delta: number): void {
    if (namespace === undefined) return;
    // An uncounted namespace reads as 1 on removal, so a count never drops below zero.
    this.namespaceCounts.set(namespace, (this.namespaceCounts.get(namespace) ?? (delta < 0 ? 1 : 0)) + delta);
  }
}
