/** The kinds the store mirrors and where each lives in the API: group, version, plural, scope. */
import { GATEWAY_API_GROUP, NETWORKING_API_GROUP, TENGINE_API_GROUP } from '@ingresskit/kube-objects';

/** The kinds of object the store can mirror. */
export type ResourceKind =
  | 'Ingress'
  | 'IngressClass'
  | 'Service'
  | 'EndpointSlice'
  | 'Secret'
  | 'ConfigMap'
  | 'Namespace'
  | 'IngressCheckSum'
  | 'SecretCheckSum'
  | 'GatewayClass'
  | 'Gateway'
  | 'HTTPRoute'
  | 'ReferenceGrant'
  | 'CustomResourceDefinition';

/** The kinds served by every API server. */
export type CoreKind =
  'Ingress' | 'IngressClass' | 'Service' | 'EndpointSlice' | 'Secret' | 'ConfigMap' | 'Namespace';

/** The kinds that exist only when their CustomResourceDefinition is installed. */
export type OptionalKind =
  'IngressCheckSum' | 'SecretCheckSum' | 'GatewayClass' | 'Gateway' | 'HTTPRoute' | 'ReferenceGrant';

/** Where a kind lives in the API: group ('' for core), version, plural and scope. */
export interface ResourceType {
  readonly kind: ResourceKind;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** For custom resources: the name of the CustomResourceDefinition that serves them. */
  readonly crdName?: string;
}

/** Every kind the store knows, with its API coordinates. */
export const resourceTypes: Readonly<Record<ResourceKind, ResourceType>> = {
  Ingress: {
    kind: 'Ingress',
    group: NETWORKING_API_GROUP,
    version: 'v1',
    plural: 'ingresses',
    namespaced: true,
  },
  IngressClass: {
    kind: 'IngressClass',
    group: NETWORKING_API_GROUP,
    version: 'v1',
    plural: 'ingressclasses',
    namespaced: false,
  },
  Service: { kind: 'Service', group: '', version: 'v1', plural: 'services', namespaced: true },
  EndpointSlice: {
    kind: 'EndpointSlice',
    group: 'discovery.k8s.io',
    version: 'v1',
    plural: 'endpointslices',
    namespaced: true,
  },
  Secret: { kind: 'Secret', group: '', version: 'v1', plural: 'secrets', namespaced: true },
  ConfigMap: { kind: 'ConfigMap', group: '', version: 'v1', plural: 'configmaps', namespaced: true },
  Namespace: { kind: 'Namespace', group: '', version: 'v1', plural: 'namespaces', namespaced: false },
  IngressCheckSum: {
    kind: 'IngressCheckSum',
    group: TENGINE_API_GROUP,
    version: 'v1',
    plural: 'ingresschecksums',
    namespaced: true,
    crdName: 'ingresschecksums.tengine.taobao.org',
  },
  SecretCheckSum: {
    kind: 'SecretCheckSum',
    group: TENGINE_API_GROUP,
    version: 'v1',
    plural: 'secretchecksums',
    namespaced: true,
    crdName: 'secretchecksums.tengine.taobao.org',
  },
  GatewayClass: {
    kind: 'GatewayClass',
    group: GATEWAY_API_GROUP,
    version: 'v1',
    plural: 'gatewayclasses',
    namespaced: false,
    crdName: 'gatewayclasses.gateway.networking.k8s.io',
  },
  Gateway: {
    kind: 'Gateway',
    group: GATEWAY_API_GROUP,
    version: 'v1',
    plural: 'gateways',
    namespaced: true,
    crdName: 'gateways.gateway.networking.k8s.io',
  },
  HTTPRoute: {
    kind: 'HTTPRoute',
    group: GATEWAY_API_GROUP,
    version: 'v1',
    plural: 'httproutes',
    namespaced: true,
    crdName: 'httproutes.gateway.networking.k8s.io',
  },
  // v1beta1, not v1: every Gateway API release since v0.6 serves it (v1.6.1 still does, as its
  // storage version), while v1 exists only from v1.5 on.
  ReferenceGrant: {
    kind: 'ReferenceGrant',
    group: GATEWAY_API_GROUP,
    version: 'v1beta1',
    plural: 'referencegrants',
    namespaced: true,
    crdName: 'referencegrants.gateway.networking.k8s.io',
  },
  CustomResourceDefinition: {
    kind: 'CustomResourceDefinition',
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
};

/** Core kinds, in the order the store lists them (Ingresses first so Secret references are known). */
export const coreKinds: readonly CoreKind[] = [
  'Ingress',
  'IngressClass',
  'Service',
  'EndpointSlice',
  'Secret',
  'ConfigMap',
  'Namespace',
];

/** Kinds served only when their CRD exists. */
export const optionalKinds: readonly OptionalKind[] = [
  'IngressCheckSum',
  'SecretCheckSum',
  'GatewayClass',
  'Gateway',
  'HTTPRoute',
  'ReferenceGrant',
];

/**
 * Kinds mirrored only when asked for in `kinds`: Namespaces are cluster-scoped and need RBAC a
 * namespaced controller may not have (a Gateway listener's namespace selector reads their labels).
 */
export const optInKinds: readonly ResourceKind[] = ['Namespace'];

/** Every kind in a stable order, the CRD kind last. */
export const allKinds: readonly ResourceKind[] = [...coreKinds, ...optionalKinds, 'CustomResourceDefinition'];

const apiVersions = new Map<ResourceType, string>();

/**
 * `apiVersion` as written in objects: `v1` for the core group, else `group/version`. One string per
 * type, shared by every stored object (a string built per object costs 30k of them at 10k
 * Ingresses).
 */
export function formatApiVersion(type: ResourceType): string {
  let apiVersion = apiVersions.get(type);
  if (apiVersion === undefined) {
    apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
    apiVersions.set(type, apiVersion);
  }
  return apiVersion;
}

/** The collection path of a kind, all namespaces when `namespace` is undefined. */
export function buildCollectionPath(type: ResourceType, namespace?: string): string {
  const prefix = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  if (!type.namespaced || namespace === undefined) return `${prefix}/${type.plural}`;
  return `${prefix}/namespaces/${encodeURIComponent(namespace)}/${type.plural}`;
}

/** Whether `kind` is one the store knows. */
export function isResourceKind(kind: string): kind is ResourceKind {
  return Object.hasOwn(resourceTypes, kind);
}

/** Whether `kind` needs a CRD. */
export function isOptionalKind(kind: ResourceKind): kind is OptionalKind {
  return resourceTypes[kind].crdName !== undefined;
}
