import { randomInt, randomUUID } from 'node:crypto';
import { admitDefaultIngressClass } from './admission.js';
import { crdStorage, defineCrdResources } from './crd.js';
import {
  formatTimestamp,
  makeEntry,
  orderMetadata,
  viewEntry,
  serializeEntry,
  type ChangeType,
  type Entry,
} from './entries.js';
import {
  ApiStatusError,
  buildAlreadyExistsStatus,
  buildBadRequestStatus,
  buildConflictStatus,
  buildExpiredStatus,
  buildFailureStatus,
  buildInvalidStatus,
  buildNotFoundStatus,
  buildUnsupportedMediaTypeStatus,
  failWith,
  PatchError,
  SelectorSyntaxError,
} from './errors.js';
import {
  lineFor,
  matchesFilter,
  type ObjectFilter,
  type StoredEvent,
  type WatchSubscriber,
} from './fan-out.js';
import { parseFieldSelector } from './field-selector.js';
import {
  checkBodyIdentity,
  checkNamespace,
  checkPatchedIdentity,
  decodeBody,
  validateObject,
} from './request-body.js';
import { HistoryRing } from './history.js';
import { parseLabelSelector } from './label-selector.js';
import { findMicroTimeDecodeError } from './micro-time.js';
import {
  describeValue,
  formatApiVersion,
  isDeepEqual,
  isPlainObject,
  objectKey,
  orderTopLevelKeys,
  type JsonObject,
  type KubeObject,
  type ObjectMeta,
} from './objects.js';
import {
  encodeContinueToken,
  lowerBound,
  namespaceRange,
  parseResourceVersion,
  planListRead,
  type ListQuery,
} from './paging.js';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  patchContentTypes,
  type PatchKind,
} from './patch.js';
import { initialNamespaces, listBuiltinResources, type ResourceDefinition } from './resources.js';
import { applyServerSide } from './server-side-apply.js';
import { findNewFinalizers, isGenerationChange, mergeUpdateMetadata } from './write-rules.js';

export { formatTimestamp, serializeEntry, viewEntry, type ChangeType, type Entry } from './entries.js';
export type { ObjectFilter, WatchSubscriber } from './fan-out.js';
export type { ListQuery } from './paging.js';

/** One page of a list: entries in key order, the list resourceVersion and the paging fields. */
export interface ListResult {
  entries: Entry[];
  resourceVersion: number;
  continueToken?: string;
  remainingItemCount?: number;
}

/** Options common to writes. */
export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string | undefined;
}

/** Options of an update (PUT) or patch. */
export interface UpdateOptions extends WriteOptions {
  subresource?: 'status' | undefined;
  /** Lets custom resources be updated without a resourceVersion (used by the server's own `apply`). */
  allowUnconditional?: boolean;
  force?: boolean;
}

/** DeleteOptions that matter here. */
export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string | undefined; resourceVersion?: string | undefined } | undefined;
}

/** Construction options of the registry. */
export interface RegistryOptions {
  /** Events kept per resource for watches that resume from a resourceVersion. */
  historyLimit: number;
  now: () => Date;
}

class Bucket {
  readonly objects = new Map<string, Entry>();
  readonly subscribers = new Set<WatchSubscriber>();
  readonly history: HistoryRing<StoredEvent>;
  sortedKeys: string[] | undefined = [];
  lastRv = 0;

  constructor(
    readonly id: string,
    public namespaced: boolean,
    historyLimit: number,
  ) {
    this.history = new HistoryRing<StoredEvent>(historyLimit);
  }

  keys(): string[] {
    this.sortedKeys ??= [...this.objects.keys()].sort();
    return this.sortedKeys;
  }
}

const namespaceStorage = 'namespaces';
const ingressStorage = 'ingresses.networking.k8s.io';
const ingressClassStorage = 'ingressclasses.networking.k8s.io';
const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The storage engine and semantics of the API server: objects per resource, one global
 * resourceVersion counter, bounded per-resource history, watch fan-out, and the write rules of
 * kube-apiserver (optimistic concurrency, generation, status subresource, finalizers, admission).
 * Every operation is synchronous; failures throw `ApiStatusError` carrying the real `Status`.
 */
