/** The objects the store hands out, typed as stored: read-only JSON after client-node's models. */
import type {
  V1ConfigMap,
  V1EndpointSlice,
  V1Ingress,
  V1IngressClass,
  V1Namespace,
  V1ObjectMeta,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';

/**
 * The JSON shape of a client-node model: `Date` fields become RFC 3339 strings and everything is
 * read-only, because the store hands out shared, frozen objects.
 */
export type Plain<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? readonly Plain<U>[]
    : T extends object
      ? { readonly [K in keyof T]: Plain<T[K]> }
      : T;

/** Object metadata as stored: plain JSON, `name` and `resourceVersion` always present. */
export type ObjectMeta = Plain<V1ObjectMeta> & { readonly name: string; readonly resourceVersion: string };

/** What every stored object has: its type and metadata. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
}

type Stored<T> = Omit<Plain<T>, 'apiVersion' | 'kind' | 'metadata'> & KubeObject;

/** networking.k8s.io/v1 Ingress as stored. */
export type Ingress = Stored<V1Ingress>;
/** networking.k8s.io/v1 IngressClass as stored. */
export type IngressClass = Stored<V1IngressClass>;
/** v1 Service as stored. */
export type Service = Stored<V1Service>;
/** discovery.k8s.io/v1 EndpointSlice as stored. */
export type EndpointSlice = Stored<V1EndpointSlice>;
/** v1 Secret as stored (only Secrets something references, or kept on request, are held). */
export type Secret = Stored<V1Secret>;
/** v1 ConfigMap as stored. */
export type ConfigMap = Stored<V1ConfigMap>;
/** v1 Namespace as stored (mirrored only when asked for: its labels feed namespace selectors). */
export type Namespace = Stored<V1Namespace>;

/** A custom resource as stored: free-form spec and status. */
export interface CustomObject extends KubeObject {
  readonly spec?: Readonly<Record<string, unknown>>;
  readonly status?: Readonly<Record<string, unknown>>;
}

/** tengine.taobao.org/v1 IngressCheckSum as stored. */
export type IngressCheckSum = CustomObject;
/** tengine.taobao.org/v1 SecretCheckSum as stored. */
export type SecretCheckSum = CustomObject;

/** gateway.networking.k8s.io/v1 GatewayClass as stored. */
export interface GatewayClass extends CustomObject {
  readonly spec?: Readonly<{ controllerName?: string; description?: string; [field: string]: unknown }>;
}

/** gateway.networking.k8s.io/v1 Gateway as stored. */
export interface Gateway extends CustomObject {
  readonly spec?: Readonly<{ gatewayClassName?: string; [field: string]: unknown }>;
}

/** gateway.networking.k8s.io/v1 HTTPRoute as stored. */
export type HTTPRoute = CustomObject;

/** gateway.networking.k8s.io/v1beta1 ReferenceGrant as stored. */
export type ReferenceGrant = CustomObject;

/** One served version of a CRD, without its schema. */
export interface CustomResourceDefinitionVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
}

/**
 * A CustomResourceDefinition as stored: metadata (with annotations such as
 * `gateway.networking.k8s.io/bundle-version`), group, names, scope and versions. Schemas are
 * dropped: they are large and the store never validates.
 */
export interface CustomResourceDefinition extends KubeObject {
  readonly spec: {
    readonly group: string;
    readonly scope: string;
    readonly names: Readonly<{ plural: string; singular?: string; kind: string; listKind?: string }>;
    readonly versions: readonly CustomResourceDefinitionVersion[];
  };
  readonly status?: {
    readonly conditions?: readonly Readonly<{
      type: string;
      status: string;
      reason?: string;
      message?: string;
    }>[];
    readonly storedVersions?: readonly string[];
  };
}

/** The stored object type of each kind. */
export interface ObjectsByKind {
  Ingress: Ingress;
  IngressClass: IngressClass;
  Service: Service;
  EndpointSlice: EndpointSlice;
  Secret: Secret;
  ConfigMap: ConfigMap;
  Namespace: Namespace;
  IngressCheckSum: IngressCheckSum;
  SecretCheckSum: SecretCheckSum;
  GatewayClass: GatewayClass;
  Gateway: Gateway;
  HTTPRoute: HTTPRoute;
  ReferenceGrant: ReferenceGrant;
  CustomResourceDefinition: CustomResourceDefinition;
}
