/**
 * The Configuration model: what buildConfiguration produces and renderNginxConf and
 * backendsPayload consume. Plain, JSON-serialisable data, sorted so that equal inputs give equal
 * models (and byte-identical nginx.conf).
 */
import type { CertificateCache } from './certificates.js';

/** A namespaced object name. */
export interface NamespacedName {
  namespace: string;
  name: string;
}

/** The object a problem is about. */
export interface ObjectReference {
  kind: 'Ingress' | 'Service' | 'Secret' | 'EndpointSlice';
  namespace: string;
  name: string;
}

/**
 * Something in the input that could not be served as written. `error`: that part (an Ingress,
 * a path, a TLS entry) was left out; `warning`: it is served, but not exactly as written.
 */
export interface Problem {
  object: ObjectReference;
  /** Where in the object, as a JSON-path-like string, e.g. `spec.rules[0].http.paths[1].path`. */
  field: string;
  message: string;
  severity: 'error' | 'warning';
  /** The offending value, when there is one (shown as data, never interpreted). */
  value?: string;
}

/** Ingress v1 path types. */
export type PathType = 'Exact' | 'Prefix' | 'ImplementationSpecific';

/** Protocols nginx speaks to a backend (the backend-protocol annotation). */
export type BackendProtocol = 'HTTP' | 'HTTPS' | 'GRPC';

/**
 * How an nginx location matches: `exact` (`location =`), `prefix` (plain `location`, the
 * longest wins) or `regex` (`location ~*`, first in order wins, checked before prefixes).
 */
export type LocationMatch = 'exact' | 'prefix' | 'regex';

/** Where a location sends its requests. */
export type LocationTarget = { kind: 'backend'; backend: string } | { kind: 'status'; status: 404 | 503 };

/** Per-location proxy settings from annotations; absent fields use the render defaults. */
export interface ProxySettings {
  protocol: BackendProtocol;
  connectTimeoutSeconds?: number;
  readTimeoutSeconds?: number;
  sendTimeoutSeconds?: number;
  /** client_max_body_size, e.g. `8m` or `0` (unlimited). */
  bodySize?: string;
  /** Host header sent to the backend instead of the client's. */
  upstreamVhost?: string;
}

/** One nginx `location` block. */
export interface Location {
  match: LocationMatch;
  /** The literal path (exact, prefix) or the full regex, anchored with `^` (regex). */
  path: string;
  /** The Ingress path this location came from; absent for the implicit fallback location. */
  source?: { ingress: NamespacedName; path: string; pathType: PathType };
  target: LocationTarget;
  /** Redirect plain-HTTP requests to HTTPS (308). */
  sslRedirect: boolean;
  /** A `rewrite <pattern> <replacement> break;` (the rewrite-target annotation). */
  rewrite?: { pattern: string; replacement: string };
  /** Client CIDRs allowed; empty means everyone. */
  allowSourceRanges: string[];
  proxy: ProxySettings;
}

/** TLS of a server: the certificate file (see Configuration.certificates) and its Secret. */
export interface ServerTls {
  certificate: string;
  secret: NamespacedName;
}

/** One nginx `server` block: a host (or `_` for the catch-all) and its locations. */
export interface Server {
  host: string;
  tls?: ServerTls;
  locations: Location[];
}

/** An endpoint the Lua balancer may send requests to. */
export interface Endpoint {
  address: string;
  port: number;
}

/** A Service port requests are balanced over. */
export interface Backend {
  /** `namespace/service:port`; the value of `$ingresskit_backend`. */
  name: string;
  service: NamespacedName;
  /** The Service port (number), or the name as written when the Service could not be read. */
  port: number | string;
  /** ExternalName Services are proxied to this host (resolved by nginx), not balanced in Lua. */
  externalName?: string;
  /** Ready, non-terminating endpoints, sorted. Sent through backendsPayload, never rendered. */
  endpoints: Endpoint[];
}

/**
 * A certificate with its key, to be written by the caller to `<sslCertificateDir>/<fileName>`.
 * The file name derives from the content hash, so a new certificate is a new file and the file
 * a running nginx reads is never overwritten.
 */
export interface Certificate {
  fileName: string;
  /** SHA-256 of `pem`, hex. */
  sha256: string;
  /** Certificate chain followed by the private key, PEM. */
  pem: string;
  /** The certificate's notAfter, ISO 8601. */
  notAfter: string;
  /** Secrets that hold this content, sorted. */
  secrets: NamespacedName[];
}

