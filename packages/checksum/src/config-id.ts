/**
 * The configuration ids the checksum is made of, built from an object's name and version as
 * Tengine-Ingress builds them, or why an object has none.
 */
import {
  INGRESS_NGINX_ANNOTATION_PREFIX,
  type IngressLike,
  type ObjectMetaLike,
} from '@ingresskit/kube-objects/pure';
import { parseGoInt } from './go-int.js';

/** The annotation prefix Tengine-Ingress and ingress-nginx use unless configured otherwise. */
export const defaultAnnotationPrefix = INGRESS_NGINX_ANNOTATION_PREFIX;

/** Options for {@link ingressConfigId} and {@link secretConfigId}. */
export interface ConfigIdOptions {
  /**
   * Prefix of the `<prefix>/version` annotation; default `nginx.ingress.kubernetes.io`. Tengine
   * honours `--annotations-prefix` for Ingresses only and always reads Secrets with the default.
   */
  annotationPrefix?: string;
}

/** Why an object does not take part in the checksum. */
export type ConfigIdSkipReason =
  | 'no-version'
  | 'invalid-version'
  | 'zero-version'
  | 'no-numeric-suffix'
  | 'no-certificate'
  | 'invalid-certificate'
  | 'invalid-key-pair';

/** An object that does not take part in the checksum, with the reason and a sentence naming it. */
export interface ConfigIdSkipped {
  id: undefined;
  reason: ConfigIdSkipReason;
  message: string;
}

/** Result of {@link ingressConfigId}: the id `"<id>-<version>"`, or why there is none. */
export type IngressConfigIdResult = { id: string } | ConfigIdSkipped;

/**
 * Result of {@link secretConfigId}: the id `"<id>-<version>-<sha1>"` and whether it came from a leaf
 * certificate or from a CA-only Secret (whose id ends in an empty sha1, `"<id>-<version>-"`).
 */
export type SecretConfigIdResult = { id: string; certificate: 'leaf' | 'ca-only' } | ConfigIdSkipped;

/** The metadata the ids are made from: kube-objects' ObjectMetaLike (client objects and plain JSON fit). */
export type ConfigIdMetadata = ObjectMetaLike;

/** An Ingress as far as the checksum is concerned: kube-objects' IngressLike. */
export type { IngressLike };

/**
 * The Ingress's configuration id `"<id>-<version>"` as Tengine-Ingress computes it (`getIngID`): id is
 * the integer after the last `-` of the name, version the integer annotation `<prefix>/version`. An
 * Ingress without a non-zero integer version or without a numeric name suffix does not take part;
 * the result then says why. The namespace is not part of the id.
 */
export function ingressConfigId(ingress: IngressLike, options: ConfigIdOptions = {}): IngressConfigIdResult {
  return readBaseId('Ingress', ingress.metadata, options);
}

/** The `"<id>-<version>"` part Ingresses and Secrets share, or why there is none. */
export function readBaseId(
  kind: 'Ingress' | 'Secret',
  metadata: ConfigIdMetadata | null | undefined,
  options: ConfigIdOptions,
): { id: string } | ConfigIdSkipped {
  const annotation = `${options.annotationPrefix ?? defaultAnnotationPrefix}/version`;
  const subject = `${kind} ${describe(metadata)}`;
  const rawVersion = metadata?.annotations?.[annotation];
  if (rawVersion === undefined) {
    return skip(
      'no-version',
      `${subject} does not take part in the checksum: it has no ${annotation} annotation.`,
    );
  }
  // Tengine reads a version that is not an integer as the default 0, which means "no version".
  const version = typeof rawVersion === 'string' ? parseGoInt(rawVersion) : undefined;
  if (version === undefined) {
    return skip(
      'invalid-version',
      `${subject} does not take part in the checksum: ${annotation} is ${JSON.stringify(rawVersion)}, not an integer.`,
    );
  }
  if (version === '0') {
    return skip(
      'zero-version',
      `${subject} does not take part in the checksum: ${annotation} is ${JSON.stringify(rawVersion)}, and 0 means "no version".`,
    );
  }

  const name = metadata?.name ?? '';
  const dash = name.lastIndexOf('-');
  const id = dash === -1 ? undefined : parseGoInt(name.slice(dash + 1));
  if (id === undefined) {
    return skip(
      'no-numeric-suffix',
      `${subject} does not take part in the checksum: its name must end in "-<number>", the number being its id.`,
    );
  }
  return { id: `${id}-${version}` };
}

export function skip(reason: ConfigIdSkipReason, message: string): ConfigIdSkipped {
  return { id: undefined, reason, message };
}

export function describe(metadata: ConfigIdMetadata | null | undefined): string {
  const name = metadata?.name ? metadata.name : '(unnamed)';
  return metadata?.namespace ? `${metadata.namespace}/${name}` : name;
}
