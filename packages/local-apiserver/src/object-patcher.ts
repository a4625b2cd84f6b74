/**
 * PATCH requests: JSON, merge and strategic merge patches applied to the stored object, and
 * server-side apply (which may create); the result is stored under the update rules.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import { formatTimestamp, viewEntry, type Entry } from './entries.js';
import {
  ApiStatusError,
  buildBadRequestStatus,
  buildFailureStatus,
  buildInvalidStatus,
  buildNotFoundStatus,
  buildUnsupportedMediaTypeStatus,
  failWith,
  PatchError,
} from './errors.js';
import { findMicroTimeDecodeError } from './micro-time.js';
import { scopeOf } from './object-filter.js';
import type { Bucket, ObjectStore } from './object-store.js';
import type { ObjectWriter, UpdateOptions } from './object-writer.js';
import {
  describeValue,
  formatApiVersion,
  isPlainObject,
  type JsonObject,
  type KubeObject,
} from './objects.js';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  patchContentTypes,
  type PatchKind,
} from './patch.js';
import { checkPatchedIdentity, decodeBody } from './request-body.js';
import type { ResourceDefinition } from './resource-definition.js';
import { applyServerSide } from './server-side-apply.js';

/** Serves PATCH against `store`, writing through `writer`. */
export class ObjectPatcher {
  constructor(
    private readonly store: ObjectStore,
    private readonly writer: ObjectWriter,
    private readonly now: () => Date,
  ) {}

  /** Patches an object (PATCH) with a JSON, merge, strategic merge or apply patch. */
  patch(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    kind: PatchKind,
    patch: unknown,
    options: UpdateOptions = {},
  ): { entry: Entry; created: boolean } {
    const bucket = this.store.bucketOf(definition);
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
    if (kind === 'apply') return this.apply(definition, bucket, namespace, name, patch, options);
    const old = this.store.get(definition, namespace, name);
    const patched = patchObject(definition, viewEntry(old, definition), kind, patch);
    const metadata = isPlainObject(patched.metadata) ? { ...patched.metadata } : {};
    // A patch is conditional only on a resourceVersion it names itself.
    if (metadata.resourceVersion === undefined || metadata.resourceVersion === null) {
      metadata.resourceVersion = old.object.metadata.resourceVersion;
    }
    const incoming = decodeBody(definition, { ...patched, metadata });
    checkPatchedIdentity(definition, incoming, old);
    const entry = this.writer.updateEntry(definition, bucket, old, incoming, {
      ...options,
      requireResourceVersion: false,
    });
    return { entry, created: false };
  }

  private apply(
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
    const existing = bucket.objects.get(namespacedKey(scopeOf(definition, namespace), name));
    const outcome = applyServerSide({
      current: existing ? viewEntry(existing, definition) : undefined,
      intent,
      manager: options.fieldManager,
      force: options.force ?? false,
      subresource: options.subresource,
      ignoresStatus: definition.hasStatus && options.subresource !== 'status',
      apiVersion,
      now: formatTimestamp(this.now()),
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
      return { entry: this.writer.create(definition, namespace, outcome.object, options), created: true };
    }
    const incoming = decodeBody(definition, outcome.object);
    const entry = this.writer.updateEntry(definition, bucket, existing, incoming, {
      ...options,
      requireResourceVersion: false,
    });
    return { entry, created: false };
  }
}

// The patched object as kube-apiserver decodes it: patch failures are 400 or 422, and so is a
// result that is not an object or carries a MicroTime Go cannot decode.
function patchObject(
  definition: ResourceDefinition,
  current: KubeObject,
  kind: Exclude<PatchKind, 'apply'>,
  patch: unknown,
): JsonObject {
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
  return patched;
}
