/**
 * The write rules of kube-apiserver for create, update and delete: admission, validation,
 * optimistic concurrency, generation, the status subresource, preconditions and finalizers.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { namespacedKey } from '@ingresskit/kube-objects';
import { admitDefaultIngressClass } from './admission.js';
import { formatTimestamp, makeEntry, orderMetadata, type Entry } from './entries.js';
import { buildAlreadyExistsStatus, buildConflictStatus, buildInvalidStatus, failWith } from './errors.js';
import { namespaceStorage, type NamespaceLifecycle } from './namespace-lifecycle.js';
import { scopeOf } from './object-filter.js';
import type { Bucket, ObjectStore } from './object-store.js';
import {
  isDeepEqual,
  isPlainObject,
  orderTopLevelKeys,
  type KubeObject,
  type ObjectMeta,
} from './objects.js';
import { checkBodyIdentity, checkNamespace, decodeBody, validateObject } from './request-body.js';
import type { ResourceDefinition } from './resource-definition.js';
import { findNewFinalizers, isGenerationChange, mergeUpdateMetadata } from './write-rules.js';

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

const ingressStorage = 'ingresses.networking.k8s.io';
const ingressClassStorage = 'ingressclasses.networking.k8s.io';
const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** Creates, updates and deletes objects in `store`; failures throw `ApiStatusError` carrying the real `Status`. */
export class ObjectWriter {
  constructor(
    private readonly store: ObjectStore,
    private readonly namespaces: NamespaceLifecycle,
    private readonly now: () => Date,
  ) {}

  /** Creates an object (POST): 201 semantics, admission, validation, 409 AlreadyExists. */
  create(
    definition: ResourceDefinition,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions = {},
  ): Entry {
    const bucket = this.store.bucketOf(definition);
    let object = decodeBody(definition, body);
    const scope = scopeOf(definition, namespace ?? object.metadata.namespace);
    checkNamespace(definition, scope, object.metadata.namespace);
    const meta: ObjectMeta = { ...object.metadata };
    if (scope !== undefined) meta.namespace = scope;
    else delete meta.namespace;
    if (
      (meta.name === undefined || meta.name === '') &&
      typeof meta.generateName === 'string' &&
      meta.generateName !== ''
    ) {
      meta.name = generateName(bucket, scope, meta.generateName);
    }
    const name = meta.name ?? '';
    if (scope !== undefined) this.namespaces.checkWritable(definition, scope, name);
    const now = formatTimestamp(this.now());
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
      object = admitDefaultIngressClass(object, this.store.listObjects(ingressClassStorage));
    definition.prepareCreate?.(object, now);
    validateObject(definition, object, name);
    const key = namespacedKey(scope, name);
    if (bucket.objects.has(key)) failWith(buildAlreadyExistsStatus(definition, name));
    object = { ...object, metadata: orderMetadata(object.metadata) };
    if (options.dryRun) return makeEntry(key, object, this.store.currentResourceVersion());
    return this.store.commit(bucket, 'ADDED', orderTopLevelKeys(object), undefined);
  }

  /** Replaces an object (PUT), on the main endpoint or the status subresource. */
  update(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: UpdateOptions = {},
  ): Entry {
    const bucket = this.store.bucketOf(definition);
    const incoming = decodeBody(definition, body);
    checkBodyIdentity(definition, incoming, namespace, name);
    const old = this.store.get(definition, namespace, name);
    return this.updateEntry(definition, bucket, old, incoming, {
      ...options,
      requireResourceVersion: definition.isCustom && !options.allowUnconditional,
    });
  }

  /**
   * Stores `incoming` in place of `old` under the update rules; returns `old` itself when nothing
   * changed (no write, no event). A deleting object whose last finalizer goes is removed.
   */
  updateEntry(
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
    const now = formatTimestamp(this.now());
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
        const committed = this.store.commit(bucket, 'MODIFIED', next, old);
        this.namespaces.finalize(committed.key);
        return committed;
      }
      return this.store.commit(bucket, 'DELETED', next, old);
    }
    return this.store.commit(bucket, 'MODIFIED', next, old);
  }

  /** Deletes an object: removes it, or marks it deleting while finalizers remain. */
  delete(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): { entry: Entry; removed: boolean } {
    const bucket = this.store.bucketOf(definition);
    const entry = this.store.get(definition, namespace, name);
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

  /**
   * Deletes a stored entry: an object with finalizers (and every Namespace) is only marked with a
   * deletionTimestamp; a Namespace is then emptied. `removed` tells whether it is gone.
   */
  deleteEntry(bucket: Bucket, entry: Entry, dryRun: boolean): { entry: Entry; removed: boolean } {
    const object = entry.object;
    const meta = object.metadata;
    const isNamespace = bucket.id === namespaceStorage;
    if ((meta.finalizers && meta.finalizers.length > 0) || isNamespace) {
      if (meta.deletionTimestamp) return { entry, removed: false };
      const nextMeta: ObjectMeta = {
        ...meta,
        deletionTimestamp: formatTimestamp(this.now()),
        deletionGracePeriodSeconds: 0,
      };
      if (meta.generation !== undefined && meta.generation > 0) nextMeta.generation = meta.generation + 1;
      const next: KubeObject = { ...object, metadata: orderMetadata(nextMeta) };
      if (isNamespace)
        next.status = { ...(isPlainObject(object.status) ? object.status : {}), phase: 'Terminating' };
      if (dryRun) return { entry: makeEntry(entry.key, next, entry.rv), removed: false };
      const marked = this.store.commit(bucket, 'MODIFIED', next, entry);
      if (isNamespace) return { entry: this.namespaces.terminate(marked), removed: false };
      return { entry: marked, removed: false };
    }
    if (dryRun) return { entry, removed: true };
    return {
      entry: this.store.commit(bucket, 'DELETED', { ...object, metadata: { ...meta } }, entry),
      removed: true,
    };
  }
}

function generateName(bucket: Bucket, scope: string | undefined, prefix: string): string {
  for (;;) {
    let suffix = '';
    for (let i = 0; i < 5; i++) suffix += generateNameAlphabet[randomInt(generateNameAlphabet.length)];
    const name = `${prefix}${suffix}`;
    if (!bucket.objects.has(namespacedKey(scope, name))) return name;
  }
}
