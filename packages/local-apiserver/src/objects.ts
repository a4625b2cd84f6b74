/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** The metadata fields the server reads and writes; everything else passes through. */
export interface ObjectMeta extends JsonObject {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: JsonObject[];
  managedFields?: JsonObject[];
}

/** A Kubernetes object as JSON: `apiVersion`, `kind`, `metadata`, and any other fields. */
export interface KubeObject extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/** True for a non-null, non-array object. */
export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of JSON values; object key order is ignored. */
export function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!isDeepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aObject = a as JsonObject;
  const bObject = b as JsonObject;
  let aCount = 0;
  for (const key in aObject) {
    if (aObject[key] === undefined) continue;
    aCount += 1;
    if (!isDeepEqual(aObject[key], bObject[key])) return false;
  }
  let bCount = 0;
  for (const key in bObject) if (bObject[key] !== undefined) bCount += 1;
  return aCount === bCount;
}

/** Text for a value inside an error message: strings as they are, anything else as JSON. */
export function describeValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** A deep copy of a JSON value (`undefined` members dropped, like a JSON round trip). */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => cloneJson(item)) as T;
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value as JsonObject)) {
    if (item !== undefined) copy[key] = cloneJson(item);
  }
  return copy as T;
}

/**
 * Returns `object` with `apiVersion`, `kind` and `metadata` as its first keys. Stored objects keep
 * this order so their JSON always starts with the apiVersion, which lets one serialization serve
 * every version of a custom resource (only the leading apiVersion is swapped).
 */
export function orderTopLevelKeys(object: KubeObject): KubeObject {
  const { apiVersion, kind, metadata, ...rest } = object;
  return { apiVersion, kind, metadata, ...rest };
}

/** `group/version`, or `version` for the core group. */
export function formatApiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Splits an apiVersion into group and version (`v1` → core group). */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Reads a dotted path (`spec.nodeName`) from an object; undefined when any step is missing. */
export function readPath(object: unknown, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const step of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[step];
  }
  return current;
}
