/**
 * A memoising translateGatewayApi for a controller: an HTTPRoute is translated again only when it
 * (uid, resourceVersion), the way its Gateways' listeners accept routes, or a Service, ReferenceGrant
 * or namespace its last translation read changed. An unchanged route (or Gateway) keeps the very
 * same contribution object, so `===` tells the caller which contributions to set again.
 */
import { namespacedKey, splitObjectKey } from '@ingresskit/kube-objects';
import { isDeepEqual, sourceKey, type RouteContribution } from '@ingresskit/route-model';
import { readSecretCertificate, type SecretCertificate } from './certificates.js';
import type { GatewayEvaluation } from './gateways.js';
import { objectOr } from './grammar.js';
import { translateWithHooks } from './translate-gateway-api.js';
import { translateHTTPRoute, type HTTPRouteTranslation } from './translate-httproute.js';
import type {
  GatewayApiConfig,
  GatewayApiObjects,
  GatewayApiReferences,
  GatewayApiTranslation,
  HTTPRouteLike,
  KubeObjectLike,
} from './types.js';

/** See {@link createGatewayApiTranslator}. */
export interface GatewayApiTranslator {
  /**
   * translateGatewayApi with this translator's config, reusing the translation of every HTTPRoute
   * whose inputs did not change (the same objects: treat them as read-only).
   */
  translate(objects: GatewayApiObjects): GatewayApiTranslation;
  /** How many HTTPRoutes were translated (not reused) by the last translate call. */
  readonly lastTranslated: number;
  /** Number of HTTPRoutes remembered. */
  readonly size: number;
}

interface Entry {
  uid: string;
  resourceVersion: string;
  fingerprint: string;
  translation: HTTPRouteTranslation;
}

function versionOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function metadataOf(object: unknown): {
  uid?: unknown;
  resourceVersion?: unknown;
  namespace?: unknown;
  name?: unknown;
} {
  return objectOr<{ uid: unknown; resourceVersion: unknown; namespace: unknown; name: unknown }>(
    objectOr<{ metadata: unknown }>(object).metadata,
  );
}

/** The version of an object for a fingerprint: its resourceVersion, `-` when absent, `?` when unknown. */
function objectVersion(object: KubeObjectLike | undefined): string | undefined {
  if (object === undefined || object === null) return '-';
  return versionOf(metadataOf(object).resourceVersion);
}

/**
 * What the last translation of a route read, as it is now; undefined when some object read has no
 * resourceVersion (it cannot be told apart from a changed one).
 */
function fingerprintOf(
  translation: HTTPRouteTranslation,
  evaluation: GatewayEvaluation,
  references: GatewayApiReferences,
): string | undefined {
  // Which hostnames other listeners take (listener isolation) matters to every attached route.
  const parts: string[] =
    translation.references.gateways.length === 0 ? [] : [`i ${evaluation.listenerHostnamesKey}`];
  for (const key of translation.references.gateways) {
    parts.push(`g ${key} ${evaluation.gateways.get(key)?.attachmentKey ?? '-'}`);
  }
  for (const key of translation.references.services) {
    const { namespace, name } = splitObjectKey(key);
    const version = objectVersion(references.service(namespace ?? '', name));
    if (version === undefined) return undefined;
    parts.push(`s ${key} ${version}`);
  }
  for (const namespace of translation.references.referenceGrantNamespaces) {
    const versions = references.referenceGrants(namespace).map((grant) => objectVersion(grant));
    if (versions.some((version) => version === undefined)) return undefined;
    parts.push(`r ${namespace} ${versions.sort().join(',')}`);
  }
  for (const namespace of translation.references.namespaceLabels) {
    const version = objectVersion(references.namespace(namespace));
    if (version === undefined) return undefined;
    parts.push(`n ${namespace} ${version}`);
  }
  return parts.join('\n');
}

/**
 * Creates a translator that remembers the last translation of each HTTPRoute (by `namespace/name`)
 * with its uid, resourceVersion and a fingerprint of what it read, and the certificates read from
 * Secrets (by uid and resourceVersion). Objects without a uid or resourceVersion are translated
 * every time. Routes and Secrets absent from a snapshot are forgotten.
 */
export function createGatewayApiTranslator(config: GatewayApiConfig): GatewayApiTranslator {
  let entries = new Map<string, Entry>();
  let certificates = new Map<string, SecretCertificate>();
  let lastTranslated = 0;
  let gatewayContributions = new Map<string, RouteContribution>();
  return {
    translate(objects) {
      const nextEntries = new Map<string, Entry>();
      const nextCertificates = new Map<string, SecretCertificate>();
      let translated = 0;
      const result = translateWithHooks(objects, config, {
        readCertificate: (secret) => {
          const metadata = metadataOf(secret);
          const uid = versionOf(metadata.uid);
          const resourceVersion = versionOf(metadata.resourceVersion);
          if (uid === undefined || resourceVersion === undefined) return readSecretCertificate(secret);
          const key = `${uid}\u0000${resourceVersion}`;
          const known = nextCertificates.get(key) ?? certificates.get(key) ?? readSecretCertificate(secret);
          nextCertificates.set(key, known);
          return known;
        },
        translateRoute: (route: HTTPRouteLike, evaluation, references) => {
          const metadata = metadataOf(route);
          const uid = versionOf(metadata.uid);
          const resourceVersion = versionOf(metadata.resourceVersion);
          const key =
            typeof metadata.namespace === 'string' && typeof metadata.name === 'string'
              ? namespacedKey(metadata.namespace, metadata.name)
              : undefined;
          if (key !== undefined && uid !== undefined && resourceVersion !== undefined) {
            const entry = entries.get(key);
            if (
              entry !== undefined &&
              entry.uid === uid &&
              entry.resourceVersion === resourceVersion &&
              fingerprintOf(entry.translation, evaluation, references) === entry.fingerprint
            ) {
              nextEntries.set(key, entry);
              return entry.translation;
            }
          }
          translated += 1;
          const translation = translateHTTPRoute(route, evaluation, references, config);
          if (key !== undefined && uid !== undefined && resourceVersion !== undefined) {
            const fingerprint = fingerprintOf(translation, evaluation, references);
            if (fingerprint !== undefined)
              nextEntries.set(key, { uid, resourceVersion, fingerprint, translation });
          }
          return translation;
        },
      });
      entries = nextEntries;
      certificates = nextCertificates;
      lastTranslated = translated;
      // Gateway contributions are cheap to rebuild but, kept identical, spare the caller's builder
      // re-assembling their hosts on every sync.
      const nextGateways = new Map<string, RouteContribution>();
      const routes = result.routes.map((contribution) => {
        if (contribution.source.kind !== 'Gateway') return contribution;
        const key = sourceKey(contribution.source);
        const previous = gatewayContributions.get(key);
        const kept = previous !== undefined && isDeepEqual(previous, contribution) ? previous : contribution;
        nextGateways.set(key, kept);
        return kept;
      });
      gatewayContributions = nextGateways;
      return { ...result, routes };
    },
    get lastTranslated() {
      return lastTranslated;
    },
    get size() {
      return entries.size;
    },
  };
}
