/**
 * The cluster as the routing pipeline reads it: objects by key and the one index it needs
 * (EndpointSlices by Service). A store snapshot gives it to `run`; a directory of manifests gives
 * it to the offline `render`, so both run the very same pipeline.
 */
import { objectKey } from '@ingresskit/kube-objects';
import type { GatewayApiObjects } from '@ingresskit/gateway-routes';
import {
  serviceKeyOfEndpointSlice,
  type ConfigMap,
  type CustomObject,
  type EndpointSlice,
  type Ingress,
  type IngressClass,
  type Secret,
  type Service,
  type StoreSnapshot,
} from '@ingresskit/store';
import type { SourceView } from '@ingresskit/route-table';
import type { GatewayApiView } from './gateway-routing.js';

const noGatewayApiObjects: GatewayApiObjects = Object.freeze({ gateways: [], httpRoutes: [] });

/** Objects by key (`namespace/name`) and EndpointSlices by Service: a snapshot's or manifests'. */
export interface ClusterView extends GatewayApiView, SourceView {
  ingress(key: string): Ingress | undefined;
  ingressKeys(): Iterable<string>;
  ingressClasses(): readonly IngressClass[];
  service(key: string): Service | undefined;
  endpointSlicesForService(serviceKey: string): readonly EndpointSlice[];
  secret(key: string): Secret | undefined;
  configMap(key: string): ConfigMap | undefined;
  ingressCheckSums(): readonly CustomObject[];
}

/** The objects of a cluster as lists, as the store or a manifest directory gives them. */
export interface ClusterObjects {
  ingresses: readonly Ingress[];
  ingressClasses: readonly IngressClass[];
  services: readonly Service[];
  endpointSlices: readonly EndpointSlice[];
  secrets: readonly Secret[];
  ingressCheckSums: readonly CustomObject[];
  /** ConfigMaps Ingresses name (auth-proxy-set-headers, custom-headers) or the controller ConfigMap names (add-headers, proxy-set-headers); none when absent. */
  configMaps?: readonly ConfigMap[];
}

/** A view of one store snapshot (no copy: it reads the snapshot's maps and indexes). */
export function viewOfSnapshot(snapshot: StoreSnapshot): ClusterView {
  return {
    ingress: (key) => snapshot.ingresses.get(key),
    ingressKeys: () => snapshot.ingresses.keys(),
    ingressClasses: () => snapshot.ingressClasses.list(),
    service: (key) => snapshot.services.get(key),
    endpointSlicesForService: (key) => snapshot.endpointSlicesForService(key),
    secret: (key) => snapshot.secrets.get(key),
    ingressCheckSums: () => snapshot.ingressCheckSums.list(),
    gatewayClasses: () => snapshot.gatewayClasses.list(),
    customResourceDefinitions: () => snapshot.customResourceDefinitions.list(),
    configMap: (key) => snapshot.configMaps.get(key),
    gatewayApiObjects: () => gatewayApiObjectsOf(snapshot),
  };
}

/**
 * The Gateway API objects of a snapshot and what they refer to, as lists. Each `list()` is
 * computed once per changed map, so an unchanged kind costs nothing from one sync to the next.
 */
function gatewayApiObjectsOf(snapshot: StoreSnapshot): GatewayApiObjects {
  if (snapshot.gateways.size === 0) return noGatewayApiObjects;
  return {
    gateways: snapshot.gateways.list(),
    httpRoutes: snapshot.httpRoutes.list(),
    referenceGrants: snapshot.referenceGrants.list(),
    services: snapshot.services.list(),
    secrets: snapshot.secrets.list(),
    namespaces: snapshot.namespaces.list(),
  };
}

/** A view of plain lists (manifests read from disk). */
export function viewOfObjects(objects: ClusterObjects): ClusterView {
  const byKey = <T extends { metadata: { namespace?: string; name: string } }>(list: readonly T[]) =>
    new Map(list.map((object) => [objectKey(object), object]));
  const ingresses = byKey(objects.ingresses);
  const services = byKey(objects.services);
  const secrets = byKey(objects.secrets);
  const configMaps = byKey(objects.configMaps ?? []);
  const slices = new Map<string, EndpointSlice[]>();
  for (const slice of objects.endpointSlices) {
    const key = serviceKeyOfEndpointSlice(slice);
    if (key === undefined) continue;
    slices.set(key, [...(slices.get(key) ?? []), slice]);
  }
  return {
    ingress: (key) => ingresses.get(key),
    ingressKeys: () => ingresses.keys(),
    ingressClasses: () => objects.ingressClasses,
    service: (key) => services.get(key),
    endpointSlicesForService: (key) => slices.get(key) ?? [],
    secret: (key) => secrets.get(key),
    ingressCheckSums: () => objects.ingressCheckSums,
    // Offline rendering reads Ingress manifests (and the ConfigMaps they name) only.
    gatewayClasses: () => [],
    customResourceDefinitions: () => [],
    configMap: (key) => configMaps.get(key),
    gatewayApiObjects: () => noGatewayApiObjects,
  };
}
