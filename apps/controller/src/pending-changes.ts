/**
 * The watch boundary: store change events become the keys the next sync must look at. Relevance
 * is decided here, once: an EndpointSlice of a Service no route uses, a status-only write to an
 * Ingress, a Secret no Ingress references change nothing and start no sync.
 */
import { namespacedKey, objectKey } from '@ingresskit/kube-objects';
import type { ChangeEvent, StoreSnapshot } from '@ingresskit/store';
import { serviceKeyOfEndpointSlice } from '@ingresskit/store';

/** What the next sync must look at. */
export interface PendingChanges {
  /** Ingresses (`namespace/name`) to decide and translate again. */
  ingresses: Set<string>;
  /** Services whose backends to resolve again. */
  services: Set<string>;
  /** ExternalName names (`namespace/hostname`) whose addresses changed: their backends are pinned again. */
  externalNames: Set<string>;
  /** IngressClasses changed: every Ingress is decided again (translations stay cached). */
  allIngresses: boolean;
  /** The IngressCheckSum objects changed. */
  checksum: boolean;
  /** Something the Gateway API translation reads changed: translate (memoised) again. */
  gatewayApi: boolean;
  /** The controller ConfigMap (`--configmap`), or one it names, changed: read it again. */
  configMap: boolean;
  /** The Secret of `--default-ssl-certificate` changed: read it again. */
  defaultCertificate: boolean;
}

/** An empty set of changes. */
export function createPendingChanges(): PendingChanges {
  return {
    ingresses: new Set(),
    services: new Set(),
    externalNames: new Set(),
    allIngresses: false,
    checksum: false,
    gatewayApi: false,
    configMap: false,
    defaultCertificate: false,
  };
}

/** What the handler asks of the rest of the pipeline to decide relevance. */
export interface RelevanceContext {
  snapshot: StoreSnapshot;
  /** Whether some route (or the default backend) sends traffic to a port of this Service. */
  isServiceReferenced(serviceKey: string): boolean;
  checksumEnabled: boolean;
  /** Whether Gateways and HTTPRoutes are served (`--gateway-controller-name`). */
  gatewayApiEnabled: boolean;
  /** `namespace/name` of the controller ConfigMap (`--configmap`), if any. */
  configMapKey?: string | undefined;
  /** Whether the controller ConfigMap names this ConfigMap (add-headers, proxy-set-headers). */
  isReadByConfigMap?: ((key: string) => boolean) | undefined;
  /** Whether the controller ConfigMap names this Secret (ssl-dh-param). */
  isSecretReadByConfigMap?: ((key: string) => boolean) | undefined;
  /** The Ingresses whose translation read this ConfigMap (auth-proxy-set-headers, custom-headers); none when absent. */
  ingressesReadingConfigMap?: ((key: string) => string[]) | undefined;
  /** `namespace/name` of the default certificate's Secret (`--default-ssl-certificate`), if any. */
  defaultCertificateKey?: string | undefined;
}

/**
 * Records what `event` means for the next sync into `pending`; returns false when it changes
 * nothing the data plane serves.
 */
export function recordChange(
  pending: PendingChanges,
  event: ChangeEvent,
  context: RelevanceContext,
): boolean {
  const gatewayApi = context.gatewayApiEnabled && isGatewayApiInput(event, context.snapshot);
  if (gatewayApi) pending.gatewayApi = true;
  return recordIngressChange(pending, event, context) || gatewayApi;
}

