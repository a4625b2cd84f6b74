/**
 * The API server's storage semantics behind one object: wires the object store, the served
 * resources, watch fan-out, list paging, writes, patches and namespace lifecycle together.
 */
import { createCrdRegistration } from './crd-registration.js';
import type { Entry } from './entries.js';
import type { WatchSubscriber } from './fan-out.js';
import { readListPage, type ListResult } from './list-page.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { parseObjectFilter } from './object-filter.js';
import { ObjectPatcher } from './object-patcher.js';
import { ObjectStore } from './object-store.js';
import { ObjectWriter, type WriteOptions } from './object-writer.js';
import type { ListQuery } from './paging.js';
import { ResourceCatalog } from './resource-catalog.js';
import type { ResourceDefinition } from './resource-definition.js';
import { initialNamespaces, listBuiltinResources } from './resources.js';
import { subscribeWatch } from './watch-subscription.js';

/** Construction options of the registry. */
export interface RegistryOptions {
  /** Events kept per resource for watches that resume from a resourceVersion. */
  historyLimit: number;
  now: () => Date;
}

/**
 * The storage engine and semantics of the API server: objects per resource, one global
 * resourceVersion counter, bounded per-resource history, watch fan-out, and the write rules of
 * kube-apiserver (optimistic concurrency, generation, status subresource, finalizers, admission).
 * Every operation is synchronous; failures throw `ApiStatusError` carrying the real `Status`.
 * Each method is its collaborator's, named in its doc comment.
 */
export class Registry {
  private readonly store: ObjectStore;
  private readonly writer: ObjectWriter;

  /** `ObjectStore.currentResourceVersion`: the latest resourceVersion handed out. */
  readonly currentResourceVersion: ObjectStore['currentResourceVersion'];
  /** `ObjectStore.countWatches`: the number of open watches. */
  readonly countWatches: ObjectStore['countWatches'];
  /** `ObjectStore.dropWatches`: ends every open watch cleanly. */
  readonly dropWatches: ObjectStore['dropWatches'];
  /** `ObjectStore.expireHistory`: every resourceVersion issued so far gets 410 Expired. */
  readonly expireHistory: ObjectStore['expireHistory'];
  /** `ObjectStore.get`: the live entry, or a 404 `NotFound`. */
  readonly get: ObjectStore['get'];
  /** `ObjectStore.find`: the live entry, or undefined. */
  readonly find: ObjectStore['find'];
  /** `ResourceCatalog.find`: the resource served at `group/version/plural`, if any. */
  readonly findResource: ResourceCatalog['find'];
  /** `ResourceCatalog.findByKind`: the resource serving `kind` in `apiVersion`, if any. */
  readonly findResourceByKind: ResourceCatalog['findByKind'];
  /** `ResourceCatalog.list`: every served resource, built-ins first, in registration order. */
  readonly listResources: ResourceCatalog['list'];
  /** `ObjectWriter.create`: creates an object (POST). */
  readonly create: ObjectWriter['create'];
  /** `ObjectWriter.update`: replaces an object (PUT), on the main endpoint or the status subresource. */
  readonly update: ObjectWriter['update'];
  /** `ObjectWriter.delete`: removes an object, or marks it deleting while finalizers remain. */
  readonly delete: ObjectWriter['delete'];
  /** `ObjectPatcher.patch`: patches an object with a JSON, merge, strategic merge or apply patch. */
  readonly patch: ObjectPatcher['patch'];

  constructor(options: RegistryOptions) {
    const store = new ObjectStore(options.historyLimit);
    const catalog = new ResourceCatalog(store);
    const namespaces = new NamespaceLifecycle(store, (bucket, entry) => {
      writer.deleteEntry(bucket, entry, false);
    });
    const writer = new ObjectWriter(store, namespaces, options.now);
    const patcher = new ObjectPatcher(store, writer, options.now);
    store.onCommit(createCrdRegistration(catalog, store));
    store.onCommit(namespaces.onCommit);
    this.store = store;
    this.writer = writer;
    this.currentResourceVersion = store.currentResourceVersion.bind(store);
    this.countWatches = store.countWatches.bind(store);
    this.dropWatches = store.dropWatches.bind(store);
    this.expireHistory = store.expireHistory.bind(store);
    this.get = store.get.bind(store);
    this.find = store.find.bind(store);
    this.findResource = catalog.find.bind(catalog);
    this.findResourceByKind = catalog.findByKind.bind(catalog);
    this.listResources = catalog.list.bind(catalog);
    this.create = writer.create.bind(writer);
    this.update = writer.update.bind(writer);
    this.delete = writer.delete.bind(writer);
    this.patch = patcher.patch.bind(patcher);

    for (const definition of listBuiltinResources()) catalog.register(definition);
    const namespaceResource = catalog.require('', 'v1', 'namespaces');
    for (const name of initialNamespaces) {
      writer.create(namespaceResource, undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    }
  }

  /** Lists with kube-apiserver's resourceVersion, resourceVersionMatch, limit and continue semantics. */
  list(definition: ResourceDefinition, namespace: string | undefined, query: ListQuery = {}): ListResult {
    const bucket = this.store.bucketOf(definition);
    const filter = parseObjectFilter(definition, namespace, query.labelSelector, query.fieldSelector);
    return readListPage(bucket, filter, query, this.store.currentResourceVersion());
  }

  /** Starts a watch that replays what `subscriber` missed since `resourceVersion`; returns its stop function. */
  watch(
    definition: ResourceDefinition,
    resourceVersion: string | undefined,
    subscriber: WatchSubscriber,
  ): () => void {
    return subscribeWatch(this.store.bucketOf(definition), definition, resourceVersion, subscriber);
  }

  /** Deletes every object a list query selects (DELETE on the collection URL). */
  deleteCollection(
    definition: ResourceDefinition,
    namespace: string | undefined,
    query: ListQuery,
    options: WriteOptions = {},
  ): Entry[] {
    const bucket = this.store.bucketOf(definition);
    const { entries } = this.list(definition, namespace, {
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
    });
    return entries.map((entry) => this.writer.deleteEntry(bucket, entry, options.dryRun ?? false).entry);
  }
}
