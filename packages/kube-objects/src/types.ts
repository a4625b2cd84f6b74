/**
 * The Kubernetes objects translators read, typed structurally: `@kubernetes/client-node` models
 * (timestamps as `Date`, mutable arrays) and plain JSON from a store or a manifest (timestamps as
 * strings, frozen, readonly) both fit without casts. Only the fields translators read are typed;
 * each is checked at run time anyway, so a wrong shape becomes a problem, never an exception.
 * Fields real objects always carry are listed loosely so a literal object written in full
 * type-checks too.
 */
/** A creationTimestamp: a `Date` in client-node models, an RFC 3339 string in plain JSON. */
export type Timestamp = Date | string;

/** A map of labels, annotations or Secret data. */
export type StringMapLike = { readonly [key: string]: string };

/** The metadata fields translators read; client-node's `V1ObjectMeta` and plain JSON both fit. */
export interface ObjectMetaLike {
  readonly name?: string | null | undefined;
  readonly namespace?: string | null | undefined;
  readonly labels?: StringMapLike | null | undefined;
  readonly annotations?: StringMapLike | null | undefined;
  /** Ranks routes: the oldest object wins a conflict. A `Date` or an RFC 3339 string. */
  readonly creationTimestamp?: Timestamp | null | undefined;
  /** With `resourceVersion`, what translators memoise a translation by. */
  readonly uid?: unknown;
  readonly resourceVersion?: unknown;
  /** Gateway API statuses carry it as `observedGeneration`. */
  readonly generation?: number | null | undefined;
  /** Set once deletion was asked for; the object goes when its finalizers are gone. */
  readonly deletionTimestamp?: Timestamp | null | undefined;
  readonly finalizers?: readonly string[] | null | undefined;
}

/** The fields every Kubernetes object has besides its spec and status. */
export interface KubeObjectLike {
  readonly apiVersion?: string | null | undefined;
  readonly kind?: string | null | undefined;
  readonly metadata?: ObjectMetaLike | null | undefined;
}

/** A port of a Service. */
export interface ServicePortLike {
  readonly name?: string | null | undefined;
  readonly port?: number | null | undefined;
  /** `TCP` when absent. */
  readonly protocol?: string | null | undefined;
  readonly targetPort?: unknown;
  readonly nodePort?: unknown;
  readonly appProtocol?: unknown;
}

/** A v1 Service as translators read it; `V1Service` and plain JSON both fit. */
export interface ServiceLike extends KubeObjectLike {
  readonly spec?:
    | {
        readonly type?: string | null | undefined;
        readonly externalName?: string | null | undefined;
        readonly ports?: readonly ServicePortLike[] | null | undefined;
        readonly clusterIP?: unknown;
        readonly selector?: unknown;
      }
    | null
    | undefined;
  readonly status?: unknown;
}

/** A port of an EndpointSlice. */
export interface EndpointPortLike {
  readonly name?: string | null | undefined;
  readonly port?: number | null | undefined;
  /** `TCP` when absent. */
  readonly protocol?: string | null | undefined;
  readonly appProtocol?: unknown;
}

/** One endpoint of an EndpointSlice; `ready` absent means ready (the API's contract). */
export interface EndpointLike {
  readonly addresses?: readonly string[] | null | undefined;
  readonly conditions?:
    | {
        readonly ready?: boolean | null | undefined;
        readonly serving?: boolean | null | undefined;
        readonly terminating?: boolean | null | undefined;
      }
    | null
    | undefined;
  readonly nodeName?: unknown;
  readonly targetRef?: unknown;
  readonly zone?: unknown;
  readonly hints?: unknown;
}

/**
 * A discovery.k8s.io/v1 EndpointSlice as translators read it; `V1EndpointSlice` and plain JSON both fit.
 * It belongs to the Service its `kubernetes.io/service-name` label names, in its own namespace.
 */
export interface EndpointSliceLike extends KubeObjectLike {
  readonly addressType?: string | null | undefined;
  readonly ports?: readonly EndpointPortLike[] | null | undefined;
  readonly endpoints?: readonly EndpointLike[] | null | undefined;
}

/**
 * A v1 Secret as translators read it; `V1Secret` and plain JSON both fit. `tls.crt` and `tls.key` are read
 * from `data` (base64) and from `stringData` (plain text, as written in manifests); a key in
 * `stringData` wins over the same key in `data`, as the API server merges them.
 */
export interface SecretLike extends KubeObjectLike {
  readonly type?: string | null | undefined;
  readonly data?: StringMapLike | null | undefined;
  readonly stringData?: StringMapLike | null | undefined;
  readonly immutable?: unknown;
}

/** A v1 ConfigMap as translators read it; `V1ConfigMap` and plain JSON both fit. */
export interface ConfigMapLike extends KubeObjectLike {
  readonly data?: StringMapLike | null | undefined;
}

/** The Service port of an Ingress backend: a number or a name. */
export interface ServiceBackendPortLike {
  readonly number?: number | null | undefined;
  readonly name?: string | null | undefined;
}

/** An Ingress backend (`spec.defaultBackend` or a path's backend). Resource backends are refused. */
export interface IngressBackendLike {
  readonly service?:
    | { readonly name?: string | null | undefined; readonly port?: ServiceBackendPortLike | null | undefined }
    | null
    | undefined;
  readonly resource?: unknown;
}

/** One path of an Ingress rule. */
export interface IngressPathLike {
  readonly path?: string | null | undefined;
  readonly pathType?: string | null | undefined;
  readonly backend?: IngressBackendLike | null | undefined;
}

/** One rule of an Ingress: a host (or none, for every host) and its paths. */
export interface IngressRuleLike {
  readonly host?: string | null | undefined;
  readonly http?: { readonly paths?: readonly IngressPathLike[] | null | undefined } | null | undefined;
}

/** One TLS entry of an Ingress: its hosts (none means every host of the Ingress) and its Secret. */
export interface IngressTlsLike {
  readonly hosts?: readonly string[] | null | undefined;
  readonly secretName?: string | null | undefined;
}

/** A networking.k8s.io/v1 Ingress as read here; `V1Ingress` and plain JSON both fit. */
export interface IngressLike extends KubeObjectLike {
  readonly spec?:
    | {
        readonly ingressClassName?: string | null | undefined;
        readonly defaultBackend?: IngressBackendLike | null | undefined;
        readonly rules?: readonly IngressRuleLike[] | null | undefined;
        readonly tls?: readonly IngressTlsLike[] | null | undefined;
      }
    | null
    | undefined;
  readonly status?: unknown;
}

/** An IngressClass as class resolution reads it; `V1IngressClass` and plain JSON both fit. */
export interface IngressClassLike extends KubeObjectLike {
  readonly spec?:
    { readonly controller?: string | null | undefined; readonly parameters?: unknown } | null | undefined;
}

/** A Gateway API GatewayClass as far as ownership is concerned (plain JSON or a typed object). */
export interface GatewayClassLike extends KubeObjectLike {
  readonly spec?:
    | {
        readonly controllerName?: string | null | undefined;
        readonly parametersRef?: unknown;
        readonly description?: unknown;
      }
    | null
    | undefined;
  readonly status?: unknown;
}
