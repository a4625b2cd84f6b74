/**
 * What the body of a write must agree on before anything is stored, as the API server checks it:
 * a decodable object of the URL's resource (apiVersion, kind, MicroTime fields), with the URL's
 * name and namespace, the identity a patch may not change, and valid metadata.
 */
import { buildBadRequestStatus, buildInvalidStatus, failWith, type FieldError } from './errors.js';
import type { Entry } from './entries.js';
import { findMicroTimeDecodeError } from './micro-time.js';
import {
  describeValue,
  formatApiVersion,
  isPlainObject,
  orderTopLevelKeys,
  type KubeObject,
  type ObjectMeta,
} from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';
import { validateObjectMeta } from './validation.js';

/** The body of a write as the stored object of `definition`, or a 400 Status for a body that is not one. */
export function decodeBody(definition: ResourceDefinition, body: unknown): KubeObject {
  if (!isPlainObject(body))
    failWith(buildBadRequestStatus('the body of the request was in an unknown format'));
  const expectedApiVersion = formatApiVersion(definition.group, definition.version);
  const { apiVersion, kind } = body;
  if (definition.isCustom && (typeof kind !== 'string' || kind === '')) {
    failWith(buildBadRequestStatus(`Object 'Kind' is missing in '${truncate(JSON.stringify(body))}'`));
  }
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== expectedApiVersion) {
    failWith(
      buildBadRequestStatus(
        `the API version in the data (${describeValue(apiVersion)}) does not match the expected API version (${expectedApiVersion})`,
      ),
    );
  }
  if (kind !== undefined && kind !== '' && kind !== definition.kind) {
    failWith(
      buildBadRequestStatus(
        `the kind in the data (${describeValue(kind)}) does not match the expected kind (${definition.kind})`,
      ),
    );
  }
  // Go's decoder refuses a MicroTime without exactly six fractional digits before validation runs.
  const timeError = findMicroTimeDecodeError(body, definition.microTimeFields ?? []);
  if (timeError !== undefined) {
    failWith(
      buildBadRequestStatus(
        `${definition.kind} in version "${definition.version}" cannot be handled as a ${definition.kind}: ${timeError}`,
      ),
    );
  }
  const metadata = isPlainObject(body.metadata) ? ({ ...body.metadata } as ObjectMeta) : {};
  let object: KubeObject = { ...body, apiVersion: expectedApiVersion, kind: definition.kind, metadata };
  if (definition.convert) object = definition.convert.fromView(object);
  return orderTopLevelKeys({ ...object, apiVersion: definition.storageApiVersion, kind: definition.kind });
}

/** A 400 Status when the body names another object or namespace than the URL. */
export function checkBodyIdentity(
  definition: ResourceDefinition,
  incoming: KubeObject,
  namespace: string | undefined,
  name: string,
): void {
  const bodyName = incoming.metadata.name;
  if (bodyName !== undefined && bodyName !== name) {
    failWith(
      buildBadRequestStatus(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      ),
    );
  }
  const bodyNamespace = incoming.metadata.namespace;
  if (definition.namespaced && bodyNamespace && namespace && bodyNamespace !== namespace) {
    failWith(
      buildBadRequestStatus(
        'the namespace of the provided object does not match the namespace sent on the request',
      ),
    );
  }
}

/** A 422 Status when a patch changed the name or namespace of `old`. */
export function checkPatchedIdentity(definition: ResourceDefinition, incoming: KubeObject, old: Entry): void {
  const errors: FieldError[] = [];
  if (incoming.metadata.name !== old.object.metadata.name) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'metadata.name',
      value: incoming.metadata.name ?? '',
      detail: 'field is immutable',
    });
  }
  if (definition.namespaced && incoming.metadata.namespace !== old.object.metadata.namespace) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'metadata.namespace',
      value: incoming.metadata.namespace ?? '',
      detail: 'field is immutable',
    });
  }
  if (errors.length > 0) failWith(buildInvalidStatus(definition, old.object.metadata.name ?? '', errors));
}

/** A 400 Status when a namespaced resource has no namespace on the URL, or the body names another. */
export function checkNamespace(
  definition: ResourceDefinition,
  scope: string | undefined,
  bodyNamespace: string | undefined,
): void {
  if (!definition.namespaced) return;
  if (scope === undefined)
    failWith(
      buildBadRequestStatus('the server could not find the requested resource: a namespace is required'),
    );
  if (bodyNamespace && bodyNamespace !== scope) {
    failWith(
      buildBadRequestStatus(
        'the namespace of the provided object does not match the namespace sent on the request',
      ),
    );
  }
}

/** A 422 Status listing what is invalid in the object's metadata and, for resources that check it, the rest. */
export function validateObject(definition: ResourceDefinition, object: KubeObject, name: string): void {
  const errors = validateObjectMeta(object, definition.nameRule);
  if (definition.validate) errors.push(...definition.validate(object));
  if (errors.length > 0) failWith(buildInvalidStatus(definition, name, errors));
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
