/**
 * The IngressCheckSum and SecretCheckSum custom resources: where they live in the API and the new
 * objects a control plane publishes.
 */
import { TENGINE_API_GROUP } from '@ingresskit/kube-objects/pure';
import { hashSortedIds } from './compute.js';
import { InvalidChecksumInputError } from './errors.js';

/** API group of the IngressCheckSum and SecretCheckSum custom resources. */
export const checksumApiGroup = TENGINE_API_GROUP;

/** The one served and stored version of both custom resources. */
export const checksumApiVersion = 'v1';

/** Group, version and plural of IngressCheckSum, as a custom-objects client wants them. */
export const ingressCheckSumResource = {
  group: checksumApiGroup,
  version: checksumApiVersion,
  plural: 'ingresschecksums',
} as const;

/** Group, version and plural of SecretCheckSum, as a custom-objects client wants them. */
export const secretCheckSumResource = {
  group: checksumApiGroup,
  version: checksumApiVersion,
  plural: 'secretchecksums',
} as const;

/** The spec both checksum kinds share: the md5, the ids it was computed from, and when. */
export interface ChecksumSpec {
  /** Lowercase hex md5 of the sorted, comma-joined ids. */
  checksum: string;
  /** The ids the checksum was computed from, sorted by code unit, duplicates kept. */
  ids: string[];
  /** RFC 3339 time, in seconds, at which the checksum was computed. */
  timestamp: string;
}

/** Metadata of a checksum object built here: a fixed name, or a prefix the API server completes. */
export interface ChecksumObjectMetadata {
  namespace: string;
  name?: string;
  generateName?: string;
}

/** An IngressCheckSum object ready to create. */
export interface IngressCheckSum {
  apiVersion: 'tengine.taobao.org/v1';
  kind: 'IngressCheckSum';
  metadata: ChecksumObjectMetadata;
  spec: ChecksumSpec;
}

/** A SecretCheckSum object ready to create. */
export interface SecretCheckSum {
  apiVersion: 'tengine.taobao.org/v1';
  kind: 'SecretCheckSum';
  metadata: ChecksumObjectMetadata;
  spec: ChecksumSpec;
}

/** Options for {@link buildIngressCheckSum} and {@link buildSecretCheckSum}. */
export interface BuildChecksumOptions {
  /** Namespace the object is created in (the data plane watches its own or all namespaces). */
  namespace: string;
  /** The time the checksum is computed, injected so the result is reproducible. */
  now: Date;
  /** A fixed name; without one the object gets `generateName` so that every publication is new. */
  name?: string;
}

/**
 * A new IngressCheckSum for `ids` (computed with {@link ingressConfigId}), to be created by a control
 * plane. Publish a new object each time and delete the older ones: Tengine ignores edits to an
 * existing object. Throws InvalidChecksumInputError when the namespace is empty or `now` is invalid.
 */
export function buildIngressCheckSum(ids: Iterable<string>, options: BuildChecksumOptions): IngressCheckSum {
  return {
    apiVersion: 'tengine.taobao.org/v1',
    kind: 'IngressCheckSum',
    metadata: buildMetadata(options, 'ingress-checksum-'),
    spec: buildSpec(ids, options.now),
  };
}

/**
 * A new SecretCheckSum for `ids` (computed with {@link secretConfigId}); otherwise the same as
 * {@link buildIngressCheckSum}.
 */
export function buildSecretCheckSum(ids: Iterable<string>, options: BuildChecksumOptions): SecretCheckSum {
  return {
    apiVersion: 'tengine.taobao.org/v1',
    kind: 'SecretCheckSum',
    metadata: buildMetadata(options, 'secret-checksum-'),
    spec: buildSpec(ids, options.now),
  };
}

function buildMetadata(options: BuildChecksumOptions, generateName: string): ChecksumObjectMetadata {
  if (!options.namespace) {
    throw new InvalidChecksumInputError(
      'a checksum object needs a namespace: the custom resources are namespaced',
    );
  }
  return options.name
    ? { namespace: options.namespace, name: options.name }
    : { namespace: options.namespace, generateName };
}

function buildSpec(ids: Iterable<string>, now: Date): ChecksumSpec {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new InvalidChecksumInputError(`cannot build a checksum object: "now" is not a valid Date`);
  }
  const sorted = [...ids].sort();
  return { checksum: hashSortedIds(sorted), ids: sorted, timestamp: formatTimestamp(now) };
}

// metav1.Time marshals as RFC 3339 in whole seconds; writing the same keeps Go readers and diffs tidy.
function formatTimestamp(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
