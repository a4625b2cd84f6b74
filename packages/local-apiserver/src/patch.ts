/** The patches a PATCH request can carry: JSON patch, merge patch and strategic merge patch. */
import { PatchError } from './errors.js';
import { cloneJson, isDeepEqual, isPlainObject, type JsonObject } from './objects.js';

/** The patch media types kube-apiserver understands. */
export const patchContentTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** Which kind of patch a PATCH request carries. */
export type PatchKind = keyof typeof patchContentTypes;

/** The patch kind named by a Content-Type header, or undefined for anything else. */
export function parsePatchContentType(contentType: string | undefined): PatchKind | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  for (const [kind, media] of Object.entries(patchContentTypes) as [PatchKind, string][]) {
    if (type === media) return kind;
  }
  if (type === 'application/apply-patch+json') return 'apply';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// RFC 6902 JSON patch

/** Applies an RFC 6902 JSON patch; `document` is not modified. Throws `PatchError` (400 malformed, 422 failed op). */
export function applyJsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw new PatchError('json patch must be a JSON array of operations', 400);
  let root: unknown = cloneJson(document);
  for (const [index, raw] of operations.entries()) {
    if (!isPlainObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw new PatchError(`invalid json patch operation at index ${index}: needs "op" and "path"`, 400);
    }
    const path = parsePointer(raw.path);
    switch (raw.op) {
      case 'add':
        requireValue(raw, index);
        root = addAt(root, path, cloneJson(raw.value), raw.path);
        break;
      case 'remove':
        root = removeAt(root, path, raw.path).root;
        break;
      case 'replace':
        requireValue(raw, index);
        readAt(root, path, raw.path);
        root = addAt(removeAt(root, path, raw.path).root, path, cloneJson(raw.value), raw.path);
        break;
      case 'move': {
        const from = fromPointer(raw, index);
        const removed = removeAt(root, from.path, from.text);
        root = addAt(removed.root, path, removed.value, raw.path);
        break;
      }
      case 'copy': {
        const from = fromPointer(raw, index);
        root = addAt(root, path, cloneJson(readAt(root, from.path, from.text)), raw.path);
        break;
      }
      case 'test':
        requireValue(raw, index);
        if (!isDeepEqual(readAt(root, path, raw.path), raw.value)) {
          throw new PatchError(`testing value ${raw.path} failed`, 422);
        }
        break;
      default:
        throw new PatchError(`unexpected json patch operation ${JSON.stringify(raw.op)}`, 400);
    }
  }
  return root;
}

function requireValue(operation: JsonObject, index: number): void {
  if (!('value' in operation)) {
    throw new PatchError(
      `invalid json patch operation at index ${index}: "${String(operation.op)}" needs "value"`,
      400,
    );
  }
}

function fromPointer(operation: JsonObject, index: number): { path: string[]; text: string } {
  if (typeof operation.from !== 'string') {
    throw new PatchError(
      `invalid json patch operation at index ${index}: "${String(operation.op)}" needs "from"`,
      400,
    );
  }
  return { path: parsePointer(operation.from), text: operation.from };
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`invalid json pointer ${JSON.stringify(pointer)}`, 400);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, allowEnd: boolean, pointer: string): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchError(`invalid array index in ${pointer}`, 422);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) {
    throw new PatchError(`array index out of bounds in ${pointer}`, 422);
  }
  return index;
}

function readAt(root: unknown, path: readonly string[], pointer: string): unknown {
  let current = root;
  for (const token of path) {
    if (Array.isArray(current)) current = current[arrayIndex(token, current.length, false, pointer)];
    else if (isPlainObject(current) && Object.hasOwn(current, token)) current = current[token];
    else throw new PatchError(`doc is missing path: ${pointer}`, 422);
  }
  return current;
}

function parentOf(root: unknown, path: readonly string[], pointer: string): unknown {
  return readAt(root, path.slice(0, -1), pointer);
}

function addAt(root: unknown, path: readonly string[], value: unknown, pointer: string): unknown {
  if (path.length === 0) return value;
  const parent = parentOf(root, path, pointer);
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true, pointer), 0, value);
  else if (isPlainObject(parent)) parent[last] = value;
  else throw new PatchError(`doc is missing path: ${pointer}`, 422);
  return root;
}

function removeAt(
  root: unknown,
  path: readonly string[],
  pointer: string,
): { root: unknown; value: unknown } {
  if (path.length === 0) return { root: undefined, value: root };
  const parent = parentOf(root, path, pointer);
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const removed: unknown[] = parent.splice(arrayIndex(last, parent.length, false, pointer), 1);
    return { root, value: removed[0] };
  }
  if (isPlainObject(parent) && Object.hasOwn(parent, last)) {
    const value = parent[last];
    delete parent[last];
    return { root, value };
  }
  throw new PatchError(`unable to remove nonexistent key: ${last}: missing value`, 422);
}

// ---------------------------------------------------------------------------------------------
// RFC 7386 merge patch

