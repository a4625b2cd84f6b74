/**
 * A memoising translateIngress for a controller: an Ingress is translated again only when it, or
 * a Secret its last translation read, changed (by resourceVersion), or when a certificate it read
 * expired since. Resyncs and relists then cost map lookups instead of certificate parsing.
 */
import { namespacedKey, splitObjectKey, type IngressLike } from '@ingresskit/kube-objects';
import { createCertificateCache, type CertificateCache } from './certificates.js';
import { listOrNone } from './shared-values.js';
import { translateIngressTimed } from './translate-ingress.js';
import type { BackendAddressPolicy, StrictTransportSecurity } from '@ingresskit/route-model';
import type {
  IngressReferences,
  IngressTranslation,
  IngressTranslationConfig,
  ServiceReference,
} from './types.js';
import type { LimitStatusCodes } from './limit-annotations.js';
import type { IngressChecks } from './ingress-checks.js';
import { type AnnotationDefaults } from './annotation-types.js';
import { type GlobalRateLimitConfig, type GlobalExternalAuth } from './types.js';

/** Options of createIngressTranslator. */
export interface IngressTranslatorConfig {
  /** Annotation prefix; default `nginx.ingress.kubernetes.io`. */
  annotationPrefix?: string;
  /**
   * Wall-clock milliseconds since the epoch, read once per translate call: certificates are
   * checked for expiry against it and idle entries are forgotten by it. Default `Date.now`.
   */
  now?: () => number;
  /** Entries not translated for this many milliseconds are forgotten; 10 minutes by default. */
  idleMs?: number;
  /** Parsed certificates shared with other translators; a private cache by default. */
  certificateCache?: CertificateCache;
  /** See IngressTranslationConfig.maxPathsPerIngress. */
  maxPathsPerIngress?: number;
  /**
   * See IngressTranslationConfig.annotationDefaults. Fixed for the translator's life: other
   * defaults need a new translator, as its cached translations were made with these.
   */
  annotationDefaults?: AnnotationDefaults;
  /** See IngressTranslationConfig.hsts; fixed for the translator's life like annotationDefaults. */
  hsts?: StrictTransportSecurity | undefined;
  /** See IngressTranslationConfig.globalRateLimit; fixed for the translator's life. */
  globalRateLimit?: GlobalRateLimitConfig;
  /** See IngressTranslationConfig.allowedResponseHeaders; fixed for the translator's life. */
  allowedResponseHeaders?: readonly string[];
  /** See IngressTranslationConfig.allowedSnippetDirectives; fixed for the translator's life. */
  allowedSnippetDirectives?: readonly string[];
  /** See IngressTranslationConfig.limitStatusCodes; fixed for the translator's life. */
  limitStatusCodes?: LimitStatusCodes;
  /** See IngressTranslationConfig.headers; fixed for the translator's life. */
  headers?: IngressTranslationConfig['headers'];
  /** See IngressTranslationConfig.authAddressPolicy; fixed for the translator's life. */
  authAddressPolicy?: BackendAddressPolicy;
  /** See IngressTranslationConfig.globalAuth; fixed for the translator's life. */
  globalAuth?: GlobalExternalAuth;
  /** See IngressTranslationConfig.defaultBackend; fixed for the translator's life. */
  defaultBackend?: ServiceReference;
  /** See IngressTranslationConfig.ingressChecks; fixed for the translator's life. */
  ingressChecks?: IngressChecks;
}

/** See {@link createIngressTranslator}. */
export interface IngressTranslator {
  /**
   * translateIngress with this translator's config. Returns the very same object as last time
   * when nothing it depends on changed, so `===` tells a caller there is nothing to update.
   * Translations are shared: treat them as read-only.
   */
  translate(ingress: IngressLike, references: IngressReferences): IngressTranslation;
  /** Drops the entry of the Ingress `namespace/name` (call it when the Ingress is deleted). */
  forget(key: string): void;
  /** Number of Ingresses remembered. */
  readonly size: number;
}

interface Entry {
  uid: string;
  resourceVersion: string;
  /** Each Secret and ConfigMap the translation read, with its resourceVersion then (null: it did not exist). */
  read: [kind: ReadKind, key: string, resourceVersion: string | null][];
  expiresAt: number;
  translation: IngressTranslation;
  lastUsed: number;
}

const DEFAULT_IDLE_MS = 10 * 60 * 1000;

function versionOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function metadataOf(object: unknown): Record<string, unknown> | undefined {
  const metadata =
    typeof object === 'object' && object !== null ? (object as { metadata?: unknown }).metadata : undefined;
  return typeof metadata === 'object' && metadata !== null
    ? (metadata as Record<string, unknown>)
    : undefined;
}

/** The kinds of objects a translation reads. */
type ReadKind = 'Secret' | 'ConfigMap';