/** The whole model. */
export interface Configuration {
  /**
   * SHA-256 (hex) of everything rendered into nginx.conf: servers, locations, backend names and
   * certificate files, but not endpoints. Equal checksums mean no reload is needed.
   */
  checksum: string;
  /** The catch-all server (`_`): rules without a host, and the default backend or 404. */
  defaultServer: Server;
  /** Servers by host, sorted. */
  servers: Server[];
  /** Backends by name, sorted. */
  backends: Backend[];
  /** Certificates by file name, sorted. */
  certificates: Certificate[];
}

/** A Service port reference, as the controller's `--default-backend-service` gives it. */
export interface ServiceReference {
  namespace: string;
  name: string;
  port: number | string;
}

/**
 * A collection of objects: a plain list, or a map keyed by `namespace/name` — for EndpointSlices
 * keyed by `namespace/service-name` (the `kubernetes.io/service-name` label), each value that
 * Service's slices. A store with an index can pass its maps as they are.
 */
export type ObjectCollection<T> = readonly T[] | ReadonlyMap<string, T>;

/*
 * Input objects, typed structurally: `@kubernetes/client-node` models (timestamps as `Date`,
 * mutable arrays) and plain JSON from a store or a manifest (timestamps as strings, frozen,
 * readonly) both fit without casts. Only the fields buildConfiguration reads are typed; it checks
 * each of them at run time anyway, so a wrong shape becomes a problem, never an exception.
 * Fields real objects always carry (`apiVersion`, `kind`, `status`, ...) are listed loosely so a
 * literal object written in full type-checks too.
 */

/** A creationTimestamp: a `Date` in client-node models, an RFC 3339 string in plain JSON. */
export type Timestamp = Date | string;

/** A map of labels, annotations or Secret data. */
export type StringMapLike = { readonly [key: string]: string };

/** The metadata fields read here; client-node's `V1ObjectMeta` and plain JSON both fit. */
export interface ObjectMetaLike {
  readonly name?: string | null | undefined;
  readonly namespace?: string | null | undefined;
  readonly labels?: StringMapLike | null | undefined;
  readonly annotations?: StringMapLike | null | undefined;
  /** Decides conflicts: the oldest Ingress wins. A `Date` or an RFC 3339 string. */
  readonly creationTimestamp?: Timestamp | null | undefined;
  readonly uid?: unknown;
  readonly resourceVersion?: unknown;
  readonly generation?: unknown;
}

/** The fields every Kubernetes object has besides its spec and status. */
export interface KubeObjectLike {
  readonly apiVersion?: string | null | undefined;
  readonly kind?: string | null | undefined;
  readonly metadata?: ObjectMetaLike | null | undefined;
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

/** One rule of an Ingress: a host (or none, for the catch-all server) and its paths. */
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

/** A v1 Service as read here; `V1Service` and plain JSON both fit. */
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
 * A discovery.k8s.io/v1 EndpointSlice as read here; `V1EndpointSlice` and plain JSON both fit.
 * In a list it is matched to its Service by the `kubernetes.io/service-name` label.
 */
export interface EndpointSliceLike extends KubeObjectLike {
  readonly addressType?: string | null | undefined;
  readonly ports?: readonly EndpointPortLike[] | null | undefined;
  readonly endpoints?: readonly EndpointLike[] | null | undefined;
}

/**
 * A v1 Secret as read here; `V1Secret` and plain JSON both fit. `tls.crt` and `tls.key` are read
 * from `data` (base64) and from `stringData` (plain text, as written in manifests); a key in
 * `stringData` wins over the same key in `data`, as the API server merges them.
 */
export interface SecretLike extends KubeObjectLike {
  readonly type?: string | null | undefined;
  readonly data?: StringMapLike | null | undefined;
  readonly stringData?: StringMapLike | null | undefined;
  readonly immutable?: unknown;
}

/** Everything buildConfiguration reads. The Ingresses are those this controller owns. */
export interface ConfigurationInput {
  ingresses: readonly IngressLike[];
  services?: ObjectCollection<ServiceLike>;
  endpointSlices?: readonly EndpointSliceLike[] | ReadonlyMap<string, readonly EndpointSliceLike[]>;
  secrets?: ObjectCollection<SecretLike>;
  /** The controller-wide default backend; without it unmatched requests get 404. */
  defaultBackend?: ServiceReference;
}

/** Options of buildConfiguration. */
export interface BuildOptions {
  /** Annotation prefix; default `nginx.ingress.kubernetes.io`. */
  annotationPrefix?: string;
  /** The current time in milliseconds, to warn about expired certificates; no check without it. */
  now?: number;
  /**
   * Parsed certificates kept between builds (createCertificateCache). Only speeds things up: the
   * result is the same with or without it.
   */
  certificateCache?: CertificateCache;
}

/** What buildConfiguration returns: the model and everything it could not serve as written. */
export interface BuildResult {
  configuration: Configuration;
  problems: Problem[];
}
