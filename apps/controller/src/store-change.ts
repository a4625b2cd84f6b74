/**
 * A store change as the contribution sources read it: the event, and the snapshot it left (to
 * find what refers to the object that changed).
 */
import type { ChangeEvent, StoreSnapshot } from '@ingresskit/store';

/** A store event and the snapshot after it. */
export interface StoreChange {
  event: ChangeEvent;
  snapshot: StoreSnapshot;
}

/** Whether an update changed only status (and the versions the API server keeps): our own writes. */
export function isStatusOnlyChange(
  before: { metadata: object; spec?: unknown } | undefined,
  after: { metadata: object; spec?: unknown } | undefined,
): boolean {
  if (before === undefined || after === undefined) return false;
  const strip = (object: { metadata: object; spec?: unknown }) => {
    const {
      resourceVersion: _resourceVersion,
      managedFields: _managedFields,
      ...metadata
    } = object.metadata as Record<string, unknown>;
    return JSON.stringify({ metadata, spec: object.spec });
  };
  return strip(before) === strip(after);
}
