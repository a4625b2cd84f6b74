/**
 * PartialObjectMetadata answers (`meta.k8s.io/v1`): what a client asking with
 * `Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` (or
 * `as=PartialObjectMetadata` for one object) gets instead of whole objects, as controller-runtime's
 * metadata-only informers ask for it.
 */
import type { JsonObject } from './objects.js';
import type { Entry } from './entries.js';
import { listMetadataOf } from './list-page.js';

/** True when the Accept header's first JSON choice asks for `meta.k8s.io/v1` PartialObjectMetadata. */
export function wantsPartialMetadata(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = accept.split(',').find((part) => part.trim().startsWith('application/json'));
  if (first === undefined) return false;
  const parameters = new Map(
    first
      .split(';')
      .slice(1)
      .map((parameter) => parameter.trim().split('=') as [string, string | undefined]),
  );
  return (
    (parameters.get('as') === 'PartialObjectMetadataList' ||
      parameters.get('as') === 'PartialObjectMetadata') &&
    parameters.get('g') === 'meta.k8s.io' &&
    parameters.get('v') === 'v1'
  );
}

/** One object as PartialObjectMetadata: its metadata only. */
export function buildPartialMetadata(entry: Entry): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: entry.object.metadata };
}

/** A list page as a PartialObjectMetadataList, with the list's resourceVersion and paging fields. */
export function buildPartialMetadataList(
  entries: readonly Entry[],
  list: { resourceVersion: number; continueToken?: string; remainingItemCount?: number },
): JsonObject {
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMetadataOf(list),
    items: entries.map(buildPartialMetadata),
  };
}
