/**
 * The shapes translateIngress reads and returns.
 *
 * Input objects are kube-objects' structural shapes (re-exported by the index): client-node
 * models and plain JSON both fit without casts, and a wrong shape becomes a problem, never an
 * exception.
 */
import type { LimitStatusCodes } from './limit-annotations.js';
import type { ConfigMapLike, SecretLike } from '@ingresskit/kube-objects';
import type {
  BackendAddressPolicy,
  ExternalAuthPolicy,
  Problem,
  RouteContribution,
  ServiceBackendRef,
  SharedCounterStore,
  StrictTransportSecurity,
} from '@ingresskit/route-model';
import type { CertificateCache } from './certificates.js';
import type { IngressChecks } from './ingress-checks.js';
import { type ConfigMapHeader } from './annotation-parts.js';
import { type AnnotationDefaults } from './annotation-types.js';

/**
 * A Service port: the controller's `--default-backend-service`, or the target of a backend id
 * (route-model's ServiceBackendRef, under the name this package published first).
 */
export type ServiceReference = ServiceBackendRef;

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
  /**
   * The ConfigMap's global-rate-limit-* keys: the memcached of global-rate-limit and the status of
   * its refusals. An Ingress with global-rate-limit is closed without a memcached host.
   */
  globalRateLimit?: GlobalRateLimitConfig;
  /**
   * The controller ConfigMap's global-allowed-response-headers: the only header names a
   * custom-headers ConfigMap may hold (compared without case). None when undefined.
   */
  allowedResponseHeaders?: readonly string[];
  /** The controller ConfigMap's limit-req- and limit-conn-status-code; 503 both when undefined. */
  limitStatusCodes?: LimitStatusCodes;
  /**
   * The controller ConfigMap's add-headers and proxy-set-headers: headers set on every response,
   * and on every request to a backend, of every route. An Ingress's custom-headers of the same
   * name win over `response`.
   */
  headers?: { response: readonly ConfigMapHeader[]; request: readonly ConfigMapHeader[] };
  /**
   * The directives a configuration-snippet may hold (of SNIPPET_DIRECTIVES), translated into
   * header changes; with none (the default), every snippet leaves its Ingress out.
   */
  allowedSnippetDirectives?: readonly string[];
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
   * DEFAULT_BACKEND_ADDRESS_POLICY (no loopback, link-local, cloud metadata or own addresses) when undefined.
   */
  authAddressPolicy?: BackendAddressPolicy;
  /**
   * The controller ConfigMap's global-auth-* keys: the external authentication of every Ingress
   * without an auth-url of its own or enable-global-auth "false". None when undefined.
   */
  globalAuth?: GlobalExternalAuth;
  /**
   * `--default-backend-service`: answers custom-http-errors for Ingresses without a
   * default-backend annotation (or whose default-backend has no endpoints).
   */
  defaultBackend?: ServiceReference;
  /**
   * The controller ConfigMap's checks of a whole Ingress (strict-validate-path-type,
   * annotation-value-word-blocklist, annotations-risk-level); DEFAULT_INGRESS_CHECKS, as
   * ingress-nginx's defaults, when undefined.
   */
  ingressChecks?: IngressChecks;
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

/** What the controller ConfigMap says of global rate limits (global-rate-limit-* keys). */
export interface GlobalRateLimitConfig {
  /** global-rate-limit-status-code; ingress-nginx's default is 429. */
  statusCode: number;
  /** Absent while global-rate-limit-memcached-host is not set. */
  store?: SharedCounterStore;
}

/** The ConfigMap's global external authentication: its policy, or why the routes it protects answer 503. */
export type GlobalExternalAuth = { policy: ExternalAuthPolicy } | { problem: string };
