import type { KubeObject } from './objects.js';
import { formatApiVersion, resourceTypes, type ResourceKind, type ResourceType } from './resources.js';

/**
 * Turns any object the Kubernetes client hands out into plain JSON. Informer caches mix listed
 * model instances (timestamps as `Date`) with watched raw JSON (timestamps as strings)
 * (kubernetes-client/javascript #655); after this every timestamp is an RFC 3339 string.
 */
export function normalizeObject<T>(object: T): T {
  return JSON.parse(JSON.stringify(object, dateToKubernetesTime)) as T;
}

function dateToKubernetesTime(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Date) return original.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return value;
}

/** kubectl apply's copy of the object as last applied. */
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** How objects are shaped before they are stored. */
export interface StoredShapeOptions {
  /** Keep `metadata.managedFields` (default false: they are large and no controller reads them). */
  readonly keepManagedFields?: boolean;
  /**
   * Keep kubectl's `kubectl.kubernetes.io/last-applied-configuration` annotation (default false: a
   * second copy of the whole object, often the largest part of it, that no controller reads).
   */
  readonly keepLastAppliedConfiguration?: boolean;
  /** Deep-freeze stored objects (default true) so a consumer cannot corrupt shared snapshots. */
  readonly freeze?: boolean;
}

/**
 * The shape the store keeps for an object of `kind`, whatever path it came by (a listed model
 * instance, a watched raw object, a list item without `apiVersion`/`kind`): plain JSON with string
 * timestamps, `apiVersion` and `kind` set, `managedFields` and kubectl's last-applied-configuration
 * annotation dropped and, for CRDs, schemas dropped.
 * Returns undefined when the object has no `metadata.name`. Never changes its input.
 */
export function toStoredObject(
  object: unknown,
  kind: ResourceKind,
  options: StoredShapeOptions = {},
): KubeObject | undefined {
  return shapeParsedObject(normalizeObject(object), resourceTypes[kind], options);
}

/**
 * Like {@link toStoredObject} for an object freshly parsed from API JSON, which it reuses (and
 * mutates) instead of copying: the hot path of lists and watches.
 */
export function shapeParsedObject(
  parsed: unknown,
  type: ResourceType,
  options: StoredShapeOptions = {},
): KubeObject | undefined {
  if (!isRecord(parsed) || !isRecord(parsed.metadata) || typeof parsed.metadata.name !== 'string')
    return undefined;
  const metadata = parsed.metadata;
  if (options.keepManagedFields !== true) delete metadata.managedFields;
  if (options.keepLastAppliedConfiguration !== true && isRecord(metadata.annotations)) {
    delete metadata.annotations[LAST_APPLIED_ANNOTATION];
  }
  if (typeof metadata.resourceVersion !== 'string') metadata.resourceVersion = '';
  // Items of a list carry no apiVersion/kind on a real API server; watch events do.
  parsed.apiVersion = formatApiVersion(type);
  parsed.kind = type.kind;
  const shaped = type.kind === 'CustomResourceDefinition' ? trimCustomResourceDefinition(parsed) : parsed;
  if (options.freeze !== false) deepFreeze(shaped);
  return shaped as unknown as KubeObject;
}

function trimCustomResourceDefinition(crd: Record<string, unknown>): Record<string, unknown> {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const trimmed: Record<string, unknown> = {
    apiVersion: crd.apiVersion,
    kind: crd.kind,
    metadata: crd.metadata,
    spec: {
      group: spec.group,
      scope: spec.scope,
      names: dropUndefined({
        plural: names.plural,
        singular: names.singular,
        kind: names.kind,
        listKind: names.listKind,
      }),
      versions: versions.map((version) => ({
        name: version.name,
        served: version.served === true,
        storage: version.storage === true,
      })),
    },
  };
  if (isRecord(crd.status)) {
    trimmed.status = dropUndefined({
      conditions: crd.status.conditions,
      storedVersions: crd.status.storedVersions,
    });
  }
  return trimmed;
}

function dropUndefined(record: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(record)) if (record[key] === undefined) delete record[key];
  return record;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