export class Registry {
  private rv = 0;
  private readonly buckets = new Map<string, Bucket>();
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly namespaceCounts = new Map<string, number>();

  constructor(private readonly options: RegistryOptions) {
    for (const definition of listBuiltinResources()) this.registerResource(definition);
    const namespaces = this.requireResource('', 'v1', 'namespaces');
    for (const name of initialNamespaces) {
      this.create(namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  }

  /** The latest resourceVersion handed out. */
  currentResourceVersion(): number {
    return this.rv;
  }

  /** The resource served at `group/version/plural`, if any. */
  findResource(group: string, version: string, plural: string): ResourceDefinition | undefined {
    return this.resources.get(`${group}/${version}/${plural}`);
  }

  /** The resource serving `kind` in `apiVersion`, if any. */
  findResourceByKind(apiVersion: string, kind: string): ResourceDefinition | undefined {
    for (const definition of this.resources.values()) {
      if (definition.kind === kind && formatApiVersion(definition.group, definition.version) === apiVersion) {
        return definition;
      }
    }
    return undefined;
  }

  /** Every served resource, built-ins first, in registration order. */
  listResources(): ResourceDefinition[] {
    return [...this.resources.values()];
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

  // ------------------------------------------------------------------------------------------
  // Reads

  /** The live entry, or a 404 `NotFound`. */
  get(definition: ResourceDefinition, namespace: string | undefined, name: string): Entry {
    const entry = this.find(definition, namespace, name);
    if (!entry) failWith(buildNotFoundStatus(definition, name));
    return entry;
  }

  /** The live entry, or undefined. */
  find(definition: ResourceDefinition, namespace: string | undefined, name: string): Entry | undefined {
    return this.bucketOf(definition).objects.get(objectKey(this.scope(definition, namespace), name));
  }

  /** Parses the selectors of a list or watch into a filter; 400 for malformed selectors. */
  parseFilter(
    definition: ResourceDefinition,
    namespace: string | undefined,
    labelSelector: string | undefined,
    fieldSelector: string | undefined,
  ): ObjectFilter {
    try {
      return {
        namespace: this.scope(definition, namespace),
        labels: labelSelector ? parseLabelSelector(labelSelector) : [],
        fields: fieldSelector ? parseFieldSelector(fieldSelector, definition.selectableFields) : [],
      };
    } catch (error) {
      if (error instanceof SelectorSyntaxError)
        throw new ApiStatusError(buildBadRequestStatus(error.message), { cause: error });
      throw error;
    }
  }

  /** Lists with kube-apiserver's resourceVersion, resourceVersionMatch, limit and continue semantics. */
  list(definition: ResourceDefinition, namespace: string | undefined, query: ListQuery = {}): ListResult {
    const bucket = this.bucketOf(definition);
    const filter = this.parseFilter(definition, namespace, query.labelSelector, query.fieldSelector);
    const { atRv, startKey, limit } = planListRead(query, this.rv, (rv) => bucket.history.covers(rv));
    const view = this.entriesAt(bucket, atRv);
    const keys = view.keys;
    const [first, end] = namespaceRange(keys, bucket.namespaced ? filter.namespace : undefined);
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

  // ------------------------------------------------------------------------------------------
  // Watches

  /**
   * Starts a watch: replays what the subscriber missed (all current objects as ADDED for an unset
   * or "0" resourceVersion, history events after N otherwise), then streams live changes. Throws
   * 410 `Expired` when N is older than the kept history; the HTTP layer turns that into an ERROR event.
   */
  watch(
    definition: ResourceDefinition,
    resourceVersion: string | undefined,
    subscriber: WatchSubscriber,
  ): () => void {
    const bucket = this.bucketOf(definition);
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

  // ------------------------------------------------------------------------------------------
  // Writes

  /** Creates an object (POST): 201 semantics, admission, validation, 409 AlreadyExists. */
  create(
    definition: ResourceDefinition,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions = {},
  ): Entry {
    const bucket = this.bucketOf(definition);
    let object = decodeBody(definition, body);
    const scope = this.scope(definition, namespace ?? object.metadata.namespace);
    checkNamespace(definition, scope, object.metadata.namespace);
    const meta: ObjectMeta = { ...object.metadata };
    if (scope !== undefined) meta.namespace = scope;
    else delete meta.namespace;
    if (
      (meta.name === undefined || meta.name === '') &&
      typeof meta.generateName === 'string' &&
      meta.generateName !== ''
    ) {
      meta.name = this.generateName(bucket, scope, meta.generateName);
    }
    const name = meta.name ?? '';
    if (scope !== undefined) this.checkNamespaceWritable(definition, scope, name);
    const now = formatTimestamp(this.options.now());
    meta.uid = randomUUID();
    meta.creationTimestamp = now;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (definition.generation !== 'none') meta.generation = 1;
    else delete meta.generation;
    object = { ...object, metadata: meta };
    if (definition.hasStatus && !definition.keepsStatusOnCreate) delete object.status;
    if (bucket.id === ingressStorage)
      object = admitDefaultIngressClass(object, this.liveObjects(ingressClassStorage));
    definition.prepareCreate?.(object, now);
    validateObject(definition, object, name);
    const key = objectKey(scope, name);
    if (bucket.objects.has(key)) failWith(buildAlreadyExistsStatus(definition, name));
    object = { ...object, metadata: orderMetadata(object.metadata) };
    if (options.dryRun) return makeEntry(key, object, this.rv);
    return this.commit(bucket, 'ADDED', orderTopLevelKeys(object), undefined);
  }

  /** Replaces an object (PUT), on the main endpoint or the status subresource. */
  update(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: UpdateOptions = {},
  ): Entry {
    const bucket = this.bucketOf(definition);
    const incoming = decodeBody(definition, body);
    checkBodyIdentity(definition, incoming, namespace, name);
    const old = this.get(definition, namespace, name);
    return this.updateEntry(definition, bucket, old, incoming, {
      ...options,
      requireResourceVersion: definition.isCustom && !options.allowUnconditional,
    });
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
    const bucket = this.bucketOf(definition);
    if (kind === 'strategic' && definition.isCustom) {
      failWith(
        buildUnsupportedMediaTypeStatus([
          patchContentTypes.json,
          patchContentTypes.merge,
          patchContentTypes.apply,
        ]),
      );
    }
    if (options.force && kind !== 'apply') {
      failWith(
        buildInvalidStatus({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
          { type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' },
        ]),
      );
    }
    if (kind === 'apply') return this.applyPatch(definition, bucket, namespace, name, patch, options);
    const old = this.get(definition, namespace, name);
    const current = viewEntry(old, definition);
    let patched: unknown;
    try {
      if (kind === 'json') patched = applyJsonPatch(current, patch);
      else if (kind === 'merge') patched = applyMergePatch(current, patch);
      else patched = applyStrategicMergePatch(current, patch, definition.patchMergeKeys);
    } catch (error) {
      if (error instanceof PatchError) {
        const status =
          error.httpCode === 400
            ? buildBadRequestStatus(error.message)
            : buildFailureStatus(422, error.message, 'Invalid');
        throw new ApiStatusError(status, { cause: error });
      }
      throw error;
    }
    if (!isPlainObject(patched))
      failWith(buildFailureStatus(422, 'the patch produced something that is not an object', 'Invalid'));
    // kube-apiserver decodes the patched object itself and reports that failure as 422 on `patch`.
    const timeError = findMicroTimeDecodeError(patched, definition.microTimeFields ?? []);
    if (timeError !== undefined) {
      failWith(
        buildInvalidStatus({ group: '', kind: '' }, '', [
          { type: 'FieldValueInvalid', field: 'patch', value: JSON.stringify(patched), detail: timeError },
        ]),
      );
    }
    const metadata = isPlainObject(patched.metadata) ? { ...patched.metadata } : {};
    // A patch is conditional only on a resourceVersion it names itself.
    if (metadata.resourceVersion === undefined || metadata.resourceVersion === null) {
      metadata.resourceVersion = old.object.metadata.resourceVersion;
    }
    const incoming = decodeBody(definition, { ...patched, metadata });
    checkPatchedIdentity(definition, incoming, old);
    const entry = this.updateEntry(definition, bucket, old, incoming, {
      ...options,
      requireResourceVersion: false,
    });
    return { entry, created: false };
  }

  /** Deletes an object: removes it, or marks it deleting while finalizers remain. */
  delete(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): { entry: Entry; removed: boolean } {
    const bucket = this.bucketOf(definition);
    const entry = this.get(definition, namespace, name);
    const preconditions = options.preconditions;
    if (preconditions?.uid && preconditions.uid !== entry.object.metadata.uid) {
      failWith(
        buildConflictStatus(
          definition,
          name,
          `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${entry.object.metadata.uid ?? ''}`,
        ),
      );
    }
    if (
      preconditions?.resourceVersion &&
      preconditions.resourceVersion !== entry.object.metadata.resourceVersion
    ) {
      failWith(
        buildConflictStatus(
          definition,
          name,
          `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${entry.object.metadata.resourceVersion ?? ''}`,
        ),
      );
    }
    return this.deleteEntry(bucket, entry, options.dryRun ?? false);
  }

  /** Deletes every object a list query selects (DELETE on the collection URL). */
  deleteCollection(
    definition: ResourceDefinition,
    namespace: string | undefined,
    query: ListQuery,
    options: WriteOptions = {},
  ): Entry[] {
    const bucket = this.bucketOf(definition);
    const { entries } = this.list(definition, namespace, {
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
    });
    return entries.map((entry) => this.deleteEntry(bucket, entry, options.dryRun ?? false).entry);
  }

  // ------------------------------------------------------------------------------------------
  // Internals

  private registerResource(definition: ResourceDefinition): void {
    this.resources.set(`${definition.group}/${definition.version}/${definition.plural}`, definition);
    const bucket = this.buckets.get(definition.storage);
    if (bucket) bucket.namespaced = definition.namespaced;
    else
      this.buckets.set(
        definition.storage,
        new Bucket(definition.storage, definition.namespaced, this.options.historyLimit),
      );
  }

  private requireResource(group: string, version: string, plural: string): ResourceDefinition {
    const definition = this.findResource(group, version, plural);
    if (!definition) throw new Error(`built-in resource ${group}/${version}/${plural} is missing`);
    return definition;
  }

  private bucketOf(definition: ResourceDefinition): Bucket {
    const bucket = this.buckets.get(definition.storage);
    if (!bucket) failWith(buildNotFoundStatus(definition, ''));
    return bucket;
  }

  private scope(definition: ResourceDefinition, namespace: string | undefined): string | undefined {
    if (!definition.namespaced) return undefined;
    return namespace === '' ? undefined : namespace;
  }

  private *liveObjects(storage: string): Iterable<KubeObject> {
    const bucket = this.buckets.get(storage);
    if (!bucket) return;
    for (const entry of bucket.objects.values()) yield entry.object;
  }

  private checkNamespaceWritable(definition: ResourceDefinition, namespace: string, name: string): void {
    const namespaces = this.buckets.get(namespaceStorage)!;
    const entry = namespaces.objects.get(namespace);
    if (!entry)
      failWith(buildNotFoundStatus({ group: '', plural: 'namespaces', kind: 'Namespace' }, namespace));
    if (entry.object.metadata.deletionTimestamp) {
      const message = `unable to create new content in namespace ${namespace} because it is being terminated`;
      const details: JsonObject = { name };
      if (definition.group !== '') details.group = definition.group;
      details.kind = definition.plural;
      details.causes = [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }];
      failWith(
        buildFailureStatus(
          403,
          `${definition.group === '' ? definition.plural : `${definition.plural}.${definition.group}`} "${name}" is forbidden: ${message}`,
          'Forbidden',
          details,
        ),
      );
    }
  }

  private generateName(bucket: Bucket, scope: string | undefined, prefix: string): string {
    for (;;) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += generateNameAlphabet[randomInt(generateNameAlphabet.length)];
      const name = `${prefix}${suffix}`;
      if (!bucket.objects.has(objectKey(scope, name))) return name;
    }
  }

  private updateEntry(
    definition: ResourceDefinition,
    bucket: Bucket,
    old: Entry,
    incoming: KubeObject,
    options: UpdateOptions & { requireResourceVersion: boolean },
  ): Entry {
    const oldObject = old.object;
    const oldMeta = oldObject.metadata;
    const name = oldMeta.name ?? '';
    const requestedRv = incoming.metadata.resourceVersion;
    if (requestedRv !== undefined && requestedRv !== '') {
      if (requestedRv !== oldMeta.resourceVersion) failWith(buildConflictStatus(definition, name));
    } else if (options.requireResourceVersion) {
      failWith(
        buildInvalidStatus(definition, name, [
          {
            type: 'FieldValueInvalid',
            field: 'metadata.resourceVersion',
            value: 0,
            detail: 'must be specified for an update',
          },
        ]),
      );
    }
    let next: KubeObject;
    if (options.subresource === 'status') {
      const meta = definition.isCustom ? { ...oldMeta } : mergeUpdateMetadata(incoming.metadata, oldMeta);
      next = { ...oldObject, metadata: meta };
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = { ...incoming, metadata: mergeUpdateMetadata(incoming.metadata, oldMeta) };
      if (definition.hasStatus) {
        if (oldObject.status === undefined) delete next.status;
        else next.status = oldObject.status;
      }
    }
    const nextMeta = next.metadata;
    nextMeta.resourceVersion = oldMeta.resourceVersion;
    if (oldMeta.deletionTimestamp) {
      const added = findNewFinalizers(oldMeta, nextMeta);
      if (added.length > 0) {
        failWith(
          buildInvalidStatus(definition, name, [
            {
              type: 'FieldValueForbidden',
              field: 'metadata.finalizers',
              detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((finalizer) => JSON.stringify(finalizer)).join(', ')}}`,
            },
          ]),
        );
      }
    }
    const now = formatTimestamp(this.options.now());
    if (options.subresource !== 'status') definition.prepareUpdate?.(next, oldObject, now);
    if (isGenerationChange(definition, oldObject, next)) {
      nextMeta.generation = (oldMeta.generation ?? 0) + 1;
    }
    validateObject(definition, next, name);
    const immutable = definition.validateUpdate?.(next, oldObject) ?? [];
    if (immutable.length > 0) failWith(buildInvalidStatus(definition, name, immutable));
    next = orderTopLevelKeys({ ...next, metadata: orderMetadata(nextMeta) });
    if (isDeepEqual(next, oldObject)) return old;
    if (options.dryRun) return makeEntry(old.key, next, old.rv);
    if (
      nextMeta.deletionTimestamp &&
      (nextMeta.finalizers === undefined || nextMeta.finalizers.length === 0)
    ) {
      if (bucket.id === namespaceStorage) {
        const committed = this.commit(bucket, 'MODIFIED', next, old);
        this.finalizeNamespace(committed.key);
        return committed;
      }
      return this.commit(bucket, 'DELETED', next, old);
    }
    return this.commit(bucket, 'MODIFIED', next, old);
  }

  private applyPatch(
    definition: ResourceDefinition,
    bucket: Bucket,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    options: UpdateOptions,
  ): { entry: Entry; created: boolean } {
    if (!options.fieldManager) {
      failWith(
        buildBadRequestStatus(
          'PATCH, application/apply-patch+yaml requires fieldManager to be explicitly set',
        ),
      );
    }
    if (!isPlainObject(patch))
      failWith(buildBadRequestStatus('the body of the request was in an unknown format'));
    const apiVersion = formatApiVersion(definition.group, definition.version);
    if (patch.apiVersion !== apiVersion || patch.kind !== definition.kind) {
      failWith(
        buildBadRequestStatus(
          `apply patch must name apiVersion ${apiVersion} and kind ${definition.kind}, got ${String(patch.apiVersion)} ${String(patch.kind)}`,
        ),
      );
    }
    const intentMeta = isPlainObject(patch.metadata) ? patch.metadata : {};
    if (intentMeta.name !== undefined && intentMeta.name !== name) {
      failWith(
        buildBadRequestStatus(
          `the name of the object (${describeValue(intentMeta.name)}) does not match the name on the URL (${name})`,
        ),
      );
    }
    const intent = { ...patch, metadata: { ...intentMeta, name } } as KubeObject;
    const existing = bucket.objects.get(objectKey(this.scope(definition, namespace), name));
    const outcome = applyServerSide({
      current: existing ? viewEntry(existing, definition) : undefined,
      intent,
      manager: options.fieldManager,
      force: options.force ?? false,
      subresource: options.subresource,
      ignoresStatus: definition.hasStatus && options.subresource !== 'status',
      apiVersion,
      now: formatTimestamp(this.options.now()),
    });
    if (!outcome.applied) {
      const lines = outcome.conflicts.map(
        (conflict) => `conflict with "${conflict.manager}": ${conflict.field}`,
      );
      const details: JsonObject = { name };
      if (definition.group !== '') details.group = definition.group;
      details.kind = definition.plural;
      details.causes = outcome.conflicts.map((conflict) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with "${conflict.manager}"`,
        field: conflict.field,
      }));
      failWith(
        buildFailureStatus(
          409,
          `Apply failed with ${lines.length} conflict${lines.length === 1 ? '' : 's'}: ${lines.join('\n')}`,
          'Conflict',
          details,
        ),
      );
    }
    if (!existing) {
      if (options.subresource === 'status') failWith(buildNotFoundStatus(definition, name));
      return { entry: this.create(definition, namespace, outcome.object, options), created: true };
    }
    const incoming = decodeBody(definition, outcome.object);
    const entry = this.updateEntry(definition, bucket, existing, incoming, {
      ...options,
      requireResourceVersion: false,
    });
    return { entry, created: false };
  }

  private deleteEntry(bucket: Bucket, entry: Entry, dryRun: boolean): { entry: Entry; removed: boolean } {
    const object = entry.object;
    const meta = object.metadata;
    const isNamespace = bucket.id === namespaceStorage;
    if ((meta.finalizers && meta.finalizers.length > 0) || isNamespace) {
      if (meta.deletionTimestamp) return { entry, removed: false };
      const nextMeta: ObjectMeta = {
        ...meta,
        deletionTimestamp: formatTimestamp(this.options.now()),
        deletionGracePeriodSeconds: 0,
      };
      if (meta.generation !== undefined && meta.generation > 0) nextMeta.generation = meta.generation + 1;
      const next: KubeObject = { ...object, metadata: orderMetadata(nextMeta) };
      if (isNamespace)
        next.status = { ...(isPlainObject(object.status) ? object.status : {}), phase: 'Terminating' };
      if (dryRun) return { entry: makeEntry(entry.key, next, entry.rv), removed: false };
      const marked = this.commit(bucket, 'MODIFIED', next, entry);
      if (isNamespace) return { entry: this.terminateNamespace(marked), removed: false };
      return { entry: marked, removed: false };
    }
    if (dryRun) return { entry, removed: true };
    return {
      entry: this.commit(bucket, 'DELETED', { ...object, metadata: { ...meta } }, entry),
      removed: true,
    };
  }

  // Stands in for the namespace controller: delete the content, then the namespace once it is empty.
  private terminateNamespace(namespace: Entry): Entry {
    const name = namespace.key;
    for (const bucket of this.buckets.values()) {
      if (!bucket.namespaced) continue;
      const prefix = `${name}/`;
      const keys = bucket.keys();
      const start = lowerBound(keys, prefix);
      const doomed: Entry[] = [];
      for (let i = start; i < keys.length && keys[i]!.startsWith(prefix); i++) {
        const entry = bucket.objects.get(keys[i]!);
        if (entry) doomed.push(entry);
      }
      for (const entry of doomed) this.deleteEntry(bucket, entry, false);
    }
    return this.finalizeNamespace(name) ?? namespace;
  }

  private finalizeNamespace(name: string): Entry | undefined {
    const namespaces = this.buckets.get(namespaceStorage)!;
    const entry = namespaces.objects.get(name);
    if (!entry?.object.metadata.deletionTimestamp) return entry;
    if ((this.namespaceCounts.get(name) ?? 0) > 0) return entry;
    if ((entry.object.metadata.finalizers ?? []).length > 0) return entry;
    return this.commit(
      namespaces,
      'DELETED',
      { ...entry.object, metadata: { ...entry.object.metadata } },
      entry,
    );
  }

  private commit(bucket: Bucket, type: ChangeType, object: KubeObject, previous: Entry | undefined): Entry {
    const rv = ++this.rv;
    object.metadata.resourceVersion = String(rv);
    const key = objectKey(object.metadata.namespace, object.metadata.name ?? '');
    const entry = makeEntry(key, object, rv);
    const namespace = bucket.namespaced ? object.metadata.namespace : undefined;
    if (type === 'DELETED') {
      bucket.objects.delete(key);
      bucket.sortedKeys = undefined;
      if (namespace !== undefined)
        this.namespaceCounts.set(namespace, (this.namespaceCounts.get(namespace) ?? 1) - 1);
    } else {
      if (type === 'ADDED') {
        bucket.sortedKeys = undefined;
        if (namespace !== undefined)
          this.namespaceCounts.set(namespace, (this.namespaceCounts.get(namespace) ?? 0) + 1);
      }
      bucket.objects.set(key, entry);
    }
    const event: StoredEvent = { type, rv, entry, previous };
    bucket.history.push(event);
    bucket.lastRv = rv;
    for (const subscriber of bucket.subscribers) {
      const chunk = lineFor(event, subscriber);
      if (chunk) subscriber.write(chunk);
    }
    if (bucket.id === crdStorage) this.syncCrd(entry, type);
    if (type === 'DELETED' && namespace !== undefined) this.finalizeNamespace(namespace);
    return entry;
  }

  private syncCrd(entry: Entry, type: ChangeType): void {
    const storage = entry.key;
    const current = [...this.resources.values()].filter((definition) => definition.storage === storage);
    const next = type === 'DELETED' ? [] : defineCrdResources(entry.object);
    for (const definition of current) {
      if (!next.some((candidate) => candidate.version === definition.version)) {
        this.resources.delete(`${definition.group}/${definition.version}/${definition.plural}`);
      }
    }
    for (const definition of next) this.registerResource(definition);
    if (next.length === 0) {
      const bucket = this.buckets.get(storage);
      if (bucket) {
        this.buckets.delete(storage);
        for (const subscriber of bucket.subscribers) subscriber.end();
        bucket.subscribers.clear();
        if (bucket.namespaced) {
          for (const object of bucket.objects.values()) {
            const namespace = object.object.metadata.namespace;
            if (namespace !== undefined)
              this.namespaceCounts.set(namespace, (this.namespaceCounts.get(namespace) ?? 1) - 1);
          }
        }
      }
    }
  }

  private entriesAt(
    bucket: Bucket,
    rv: number,
  ): { keys: string[]; lookup: (key: string) => Entry | undefined } {
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
}
