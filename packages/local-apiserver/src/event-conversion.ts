/**
 * Events served by both APIs: core/v1 and events.k8s.io/v1 read and write the same stored objects,
 * converted field by field.
 */
import type { JsonObject, KubeObject } from './objects.js';

// core/v1 Event field ↔ events.k8s.io/v1 Event field; both APIs serve the same stored objects.
const renames: readonly (readonly [core: string, events: string])[] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];
const shared = ['reason', 'type', 'action', 'related', 'reportingInstance', 'eventTime', 'series'];

/** Converts a stored core/v1 Event into its events.k8s.io/v1 shape. */
export function toEventsV1(stored: KubeObject): KubeObject {
  const view: JsonObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: stored.metadata };
  for (const field of shared) if (stored[field] !== undefined) view[field] = stored[field];
  for (const [core, events] of renames) if (stored[core] !== undefined) view[events] = stored[core];
  return view as KubeObject;
}

/** Converts an events.k8s.io/v1 Event into the stored core/v1 shape. */
export function fromEventsV1(view: KubeObject): KubeObject {
  const stored: JsonObject = { apiVersion: 'v1', kind: 'Event', metadata: view.metadata };
  for (const field of shared) if (view[field] !== undefined) stored[field] = view[field];
  for (const [core, events] of renames) if (view[events] !== undefined) stored[core] = view[events];
  return stored as KubeObject;
}
