/**
 * Server-side apply, approximated: a manager's intent merged into the live object, and who owns
 * which field kept in managedFields.
 */
import {
  cloneJson,
  describeValue,
  isDeepEqual,
  isPlainObject,
  type JsonObject,
  type KubeObject,
} from './objects.js';

/** What one server-side apply request asks for. */
export interface ServerSideApplyInput {
  /** The live object in the endpoint's shape, or undefined when apply creates it. */
  current: KubeObject | undefined;
  intent: KubeObject;
  manager: string;
  force: boolean;
  /** `status` when applying to the status subresource: only `status` is owned then. */
  subresource?: 'status';
  /** True on the main endpoint of a resource with a status subresource: `status` is ignored. */
  ignoresStatus: boolean;
  apiVersion: string;
  /** The time recorded in the manager's managedFields entry (RFC 3339, seconds). */
  now: string;
}

/** One field another manager owns with a different value. */
export interface ApplyConflict {
  manager: string;
  field: string;
}

/** The merged object, or the conflicts that stop it (HTTP 409 unless forced). */
export type ServerSideApplyOutcome =
  { applied: true; object: KubeObject } | { applied: false; conflicts: ApplyConflict[] };

type FieldPath = readonly string[];

const serverOwnedMetadata = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

/**
 * An approximation of server-side apply: the intent is merged into the live object (objects merge,
 * lists are atomic), fields the manager applied before and left out now are removed unless another
 * manager owns them, and every manager's fields are recorded in `metadata.managedFields`
 * (FieldsV1). Setting a field another apply manager owns to a different value is a conflict
 * unless `force` moves the ownership.
 */
export function applyServerSide(input: ServerSideApplyInput): ServerSideApplyOutcome {
  const { current, intent, manager } = input;
  const intentPaths = collectLeafPaths(intent, input);
  const entries = readManagedFields(current);
  const mine = entries.find((entry) => isSameEntry(entry, manager, input.subresource));
  const minePaths = mine ? fieldsToPaths(mine.fieldsV1) : [];
  const conflicts: ApplyConflict[] = [];
  const others = entries.filter((entry) => entry !== mine);
  const otherPaths = others.map((entry) => ({ entry, paths: fieldsToPaths(entry.fieldsV1) }));

  for (const path of intentPaths) {
    const wanted = readAt(intent, path);
    if (current !== undefined && isDeepEqual(readAt(current, path), wanted)) continue;
    for (const other of otherPaths) {
      if (other.paths.some((owned) => overlaps(owned, path))) {
        conflicts.push({ manager: describeValue(other.entry.manager ?? ''), field: formatPath(path) });
      }
    }
  }
  if (conflicts.length > 0 && !input.force) return { applied: false, conflicts };
  if (input.force) {
    for (const other of otherPaths) {
      other.paths = other.paths.filter((owned) => !intentPaths.some((path) => overlaps(owned, path)));
    }
  }

  let merged: JsonObject = current
    ? cloneJson(current)
    : { apiVersion: intent.apiVersion, kind: intent.kind, metadata: {} };
  const intentKeys = new Set(intentPaths.map((path) => path.join('\u0000')));
  for (const path of minePaths) {
    if (intentKeys.has(path.join('\u0000'))) continue;
    if (intentPaths.some((kept) => overlaps(kept, path))) continue;
    if (otherPaths.some((other) => other.paths.some((owned) => overlaps(owned, path)))) continue;
    deleteAt(merged, path);
  }
  merged = mergeIntent(merged, intent, input) as JsonObject;

  const unchanged =
    mine !== undefined &&
    samePaths(minePaths, intentPaths) &&
    current !== undefined &&
    isDeepEqual(stripManaged(current), stripManaged(merged as KubeObject));
  const nextEntries: JsonObject[] = [];
  for (const other of otherPaths) {
    if (other.paths.length === 0) continue;
    nextEntries.push({ ...other.entry, fieldsV1: pathsToFields(other.paths) });
  }
  if (intentPaths.length > 0) {
    const entry: JsonObject = unchanged
      ? mine
      : {
          manager,
          operation: 'Apply',
          apiVersion: input.apiVersion,
          time: input.now,
          fieldsType: 'FieldsV1',
          fieldsV1: pathsToFields(intentPaths),
        };
    if (input.subresource && !unchanged) entry.subresource = input.subresource;
    nextEntries.push(entry);
  }
  const metadata = { ...(merged.metadata as JsonObject) };
  if (nextEntries.length > 0) metadata.managedFields = nextEntries;
  else delete metadata.managedFields;
  merged.metadata = metadata;
  return { applied: true, object: merged as KubeObject };
}

function isSameEntry(entry: JsonObject, manager: string, subresource: string | undefined): boolean {
  return (
    entry.manager === manager &&
    entry.operation === 'Apply' &&
    (entry.subresource ?? undefined) === subresource
  );
}