/** Applies an RFC 7386 merge patch (null deletes, arrays replace); `target` is not modified. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return cloneJson(patch);
  const result: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Strategic merge patch

/**
 * Applies a strategic merge patch: a merge patch where lists named in `mergeKeys` merge by key
 * (`''` = a set of primitives, such as `metadata.finalizers`), and the directives `$patch`,
 * `$retainKeys`, `$deleteFromPrimitiveList/<f>` and `$setElementOrder/<f>` are honoured. Lists not
 * named are atomic. `original` is not modified.
 */
export function applyStrategicMergePatch(
  original: unknown,
  patch: unknown,
  mergeKeys: Readonly<Record<string, string>>,
): unknown {
  if (!isPlainObject(patch)) throw new PatchError('strategic merge patch must be a JSON object', 400);
  return mergeObject(original, patch, mergeKeys, '');
}

function mergeObject(
  original: unknown,
  patch: JsonObject,
  mergeKeys: Readonly<Record<string, string>>,
  path: string,
): unknown {
  const directive = patch.$patch;
  if (directive === 'replace') {
    const { $patch: _ignored, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (directive === 'delete') return undefined;
  if (directive !== undefined) throw new PatchError(`unknown patch type: ${JSON.stringify(directive)}`, 400);
  const result: JsonObject = isPlainObject(original) ? { ...original } : {};
  const retain = patch.$retainKeys;
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw new PatchError('$retainKeys must be a list', 400);
    for (const key of Object.keys(result)) if (!retain.includes(key) && !(key in patch)) delete result[key];
  }
  const orders: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$retainKeys') continue;
    if (key.startsWith('$setElementOrder/')) {
      orders.push([key.slice('$setElementOrder/'.length), value]);
      continue;
    }
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      if (!Array.isArray(value)) throw new PatchError(`${key} must be a list`, 400);
      const list = result[field];
      if (Array.isArray(list))
        result[field] = list.filter((item) => !value.some((gone) => isDeepEqual(gone, item)));
      continue;
    }
    const childPath = path === '' ? key : `${path}.${key}`;
    if (value === null) {
      delete result[key];
    } else if (Array.isArray(value)) {
      const mergeKey = mergeKeys[childPath];
      if (mergeKey === undefined) result[key] = stripDirectives(value);
      else if (mergeKey === '') result[key] = mergePrimitiveList(result[key], value);
      else result[key] = mergeListByKey(result[key], value, mergeKey, mergeKeys, childPath);
    } else if (isPlainObject(value)) {
      const merged = mergeObject(result[key], value, mergeKeys, childPath);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = value;
    }
  }
  for (const [field, order] of orders) {
    if (Array.isArray(order) && Array.isArray(result[field])) {
      result[field] = reorder(
        result[field] as unknown[],
        order,
        mergeKeys[path === '' ? field : `${path}.${field}`],
      );
    }
  }
  return result;
}

function mergePrimitiveList(original: unknown, patch: unknown[]): unknown[] {
  const result = Array.isArray(original) ? [...(original as unknown[])] : [];
  for (const item of patch) if (!result.some((existing) => isDeepEqual(existing, item))) result.push(item);
  return result;
}

function mergeListByKey(
  original: unknown,
  patch: unknown[],
  mergeKey: string,
  mergeKeys: Readonly<Record<string, string>>,
  path: string,
): unknown[] {
  if (
    patch.some((item) => isPlainObject(item) && item.$patch === 'replace' && Object.keys(item).length === 1)
  ) {
    return stripDirectives(
      patch.filter((item) => !(isPlainObject(item) && item.$patch === 'replace')),
    ) as unknown[];
  }
  const result = Array.isArray(original) ? [...(original as unknown[])] : [];
  for (const item of patch) {
    if (!isPlainObject(item)) {
      result.push(item);
      continue;
    }
    const keyValue = item[mergeKey];
    const index = result.findIndex(
      (existing) => isPlainObject(existing) && isDeepEqual(existing[mergeKey], keyValue),
    );
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    const merged = mergeObject(index >= 0 ? result[index] : undefined, item, mergeKeys, path);
    if (index >= 0) {
      if (merged === undefined) result.splice(index, 1);
      else result[index] = merged;
    } else if (merged !== undefined) {
      result.push(merged);
    }
  }
  return result;
}

function reorder(list: unknown[], order: unknown[], mergeKey: string | undefined): unknown[] {
  const identity = (item: unknown): unknown =>
    mergeKey !== undefined && mergeKey !== '' && isPlainObject(item) ? item[mergeKey] : item;
  const wanted = order.map(identity);
  const ranked = list.map((item, index) => {
    const rank = wanted.findIndex((value) => isDeepEqual(value, identity(item)));
    return { item, rank: rank < 0 ? wanted.length + index : rank };
  });
  ranked.sort((a, b) => a.rank - b.rank);
  return ranked.map(({ item }) => item);
}

/** Removes strategic-merge-patch directive keys (`$patch`, `$retainKeys`, …) from a value. */
export function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => stripDirectives(item));
  if (!isPlainObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key.startsWith('$')) continue;
    result[key] = stripDirectives(item);
  }
  return result;
}
