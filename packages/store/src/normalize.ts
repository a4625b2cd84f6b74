/**
 * The one shape the store keeps objects in, whatever path they came by: plain JSON, trimmed to what
 * controllers read, common values kept once.
 */
import type { KubeObject } from './objects.js';
import { projectObject } from './projection.js';
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
  /**
   * Keep every field of Services and EndpointSlices (default false: only what a controller reads
   * is kept, see projection.ts and the README's "What it keeps of an object").
   */
  readonly keepAllFields?: boolean;
}

/**
 * The shape the store keeps for an object of `kind`, whatever path it came by (a listed model
 * instance, a watched raw object, a list item without `apiVersion`/`kind`): plain JSON with string
 * timestamps, `apiVersion` and `kind` set, `managedFields` and kubectl's last-applied-configuration
 * annotation dropped, Services and EndpointSlices trimmed to what a controller reads and, for
 * CRDs, schemas dropped.
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
  if (options.keepAllFields !== true) projectObject(parsed, type.kind);
  // Items of a list carry no apiVersion/kind on a real API server; watch events do.
  parsed.apiVersion = formatApiVersion(type);
  parsed.kind = type.kind;
  const shaped = type.kind === 'CustomResourceDefinition' ? trimCustomResourceDefinition(parsed) : parsed;
  const freeze = options.freeze !== false;
  settle(shaped, freeze, freeze ? new Map() : undefined);
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

/**
 * Fields whose values come from a small set (the API's enumerations, class names). JSON.parse
 * makes a new string for every occurrence: at 10,000 Ingresses with their Services and
 * EndpointSlices, some 100,000 copies of "Prefix", "TCP" or "ClusterIP". The store keeps one
 * copy of each value, up to SHARED_VALUE_LIMIT values so that hostile objects cannot grow the table.
 */
const ENUM_FIELDS = new Set([
  'addressType',
  'appProtocol',
  'externalTrafficPolicy',
  'ingressClassName',
  'internalTrafficPolicy',
  'ipFamilies',
  'ipFamilyPolicy',
  'pathType',
  'protocol',
  'sessionAffinity',
  'type',
]);
const SHARED_VALUE_LIMIT = 1024;
const sharedValues = new Map<string, string>();

function shareValue(value: string): string {
  const known = sharedValues.get(value);
  if (known !== undefined) return known;
  if (sharedValues.size < SHARED_VALUE_LIMIT && value.length <= 64) sharedValues.set(value, value);
  return value;
}

/**
 * Fields whose small values are the same in many objects: a backend's `port` (`{ number: 80 }` in
 * nearly every Ingress path), the `ports` of Services and EndpointSlices, an endpoint's
 * `conditions`. Frozen objects keep one copy of each value, up to SHARED_OBJECT_LIMIT values of
 * at most MAX_SHARED_ENTRIES entries, scalars only (so that comparing by JSON is exact).
 */
const SHARED_OBJECT_FIELDS = new Set(['port', 'ports', 'conditions']);
const SHARED_OBJECT_LIMIT = 1024;
const MAX_SHARED_ENTRIES = 8;
const sharedObjects = new Map<string, object>();

/** `value` settled and frozen, or an equal value settled before. */
function shareObject(value: object): object {
  if (!isSmallValue(value)) return value;
  const key = JSON.stringify(value);
  const known = sharedObjects.get(key);
  if (known !== undefined) return known;
  settle(value, true, undefined);
  if (sharedObjects.size < SHARED_OBJECT_LIMIT && key.length <= 512) sharedObjects.set(key, value);
  return value;
}

/** A record of scalars, or a short array of them, with a plain prototype (what JSON.parse makes). */
function isSmallValue(value: object): boolean {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  if (items.length > MAX_SHARED_ENTRIES) return false;
  return items.every((item) => {
    if (!isRecord(item) || Object.getPrototypeOf(item) !== Object.prototype) return false;
    const fields = Object.values(item);
    return (
      fields.length <= MAX_SHARED_ENTRIES &&
      fields.every((field) => field === null || typeof field !== 'object')
    );
  });
}

/**
 * The paths of an Ingress mostly name one backend, each path its own copy; a frozen object keeps
 * one (`backends` holds those seen in this object, settled before the next path is reached).
 */
function sameBackend(backends: Map<string, unknown>, backend: Record<string, unknown>): unknown {
  const key = JSON.stringify(backend);
  const seen = backends.get(key);
  if (seen !== undefined) return seen;
  backends.set(key, backend);
  return backend;
}

/**
 * Shares the values of enumeration fields and, when `freeze`, the small values of
 * SHARED_OBJECT_FIELDS; then deep-freezes `value` when `freeze`.
 */
function settle(value: unknown, freeze: boolean, backends: Map<string, unknown> | undefined): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    for (const item of value) settle(item, freeze, backends);
  } else {
    const record = value as Record<string, unknown>;
    for (const key in record) {
      let field = record[key];
      if (ENUM_FIELDS.has(key)) {
        if (typeof field === 'string') field = record[key] = shareValue(field);
        else if (Array.isArray(field))
          field = record[key] = field.map((item: unknown) =>
            typeof item === 'string' ? shareValue(item) : item,
          );
      } else if (freeze && SHARED_OBJECT_FIELDS.has(key) && typeof field === 'object' && field !== null) {
        field = record[key] = shareObject(field);
      } else if (backends !== undefined && key === 'backend' && isRecord(field)) {
        field = record[key] = sameBackend(backends, field);
      }
      settle(field, freeze, backends);
    }
  }
  if (freeze) Object.freeze(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
