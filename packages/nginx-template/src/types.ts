/**
 * The Configuration model: what buildConfiguration produces and renderNginxConf and
 * backendsPayload consume. Plain, JSON-serialisable data, sorted so that equal inputs give equal
 * models (and byte-identical nginx.conf).
 */
import type { V1EndpointSlice, V1Ingress, V1Secret, V1Service } from '@kubernetes/client-node';
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

/** Everything buildConfiguration reads. The Ingresses are those this controller owns. */
export interface ConfigurationInput {
  ingresses: readonly V1Ingress[];
  services?: ObjectCollection<V1Service>;
  endpointSlices?: readonly V1EndpointSlice[] | ReadonlyMap<string, readonly V1EndpointSlice[]>;
  secrets?: ObjectCollection<V1Secret>;
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
