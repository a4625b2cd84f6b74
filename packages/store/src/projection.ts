/**
 * Keeps of a Service or an EndpointSlice only what a controller reads (like an informer transform
 * in client-go): at 10,000 Services with their EndpointSlices the rest is about 4 MiB of heap that
 * nothing looks at. Other kinds are kept whole: translators read Ingresses, Secrets and Gateway API
 * objects field by field, and which fields is theirs to decide.
 */
import type { ResourceKind } from './resources.js';

/**
 * The spec fields of a Service that are kept: what routes to it (type, externalName, ports,
 * clusterIP for service-upstream), its selector and the addresses a publish-service reads
 * (externalIPs; `status.loadBalancer` is kept with the status).
 */
const SERVICE_SPEC_FIELDS = ['type', 'externalName', 'ports', 'clusterIP', 'selector', 'externalIPs'];

/** The fields of an endpoint that are kept: where it is and whether it serves. */
const ENDPOINT_FIELDS = ['addresses', 'conditions'];

/** The one label of an EndpointSlice a controller reads: the Service it belongs to. */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/**
 * Metadata of a Service or EndpointSlice that is kept: its identity, the version the store
 * compares, labels (selectors, the slice's Service) and annotations (a Service's are read by
 * translators of other controllers; a slice keeps none, see projectObject), and deletion.
 */
const METADATA_FIELDS = [
  'name',
  'namespace',
  'resourceVersion',
  'labels',
  'annotations',
  'deletionTimestamp',
];
const SLICE_METADATA_FIELDS = METADATA_FIELDS.filter((field) => field !== 'annotations');

/**
 * Trims `object`, freshly parsed and not yet shared, to the fields the controller reads: its parts
 * are replaced by trimmed copies (deleting properties would turn V8 objects into dictionaries,
 * larger than what was deleted). Objects of other kinds are left as they are.
 */
export function projectObject(object: Record<string, unknown>, kind: ResourceKind): void {
  if (kind === 'Service') {
    object.metadata = pick(object.metadata, METADATA_FIELDS);
    if (isRecord(object.spec)) object.spec = pick(object.spec, SERVICE_SPEC_FIELDS);
  } else if (kind === 'EndpointSlice') {
    // The EndpointSlice controller copies the Service's labels and stamps a trigger time as an
    // annotation on every change; only the Service name is read.
    const metadata = pick(object.metadata, SLICE_METADATA_FIELDS);
    if (isRecord(metadata.labels)) {
      const service = metadata.labels[SERVICE_NAME_LABEL];
      // A literal, not a computed key: V8 then sizes the object for exactly one property.
      metadata.labels = service === undefined ? {} : { 'kubernetes.io/service-name': service };
    }
    object.metadata = metadata;
    if (Array.isArray(object.endpoints)) object.endpoints = object.endpoints.map(projectEndpoint);
  }
}

function projectEndpoint(endpoint: unknown): unknown {
  if (!isRecord(endpoint)) return endpoint;
  const { addresses, conditions } = endpoint;
  // The usual endpoint as a literal of exactly its two fields (an object built up from `{}` has
  // room for four).
  return addresses !== undefined && conditions !== undefined
    ? { addresses, conditions }
    : pick(endpoint, ENDPOINT_FIELDS);
}

/** A copy of `record` with only `fields`, in that order, leaving out absent ones. */
function pick(record: unknown, fields: readonly string[]): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (!isRecord(record)) return kept;
  for (const field of fields) if (record[field] !== undefined) kept[field] = record[field];
  return kept;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