function readManagedFields(object: KubeObject | undefined): JsonObject[] {
  const entries = object?.metadata.managedFields;
  return Array.isArray(entries) ? entries.filter(isPlainObject) : [];
}

function stripManaged(object: KubeObject): JsonObject {
  const { managedFields: _managed, resourceVersion: _rv, ...metadata } = object.metadata;
  return { ...object, metadata };
}

function collectLeafPaths(intent: KubeObject, input: ServerSideApplyInput): FieldPath[] {
  const paths: FieldPath[] = [];
  for (const [key, value] of Object.entries(intent)) {
    if (key === 'apiVersion' || key === 'kind' || value === undefined || value === null) continue;
    if (input.subresource === 'status' ? key !== 'status' : key === 'status' && input.ignoresStatus) continue;
    if (key === 'metadata') {
      if (!isPlainObject(value)) continue;
      for (const [metaKey, metaValue] of Object.entries(value)) {
        if (serverOwnedMetadata.has(metaKey) || metaValue === undefined || metaValue === null) continue;
        walk(metaValue, ['metadata', metaKey], paths);
      }
      continue;
    }
    walk(value, [key], paths);
  }
  return paths;
}

function walk(value: unknown, path: string[], out: FieldPath[]): void {
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    for (const [key, item] of Object.entries(value)) if (item !== undefined) walk(item, [...path, key], out);
    return;
  }
  out.push(path);
}

function mergeIntent(target: unknown, intent: unknown, input: ServerSideApplyInput, depth = 0): unknown {
  if (!isPlainObject(intent)) return cloneJson(intent);
  const result: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(intent)) {
    if (value === undefined || value === null) continue;
    if (
      depth === 0 &&
      (input.subresource === 'status' ? key !== 'status' : key === 'status' && input.ignoresStatus)
    ) {
      continue;
    }
    if (depth === 0 && key === 'metadata' && isPlainObject(value)) {
      const metadata: JsonObject = isPlainObject(result.metadata) ? { ...result.metadata } : {};
      for (const [metaKey, metaValue] of Object.entries(value)) {
        if (metaValue === undefined || metaValue === null || metaKey === 'managedFields') continue;
        if (
          serverOwnedMetadata.has(metaKey) &&
          metaKey !== 'name' &&
          metaKey !== 'namespace' &&
          metaKey !== 'resourceVersion'
        ) {
          continue;
        }
        metadata[metaKey] = mergeIntent(metadata[metaKey], metaValue, input, depth + 2);
      }
      result.metadata = metadata;
      continue;
    }
    result[key] = mergeIntent(result[key], value, input, depth + 1);
  }
  return result;
}

function readAt(object: unknown, path: FieldPath): unknown {
  let current = object;
  for (const step of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[step];
  }
  return current;
}

function deleteAt(object: JsonObject, path: FieldPath): void {
  let current: JsonObject = object;
  const chain: JsonObject[] = [object];
  for (const step of path.slice(0, -1)) {
    const next = current[step];
    if (!isPlainObject(next)) return;
    const copy = { ...next };
    current[step] = copy;
    current = copy;
    chain.push(copy);
  }
  delete current[path[path.length - 1]!];
  // Drop maps the removal left empty, as apply does for fields nobody owns any more.
  for (let i = chain.length - 1; i > 0; i--) {
    if (Object.keys(chain[i]!).length > 0) break;
    delete chain[i - 1]![path[i - 1]!];
  }
}

function overlaps(a: FieldPath, b: FieldPath): boolean {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function samePaths(a: readonly FieldPath[], b: readonly FieldPath[]): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map((path) => path.join('\u0000')));
  return b.every((path) => keys.has(path.join('\u0000')));
}

function formatPath(path: FieldPath): string {
  return path.map((step) => `.${step}`).join('');
}

/** Converts leaf field paths into the FieldsV1 tree (`{"f:spec":{"f:replicas":{}}}`). */
export function pathsToFields(paths: readonly FieldPath[]): JsonObject {
  const root: JsonObject = {};
  for (const path of paths) {
    let node = root;
    for (const step of path) {
      const key = `f:${step}`;
      if (!isPlainObject(node[key])) node[key] = {};
      node = node[key] as JsonObject;
    }
  }
  return root;
}

/** Converts a FieldsV1 tree into leaf field paths; list item keys (`k:`, `v:`, `i:`) make the list a leaf. */
export function fieldsToPaths(fields: unknown, prefix: string[] = []): FieldPath[] {
  if (!isPlainObject(fields)) return prefix.length > 0 ? [prefix] : [];
  const children = Object.keys(fields).filter((key) => key !== '.');
  if (children.length === 0 || children.some((key) => !key.startsWith('f:'))) {
    return prefix.length > 0 ? [prefix] : [];
  }
  return children.flatMap((key) => fieldsToPaths(fields[key], [...prefix, key.slice(2)]));
}
