/**
 * Snapshots: the immutable, consistent views of the store its readers get, cheap because they share
 * structure with the live store.
 */
import type { PersistentMap } from './persistent-map.js';
import type {
  ConfigMap,
  CustomResourceDefinition,
  EndpointSlice,
  Gateway,
  GatewayClass,
  HTTPRoute,
  Ingress,
  IngressCheckSum,
  IngressClass,
  KubeObject,
  Namespace,
  ObjectsByKind,
  ReferenceGrant,
  Secret,
  SecretCheckSum,
  Service,
} from './objects.js';
import type { ResourceKind } from './resources.js';
import { listMembers, type Members, type ReverseIndex } from './reverse-index.js';

/** A read-only map of stored objects by key (`namespace/name`, or `name` when cluster-scoped). */
export interface ObjectMap<T> extends Iterable<[string, T]> {
  /** Number of objects. */
  readonly size: number;
  /** The object with `key`, or undefined. */
  get(key: string): T | undefined;
  /** Whether an object with `key` exists. */
  has(key: string): boolean;
  /** Keys in an unspecified but stable order. */
  keys(): IterableIterator<string>;
  /** Objects in an unspecified but stable order. */
  values(): IterableIterator<T>;
  /** `[key, object]` pairs in an unspecified but stable order. */
  entries(): IterableIterator<[string, T]>;
  /** All objects sorted by key; computed once per map and shared by every snapshot that has it. */
  list(): readonly T[];
}

/**
 * An immutable, consistent view of everything the store holds at one moment. Taking one is cheap
 * (no copy: it shares structure with the live store), and it never changes afterwards.
 */
export interface StoreSnapshot {
  /** Increases with every change the store applies; equal versions mean equal content. */
  readonly version: number;
  /** Kinds being mirrored: watched core kinds, and optional kinds whose CRD exists. */
  readonly availableKinds: ReadonlySet<ResourceKind>;
  readonly ingresses: ObjectMap<Ingress>;
  readonly ingressClasses: ObjectMap<IngressClass>;
  readonly services: ObjectMap<Service>;
  readonly endpointSlices: ObjectMap<EndpointSlice>;
  /** Only Secrets an Ingress or a Gateway references (or configured to be kept). */
  readonly secrets: ObjectMap<Secret>;
  readonly configMaps: ObjectMap<ConfigMap>;
  /** Empty unless Namespaces are asked for in `kinds`. */
  readonly namespaces: ObjectMap<Namespace>;
  readonly ingressCheckSums: ObjectMap<IngressCheckSum>;
  readonly secretCheckSums: ObjectMap<SecretCheckSum>;
  readonly gatewayClasses: ObjectMap<GatewayClass>;
  readonly gateways: ObjectMap<Gateway>;
  readonly httpRoutes: ObjectMap<HTTPRoute>;
  readonly referenceGrants: ObjectMap<ReferenceGrant>;
  /** CRDs seen (schemas dropped), e.g. to read `gateway.networking.k8s.io/bundle-version`. */
  readonly customResourceDefinitions: ObjectMap<CustomResourceDefinition>;
  /** The objects of `kind`. */
  objectsOf<K extends ResourceKind>(kind: K): ObjectMap<ObjectsByKind[K]>;
  /** One object by kind and key. */
  get<K extends ResourceKind>(kind: K, key: string): ObjectsByKind[K] | undefined;
  /** Whether `kind` is mirrored (false for an optional kind whose CRD is missing). */
  isAvailable(kind: ResourceKind): boolean;
  /** EndpointSlices labelled `kubernetes.io/service-name` for the Service `namespace/name`, sorted by key. */
  endpointSlicesForService(serviceKey: string): readonly EndpointSlice[];
  /** Ingresses whose TLS section or secret annotations name the Secret `namespace/name`, sorted by key. */
  ingressesForSecret(secretKey: string): readonly Ingress[];
  /** Ingresses whose default backend or any rule path uses the Service `namespace/name`, sorted by key. */
  ingressesForService(serviceKey: string): readonly Ingress[];
  /** Ingresses naming the IngressClass in `spec.ingressClassName` or the legacy annotation, sorted by key. */
  ingressesForIngressClass(className: string): readonly Ingress[];
  /** Gateways whose `spec.gatewayClassName` is `className`, sorted by key. */
  gatewaysForGatewayClass(className: string): readonly Gateway[];
}