/** The resourceVersion of the object `key` now: null when absent, undefined when it cannot be told. */
function readVersion(references: IngressReferences, kind: ReadKind, key: string): string | null | undefined {
  const { namespace = '', name } = splitObjectKey(key);
  const object =
    kind === 'Secret' ? references.secret(namespace, name) : references.configMap?.(namespace, name);
  if (object === undefined || object === null) return null;
  return versionOf(metadataOf(object)?.resourceVersion);
}

function isFresh(
  entry: Entry,
  uid: string,
  resourceVersion: string,
  references: IngressReferences,
  now: number,
): boolean {
  if (entry.uid !== uid || entry.resourceVersion !== resourceVersion || now > entry.expiresAt) return false;
  return entry.read.every(([kind, key, version]) => readVersion(references, kind, key) === version);
}

/**
 * Creates a translator that remembers the last translation of each Ingress (by `namespace/name`)
 * with the `metadata.uid` and `resourceVersion` of the Ingress and the resourceVersions of the
 * Secrets and ConfigMaps it read, and keeps a certificate cache. Objects without a uid or resourceVersion (plain
 * test objects) are translated every time. Entries of Ingresses not translated for `idleMs` are
 * forgotten.
 */
export function createIngressTranslator(config: IngressTranslatorConfig = {}): IngressTranslator {
  const now = config.now ?? Date.now;
  const idleMs = config.idleMs ?? DEFAULT_IDLE_MS;
  const certificateCache = config.certificateCache ?? createCertificateCache();
  const entries = new Map<string, Entry>();
  let lastSweep = Number.NEGATIVE_INFINITY;

  const sweep = (time: number) => {
    // Sweeping at most once per idle period keeps translate O(1) on average.
    if (time - lastSweep < idleMs) return;
    lastSweep = time;
    for (const [key, entry] of entries) if (time - entry.lastUsed >= idleMs) entries.delete(key);
  };

  return {
    translate(ingress, references) {
      const time = now();
      sweep(time);
      const metadata = metadataOf(ingress);
      const namespace = metadata?.namespace;
      const name = metadata?.name;
      const uid = versionOf(metadata?.uid);
      const resourceVersion = versionOf(metadata?.resourceVersion);
      const key =
        typeof namespace === 'string' && typeof name === 'string'
          ? namespacedKey(namespace, name)
          : undefined;
      if (key !== undefined && uid !== undefined && resourceVersion !== undefined) {
        const entry = entries.get(key);
        if (entry !== undefined && isFresh(entry, uid, resourceVersion, references, time)) {
          entry.lastUsed = time;
          return entry.translation;
        }
      }
      const options = {
        certificateCache,
        now: time,
        ...(config.maxPathsPerIngress === undefined ? {} : { maxPathsPerIngress: config.maxPathsPerIngress }),
        ...(config.annotationDefaults === undefined ? {} : { annotationDefaults: config.annotationDefaults }),
        ...(config.hsts === undefined ? {} : { hsts: config.hsts }),
        ...(config.globalRateLimit === undefined ? {} : { globalRateLimit: config.globalRateLimit }),
        ...(config.allowedResponseHeaders === undefined
          ? {}
          : { allowedResponseHeaders: config.allowedResponseHeaders }),
        ...(config.headers === undefined ? {} : { headers: config.headers }),
        ...(config.allowedSnippetDirectives === undefined
          ? {}
          : { allowedSnippetDirectives: config.allowedSnippetDirectives }),
        ...(config.limitStatusCodes === undefined ? {} : { limitStatusCodes: config.limitStatusCodes }),
        ...(config.authAddressPolicy === undefined ? {} : { authAddressPolicy: config.authAddressPolicy }),
        ...(config.defaultBackend === undefined ? {} : { defaultBackend: config.defaultBackend }),
        ...(config.globalAuth === undefined ? {} : { globalAuth: config.globalAuth }),
        ...(config.ingressChecks === undefined ? {} : { ingressChecks: config.ingressChecks }),
      };
      const { translation, expiresAt } = translateIngressTimed(
        ingress,
        references,
        config.annotationPrefix === undefined
          ? options
          : { ...options, annotationPrefix: config.annotationPrefix },
      );
      if (key === undefined || uid === undefined || resourceVersion === undefined) return translation;
      const objects: [ReadKind, string][] = [
        ...translation.references.secrets.map((read): [ReadKind, string] => ['Secret', read]),
        ...(translation.references.configMaps ?? []).map((read): [ReadKind, string] => ['ConfigMap', read]),
      ];
      const read = objects.map(([kind, readKey]): Entry['read'][number] | undefined => {
        const version = readVersion(references, kind, readKey);
        return version === undefined ? undefined : [kind, readKey, version];
      });
      if (read.some((object) => object === undefined)) {
        // An object without a resourceVersion cannot be told apart from a changed one.
        entries.delete(key);
        return translation;
      }
      entries.set(key, {
        uid,
        resourceVersion,
        read: listOrNone(read as Entry['read']),
        expiresAt,
        translation,
        lastUsed: time,
      });
      return translation;
    },
    forget(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
