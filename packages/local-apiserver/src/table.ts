/** The Tables `kubectl get` asks for, with Name and Age columns. */
import type { JsonObject } from './objects.js';
import { serializeEntry, type Entry } from './entries.js';
import { listMetadataOf } from './list-page.js';
import type { ResourceDefinition } from './resource-definition.js';

/** True when the Accept header asks for a `meta.k8s.io` Table (as kubectl get does). */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept
    .split(',')
    .some((part) => /;\s*as=Table/.test(part) && part.trim().startsWith('application/json'));
}

/** Formats an age like kubectl: `45s`, `3m12s`, `25m`, `5h3m`, `30h`, `3d4h`, `12d`. */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 > 0 ? `${s % 60}s` : ''}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return `${h}h${m % 60 > 0 ? `${m % 60}m` : ''}`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return `${d}d${h % 24 > 0 ? `${h % 24}h` : ''}`;
  return `${d}d`;
}

/**
 * A `meta.k8s.io/v1` Table with Name and Age columns. Rows carry the object as
 * PartialObjectMetadata, the full object (`includeObject=Object`) or nothing (`None`).
 */
export function buildTable(
  definition: ResourceDefinition,
  entries: readonly Entry[],
  list: { resourceVersion: number; continueToken?: string; remainingItemCount?: number } | undefined,
  now: Date,
  query: URLSearchParams,
): JsonObject {
  const include = query.get('includeObject') ?? 'Metadata';
  const rows = entries.map((entry) => {
    const metadata = entry.object.metadata;
    const created = Date.parse(metadata.creationTimestamp ?? '');
    const age = Number.isNaN(created) ? '<unknown>' : formatAge((now.getTime() - created) / 1000);
    const row: JsonObject = { cells: [metadata.name ?? '', age] };
    if (include === 'Object') row.object = JSON.parse(serializeEntry(entry, definition)) as unknown;
    else if (include !== 'None') {
      row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
    }
    return row;
  });
  const metadata: JsonObject = list ? listMetadataOf(list) : {};
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: [
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        description: 'Name must be unique within a namespace.',
        priority: 0,
      },
      {
        name: 'Age',
        type: 'string',
        format: '',
        description:
          'CreationTimestamp is a timestamp representing the server time when this object was created.',
        priority: 0,
      },
    ],
    rows,
  };
}
