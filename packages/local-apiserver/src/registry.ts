/**
 * The API server's storage semantics behind one facade: wires the object store, the served
 * resources, watch fan-out, list paging, writes, patches and namespace lifecycle together.
 */
import { createCrdRegistration } from './crd-registration.js';
import type { Entry } from './entries.js';
import { subscribeWatch, type WatchSubscriber } from './fan-out.js';
import { readListPage, type ListResult } from './list-page.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { parseObjectFilter } from './object-filter.js';
import { ObjectPatcher } from './object-patcher.js';
import { ObjectStore } from './object-store.js';
import { ObjectWriter, type DeleteOptions, type UpdateOptions, type WriteOptions } from './object-writer.js';
import type { ListQuery } from './paging.js';
import type { PatchKind } from './patch.js';
import { ResourceCatalog } from './resource-catalog.js';
import { initialNamespaces, listBuiltinResources, type ResourceDefinition } from './resources.js';

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
 */
export class Registry {
  private readonly store: ObjectStore;
  private readonly catalog: ResourceCatalog;
  private readonly writer: ObjectWriter;
  private readonly patcher: ObjectPatcher;

  constructor(options: RegistryOptions) {
    this.store = new ObjectStore(options.historyLimit);
    this.catalog = new ResourceCatalog(this.store);
    const namespaces = new NamespaceLifecycle(this.store, (bucket, entry) => {
      this.writer.deleteEntry(bucket, entry, false);
    });
    this.writer = new ObjectWriter(this.store, namespaces, options.now);
    this.patcher = new ObjectPatcher(this.store, this.writer, options.now);
    this.store.onCommit(createCrdRegistration(this.catalog, this.store));
    this.store.onCommit(namespaces.onCommit);
    for (const definition of listBuiltinResources()) this.catalog.register(definition);
    const namespaceResource = this.catalog.require('', 'v1', 'namespaces');
    for (const name of initialNamespaces) {
      this.create(namespaceResource, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  }

  /** The latest resourceVersion handed out. */
  currentResourceVersion(): number {
    return this.store.currentResourceVersion();
  }

  /** The resource served at `group/version/plural`, if any. */
  findResource(group: string, version: string, plural: string): ResourceDefinition | undefined {
    return this.catalog.find(group, version, plural);
  }

  /** The resource serving `kind` in `apiVersion`, if any. */
  findResourceByKind(apiVersion: string, kind: string): ResourceDefinition | undefined {
    return this.catalog.findByKind(apiVersion, kind);
  }

  /** Every served resource, built-ins first, in registration order. */
  listResources(): ResourceDefinition[] {
    return this.catalog.list();
  }

  /** The number of open watches. */
  countWatches(): number {
    return this.store.countWatches();
  }

  /** Ends every open watch cleanly; clients reconnect from their last resourceVersion. */
  dropWatches(): number {
    return this.store.dropWatches();
  }

  /** Forgets all history: any resourceVersion issued so far gets 410 Expired from watches, exact lists and continue tokens. */
  expireHistory(): void {
    this.store.expireHistory();
  }

  /** The live entry, or a 404 `NotFound`. */
  get(definition: ResourceDefinition, namespace: string | undefined, name: string): Entry {
    return this.store.get(definition, namespace, name);
  }

  /** The live entry, or undefined. */
  find(definition: ResourceDefinition, namespace: string | undefined, name: string): Entry | undefined {
    return this.store.find(definition, namespace, name);
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

  /** Creates an object (POST): 201 semantics, admission, validation, 409 AlreadyExists. */
  create(
    definition: ResourceDefinition,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions = {},
  ): Entry {
    return this.writer.create(definition, namespace, body, options);
  }

  /** Replaces an object (PUT), on the main endpoint or the status subresource. */
  update(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: UpdateOptions = {},
  ): Entry {
    return this.writer.update(definition, namespace, name, body, options);
  }

  /** Patches an object (PATCH) with a JSON, merge, strategic merge or apply patch. */
  patch(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    kind: PatchKind,
    patch: unknown,
    options: UpdateOptions = {},
  ): { entry: Entry; created: boolean } {
    return this.patcher.patch(definition, namespace, name, kind, patch, options);
  }

  /** Deletes an object: removes it, or marks it deleting while finalizers remain. */
  delete(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): { entry: Entry; removed: boolean } {
    return this.writer.delete(definition, namespace, name, options);
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
