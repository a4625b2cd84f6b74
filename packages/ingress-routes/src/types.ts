/**
 * The shapes translateIngress reads and returns.
 *
 * Input objects are typed structurally, as in `@ingresskit/kube-objects` (whose shapes of
 * Services, EndpointSlices and Secrets are re-exported here): client-node models and plain JSON
 * both fit without casts, and a wrong shape becomes a problem, never an exception.
 */
import type { AnnotationDefaults } from './annotation-defaults.js';
import type { KubeObjectLike, SecretLike } from '@ingresskit/kube-objects';
import type { Problem, RouteContribution, StrictTransportSecurity } from '@ingresskit/route-model';
import type { CertificateCache } from './certificates.js';
import type { BackendAddressPolicy } from './backend-address-policy.js';

export type {
  EndpointLike,
  EndpointPortLike,
  EndpointSliceLike,
  KubeObjectLike,
  ObjectMetaLike,
  SecretLike,
  ServiceLike,
  ServicePortLike,
  StringMapLike,
  Timestamp,
} from '@ingresskit/kube-objects';

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

/** A Service port: the controller's `--default-backend-service`, or the target of a backend id. */
export interface ServiceReference {
  namespace: string;
  name: string;
  /** The port number, or the name of a Service port. */
  port: number | string;
  /** service-upstream: the Service's cluster IP and port, instead of its endpoints. */
  viaClusterIp?: true;
}

/** A v1 ConfigMap as read here (auth-proxy-set-headers); `V1ConfigMap` and plain JSON both fit. */
export interface ConfigMapLike extends KubeObjectLike {
  readonly data?: Readonly<Record<string, string>> | null | undefined;
}

/**
 * The objects an Ingress refers to, looked up by the translation. Only Secrets and ConfigMaps:
 * Services and their EndpointSlices are read by resolveServiceBackend, once per backend, not per
 * Ingress.
 */
export interface IngressReferences {
  /** The Secret `namespace/name`, or undefined when it does not exist (or is not visible). */
  secret(namespace: string, name: string): SecretLike | undefined;
  /** The ConfigMap `namespace/name`, or undefined; without this lookup, every ConfigMap is missing. */
  configMap?(namespace: string, name: string): ConfigMapLike | undefined;
}

/** Options of translateIngress. */
export interface IngressTranslationConfig {
  /** Annotation prefix; default `nginx.ingress.kubernetes.io` (DEFAULT_ANNOTATION_PREFIX). */
  annotationPrefix?: string;
  /** Values of annotations an Ingress does not set (the controller ConfigMap's); see AnnotationDefaults. */
  annotationDefaults?: AnnotationDefaults;
  /**
   * Strict-Transport-Security for every route (ingress-nginx's ConfigMap `hsts*` keys; it sends
   * DEFAULT_HSTS unless told otherwise). None when undefined.
   */
  hsts?: StrictTransportSecurity | undefined;
  /** The current time in milliseconds, to warn about expired certificates; no check without it. */
  now?: number;
  /**
   * Most paths one Ingress may hold over all its rules; an Ingress with more is left out whole, so
   * one tenant's huge object cannot make every translation slow. No limit when undefined or 0.
   */
  maxPathsPerIngress?: number;
  /**
   * Parsed certificates kept between translations (createCertificateCache). Only saves work: the
   * result is the same with or without it.
   */
  certificateCache?: CertificateCache;
  /**
   * Where an auth-url may point: the rule backends follow (see BackendAddressPolicy);
   * DEFAULT_BACKEND_ADDRESS_POLICY (no loopback, link-local or own addresses) when undefined.
   */
  authAddressPolicy?: BackendAddressPolicy;
  /**
   * `--default-backend-service`: answers custom-http-errors for Ingresses without a
   * default-backend annotation (or whose default-backend has no endpoints).
   */
  defaultBackend?: ServiceReference;
}

/** What translateIngress returns for one Ingress. */
export interface IngressTranslation {
  /**
   * The Ingress's hosts, routes and TLS claims, for a RouteTableBuilder; undefined when the whole
   * Ingress is left out (an invalid name or annotation, an unreadable object): the builder should
   * then delete whatever this Ingress contributed before.
   */
  contribution: RouteContribution | undefined;
  /** What could not be served as written, in the order found. */
  problems: Problem[];
  /**
   * `namespace/name` keys, sorted and unique: the Secrets and ConfigMaps (absent: none) the
   * translation read (found or not; a change to any of them can change the result) and the
   * Services its routes send traffic to.
   */
  references: { secrets: string[]; services: string[]; configMaps?: string[] };
}