function recordIngressChange(
  pending: PendingChanges,
  event: ChangeEvent,
  context: RelevanceContext,
): boolean {
  switch (event.kind) {
    case 'Ingress':
      // Status writes (ours, from the leader) change nothing that is served.
      if (event.type === 'updated' && isStatusOnlyChange(event.oldObject, event.newObject)) return false;
      pending.ingresses.add(event.key);
      return true;
    case 'IngressClass':
      pending.allIngresses = true;
      return true;
    case 'Service':
      if (!context.isServiceReferenced(event.key)) return false;
      pending.services.add(event.key);
      return true;
    case 'EndpointSlice': {
      const slice = event.newObject ?? event.oldObject;
      const serviceKey = slice === undefined ? undefined : serviceKeyOfEndpointSlice(slice);
      if (serviceKey === undefined || !context.isServiceReferenced(serviceKey)) return false;
      pending.services.add(serviceKey);
      return true;
    }
    case 'Secret': {
      const isDefault = event.key === context.defaultCertificateKey;
      if (isDefault) pending.defaultCertificate = true;
      const isReadByConfigMap = context.isSecretReadByConfigMap?.(event.key) === true;
      if (isReadByConfigMap) pending.configMap = true;
      const ingresses = context.snapshot.ingressesForSecret(event.key);
      for (const ingress of ingresses) pending.ingresses.add(objectKey(ingress));
      return ingresses.length > 0 || isDefault || isReadByConfigMap;
    }
    case 'IngressCheckSum':
      if (!context.checksumEnabled) return false;
      pending.checksum = true;
      return true;
    case 'ConfigMap': {
      const readers = context.ingressesReadingConfigMap?.(event.key) ?? [];
      for (const key of readers) pending.ingresses.add(key);
      const isControllerConfigMap =
        event.key === context.configMapKey || context.isReadByConfigMap?.(event.key) === true;
      if (isControllerConfigMap) pending.configMap = true;
      return isControllerConfigMap || readers.length > 0;
    }
    default:
      return false;
  }
}

/** Takes everything pending, leaving `pending` empty. */
export function takePendingChanges(pending: PendingChanges): PendingChanges {
  const taken: PendingChanges = {
    ingresses: pending.ingresses,
    services: pending.services,
    externalNames: pending.externalNames,
    allIngresses: pending.allIngresses,
    checksum: pending.checksum,
    gatewayApi: pending.gatewayApi,
    configMap: pending.configMap,
    defaultCertificate: pending.defaultCertificate,
  };
  pending.ingresses = new Set();
  pending.services = new Set();
  pending.externalNames = new Set();
  pending.allIngresses = false;
  pending.checksum = false;
  pending.gatewayApi = false;
  pending.configMap = false;
  pending.defaultCertificate = false;
  return taken;
}

/**
 * Whether the Gateway API translation reads what changed: its own kinds (not our status writes),
 * and, while there is something to translate, Services (backendRefs), TLS Secrets (listeners),
 * ReferenceGrants, Namespace labels (listener selectors), the Gateway API CRDs (class acceptance
 * reads their bundle version) and a ConfigMap a GatewayClass takes its parameters from.
 */
function isGatewayApiInput(event: ChangeEvent, snapshot: StoreSnapshot): boolean {
  switch (event.kind) {
    case 'Gateway':
    case 'HTTPRoute':
    case 'GatewayClass':
      return event.type !== 'updated' || !isStatusOnlyChange(event.oldObject, event.newObject);
    case 'ReferenceGrant':
    case 'Service':
      return snapshot.httpRoutes.size > 0 || snapshot.gateways.size > 0;
    case 'Secret':
    case 'Namespace':
      return snapshot.gateways.size > 0;
    case 'CustomResourceDefinition':
      return (event.newObject ?? event.oldObject)?.spec.group === 'gateway.networking.k8s.io';
    case 'ConfigMap':
      return snapshot.gatewayClasses.list().some((gatewayClass) => {
        const ref = gatewayClass.spec?.parametersRef as
          { kind?: unknown; namespace?: unknown; name?: unknown } | undefined;
        return (
          ref?.kind === 'ConfigMap' &&
          typeof ref.namespace === 'string' &&
          typeof ref.name === 'string' &&
          namespacedKey(ref.namespace, ref.name) === event.key
        );
      });
    default:
      return false;
  }
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