/** The persistent structures a snapshot is made of. */
export interface SnapshotParts {
  readonly version: number;
  readonly availableKinds: ReadonlySet<ResourceKind>;
  readonly objects: (kind: ResourceKind) => ObjectMap<KubeObject>;
  readonly slicesByService: ReverseIndex<EndpointSlice>;
  readonly ingressesBySecret: ReverseIndex<true>;
  readonly ingressesByService: ReverseIndex<true>;
  readonly ingressesByClass: ReverseIndex<true>;
  readonly gatewaysByClass: ReverseIndex<true>;
}

/** Wraps a persistent map as an {@link ObjectMap}; the sorted list is computed on first use. */
export class ObjectMapView<T> implements ObjectMap<T> {
  private sortedList: readonly T[] | undefined;

  constructor(readonly map: PersistentMap<T>) {}

  get size(): number {
    return this.map.size;
  }

  get(key: string): T | undefined {
    return this.map.get(key);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  values(): IterableIterator<T> {
    return this.map.values();
  }

  entries(): IterableIterator<[string, T]> {
    return this.map.entries();
  }

  [Symbol.iterator](): IterableIterator<[string, T]> {
    return this.map.entries();
  }

  list(): readonly T[] {
    this.sortedList ??= Object.freeze(
      [...this.map.entries()].sort(([a], [b]) => compareKeys(a, b)).map(([, value]) => value),
    );
    return this.sortedList;
  }
}

/** Builds the snapshot object over frozen parts. */
export function createSnapshot(parts: SnapshotParts): StoreSnapshot {
  const objectsOf = <K extends ResourceKind>(kind: K) => parts.objects(kind) as ObjectMap<ObjectsByKind[K]>;
  const resolve = <T>(kind: ResourceKind, members: Members<true> | undefined): readonly T[] => {
    const objects = parts.objects(kind);
    const result: T[] = [];
    for (const [key] of listMembers(members)) {
      const object = objects.get(key);
      if (object !== undefined) result.push(object as T);
    }
    return result;
  };
  return Object.freeze({
    version: parts.version,
    availableKinds: parts.availableKinds,
    ingresses: objectsOf('Ingress'),
    ingressClasses: objectsOf('IngressClass'),
    services: objectsOf('Service'),
    endpointSlices: objectsOf('EndpointSlice'),
    secrets: objectsOf('Secret'),
    configMaps: objectsOf('ConfigMap'),
    namespaces: objectsOf('Namespace'),
    ingressCheckSums: objectsOf('IngressCheckSum'),
    secretCheckSums: objectsOf('SecretCheckSum'),
    gatewayClasses: objectsOf('GatewayClass'),
    gateways: objectsOf('Gateway'),
    httpRoutes: objectsOf('HTTPRoute'),
    referenceGrants: objectsOf('ReferenceGrant'),
    customResourceDefinitions: objectsOf('CustomResourceDefinition'),
    objectsOf,
    get: <K extends ResourceKind>(kind: K, key: string) => objectsOf(kind).get(key),
    isAvailable: (kind: ResourceKind) => parts.availableKinds.has(kind),
    endpointSlicesForService: (serviceKey: string) =>
      listMembers(parts.slicesByService.get(serviceKey)).map(([, slice]) => slice),
    ingressesForSecret: (key: string) => resolve<Ingress>('Ingress', parts.ingressesBySecret.get(key)),
    ingressesForService: (key: string) => resolve<Ingress>('Ingress', parts.ingressesByService.get(key)),
    ingressesForIngressClass: (name: string) => resolve<Ingress>('Ingress', parts.ingressesByClass.get(name)),
    gatewaysForGatewayClass: (name: string) => resolve<Gateway>('Gateway', parts.gatewaysByClass.get(name)),
  });
}

/** Orders keys by code unit, like Go's string comparison, so order does not depend on locale. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
