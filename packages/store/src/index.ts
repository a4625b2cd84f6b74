export {
  createApiClient,
  type ApiClient,
  type ApiClientOptions,
  type ListPage,
  type ListRequest,
  type ResourceClient,
  type WatchHandle,
  type WatchRequest,
} from './api-client.js';
// The project's one Clock and backoff, re-exported for callers that configure a store with them.
export { computeBackoffDelay, systemClock, type BackoffPolicy, type Clock } from '@ingresskit/task-queue';
export {
  ApiStatusError,
  InformerError,
  ListenerError,
  StoreConfigError,
  StoreStoppedError,
  type InformerPhase,
} from './errors.js';
export type { InformerStatus, StalenessChange } from './informer-health.js';
export { namespacedKey, objectKey } from '@ingresskit/kube-objects';
export { normalizeObject, toStoredObject, type StoredShapeOptions } from './normalize.js';
export type {
  ConfigMap,
  CustomObject,
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  EndpointSlice,
  Gateway,
  GatewayClass,
  HTTPRoute,
  Ingress,
  IngressCheckSum,
  IngressClass,
  KubeObject,
  Namespace,
  ObjectMeta,
  ObjectsByKind,
  Plain,
  ReferenceGrant,
  Secret,
  SecretCheckSum,
  Service,
} from './objects.js';
export type { ReflectorPhase } from './reflector.js';
export {
  defaultSecretAnnotations,
  extractGatewaySecrets,
  extractIngressReferences,
  gatewayClassOfGateway,
  ingressClassAnnotation,
  serviceKeyOfEndpointSlice,
  serviceNameLabel,
  type IngressReferences,
} from './references.js';
export {
  allKinds,
  buildCollectionPath,
  coreKinds,
  formatApiVersion,
  optInKinds,
  optionalKinds,
  resourceTypes,
  type CoreKind,
  type OptionalKind,
  type ResourceKind,
  type ResourceType,
} from './resources.js';
export type { ObjectMap, StoreSnapshot } from './snapshot.js';
export type { ChangeEvent, ChangeType, OwnerClass, SecretStats } from './state.js';
export { createStore, type Store, type StoreEvents, type StoreListener } from './store.js';
export { defaultBackoff, type StoreOptions } from './store-options.js';
