/**
 * The watch boundary: store change events become the keys the next sync must look at. Relevance
 * is decided here, once: an EndpointSlice of a Service no route uses, a status-only write to an
 * Ingress, a Secret no Ingress references change nothing and start no sync. Each contribution
 * source (Ingresses, Gateway API) maps an event to its own keys.
 */
import type { ChangeEvent, StoreSnapshot } from '@ingresskit/store';
import { serviceKeyOfEndpointSlice } from '@ingresskit/store';
import type { StoreChange } from './store-change.js';

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
  /**
   * Gateway API objects changed (source keys of Gateways and HTTPRoutes, or GatewayRouting's
   * ALL_GATEWAY_API for what every one of them reads): translate (memoised) again.
   */
  gatewayApi: Set<string>;
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
    gatewayApi: new Set(),
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
  /** The Ingresses a change affects (IngressSource.keysOf). */
  ingressKeysOf(change: StoreChange): Iterable<string>;
  /** The Gateway API keys a change affects (GatewayRouting.keysOf); none when Gateways are not served. */
  gatewayKeysOf?: ((change: StoreChange) => Iterable<string>) | undefined;
  /** `namespace/name` of the controller ConfigMap (`--configmap`), if any. */
  configMapKey?: string | undefined;
  /** Whether the controller ConfigMap names this ConfigMap (add-headers, proxy-set-headers). */
  isReadByConfigMap?: ((key: string) => boolean) | undefined;
  /** Whether the controller ConfigMap names this Secret (ssl-dh-param). */
  isSecretReadByConfigMap?: ((key: string) => boolean) | undefined;
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
  const change = { event, snapshot: context.snapshot };
  let gatewayApi = false;
  for (const key of context.gatewayKeysOf?.(change) ?? []) {
    pending.gatewayApi.add(key);
    gatewayApi = true;
  }
  let ingresses = false;
  for (const key of context.ingressKeysOf(change)) {
    pending.ingresses.add(key);
    ingresses = true;
  }
  return recordOtherChange(pending, event, context) || ingresses || gatewayApi;
}

/** What an event means beyond the sources' keys: classes, backends, checksums, the controller's own objects. */
function recordOtherChange(pending: PendingChanges, event: ChangeEvent, context: RelevanceContext): boolean {
  switch (event.kind) {
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
      return isDefault || isReadByConfigMap;
    }
    case 'IngressCheckSum':
      if (!context.checksumEnabled) return false;
      pending.checksum = true;
      return true;
    case 'ConfigMap': {
      const isControllerConfigMap =
        event.key === context.configMapKey || context.isReadByConfigMap?.(event.key) === true;
      if (isControllerConfigMap) pending.configMap = true;
      return isControllerConfigMap;
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
  pending.gatewayApi = new Set();
  pending.configMap = false;
  pending.defaultCertificate = false;
  return taken;
}
