/**
 * Stored object versions, serialized once and shown in the shape of the endpoint that serves them,
 * for reads, lists and watches.
 */
import {
  formatApiVersion,
  orderTopLevelKeys,
  type JsonObject,
  type KubeObject,
  type ObjectMeta,
} from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';

/** One stored object version with its JSON, serialized once and reused by lists and watches. */
export interface Entry {
  readonly key: string;
  readonly object: KubeObject;
  readonly json: string;
  readonly rv: number;
}

/** The event types a watch can carry for an object change. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

const metadataOrder = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/** Formats a time the way object timestamps are written: RFC 3339 with whole seconds. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The JSON of `entry` as `definition`'s endpoint serves it (another CRD version, the events.k8s.io shape). */
export function serializeEntry(entry: Entry, definition: ResourceDefinition): string {
  if (definition.convert) return JSON.stringify(orderTopLevelKeys(definition.convert.toView(entry.object)));
  const apiVersion = formatApiVersion(definition.group, definition.version);
  if (apiVersion === entry.object.apiVersion) return entry.json;
  // Stored JSON always starts with {"apiVersion":"…", so another version only swaps that prefix.
  const prefixLength = '{"apiVersion":'.length + JSON.stringify(entry.object.apiVersion).length;
  return `{"apiVersion":${JSON.stringify(apiVersion)}${entry.json.slice(prefixLength)}`;
}

/** `entry` as a plain object in `definition`'s shape; shares structure with the stored object, so never mutate it. */
export function viewEntry(entry: Entry, definition: ResourceDefinition): KubeObject {
  if (definition.convert) return definition.convert.toView(entry.object);
  const apiVersion = formatApiVersion(definition.group, definition.version);
  return apiVersion === entry.object.apiVersion ? entry.object : { ...entry.object, apiVersion };
}

/** Wraps a stored object with its JSON (serialized here, once). */
export function makeEntry(key: string, object: KubeObject, rv: number): Entry {
  return { key, object, json: JSON.stringify(object), rv };
}

/** Returns metadata with its keys in the order kube-apiserver writes them. */
export function orderMetadata(meta: ObjectMeta): ObjectMeta {
  const ordered: JsonObject = {};
  for (const key of metadataOrder) if (meta[key] !== undefined) ordered[key] = meta[key];
  for (const [key, value] of Object.entries(meta))
    if (!(key in ordered) && value !== undefined) ordered[key] = value;
  return ordered;
}
