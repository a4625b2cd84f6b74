/**
 * The parts of IngressAnnotations each family of annotations fills, as written and as requests
 * for the objects they name (Secrets, ConfigMaps), before the translation completes them. A leaf,
 * shared by each family's parser and the record that holds them all.
 */
import type {
  BackendTlsPolicy,
  ClientCertificatePolicy,
  ExternalAuthCache,
  HashKeyPart,
  HeaderModifier,
  ResponseRewrite,
  SessionAffinity,
} from '@ingresskit/route-model';

/** The statuses a redirect annotation may ask for. */
export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

/** A ConfigMap as an annotation names it: `name`, or `namespace/name`. */
export interface ConfigMapReference {
  namespace?: string;
  name: string;
}

/** One header of a ConfigMap: its key and its value. */
export interface ConfigMapHeader {
  name: string;
  value: string;
}

/** The limit annotations of one Ingress, as written. */
export interface LimitAnnotations {
  connections?: number;
  requestsPerSecond?: number;
  requestsPerMinute?: number;
  /** limit-burst-multiplier; ingress-nginx's default is 5. */
  burstMultiplier?: number;
  /** limit-allowlist: canonical CIDRs, sorted. */
  exemptSources?: string[];
}

/** The global-rate-limit annotations of one Ingress, as written. */
export interface GlobalRateLimitAnnotations {
  /** global-rate-limit; 0 is ingress-nginx's "no limit". */
  limit?: number;
  /** global-rate-limit-window in whole seconds (ingress-nginx drops fractions). */
  windowSeconds?: number;
  /** global-rate-limit-key; ingress-nginx's default is `$remote_addr`. */
  key?: HashKeyPart[];
  /** global-rate-limit-ignored-cidrs: canonical CIDRs, sorted. */
  exemptSources?: string[];
}

/** The canary annotations of one Ingress, as written. */
export interface CanaryAnnotations {
  enabled?: boolean;
  header?: string;
  headerValue?: string;
  headerPattern?: string;
  cookie?: string;
  weight?: number;
  weightTotal?: number;
  affinityBehavior?: 'sticky' | 'legacy';
}

/** The auth annotations of one Ingress, as written. */
export interface AuthAnnotations {
  type?: 'basic' | 'digest';
  secretNamespace?: string;
  secretName?: string;
  secretType?: 'auth-file' | 'auth-map';
  realm?: string;
}

/** What basic or digest authentication needs from the Secret: resolved when the Ingress is translated. */
export interface BasicAuthRequest {
  type: 'basic' | 'digest';
  /** As written; absent: the Ingress's own. */
  namespace?: string;
  name: string;
  secretType: 'auth-file' | 'auth-map';
  realm: string;
  /** The annotation field problems of the Secret are reported on. */
  field: string;
}

/** The auth-tls annotations of one Ingress, as written. */
export interface ClientCertificateAnnotations {
  secretNamespace?: string;
  secretName?: string;
  verify?: ClientCertificatePolicy['verify'] | 'off';
  depth?: number;
  errorPage?: string;
  passCertificate?: boolean;
  matchCn?: string;
}

/** What client certificate authentication needs from the CA Secret: resolved at translation. */
export interface ClientCertificateRequest {
  /** As written; absent: the Ingress's own. */
  namespace?: string;
  name: string;
  /** The policy without its CA certificates. */
  policy: Omit<ClientCertificatePolicy, 'caCertificatesPem'>;
  /** The annotation field problems of the Secret are reported on. */
  field: string;
}

/** The proxy-ssl annotations of one Ingress, as written. */
export interface BackendTlsAnnotations {
  secretNamespace?: string;
  secretName?: string;
  verify?: boolean;
  depth?: number;
  protocols?: BackendTlsPolicy['protocols'];
  ciphers?: string;
  serverName?: string;
  sendServerName?: boolean;
}

/** What backend TLS needs from the Secret: resolved when the Ingress is translated. */
export interface BackendTlsRequest {
  /** As written; absent: the Ingress's own. */
  namespace?: string;
  name: string;
  /** The policy without what the Secret holds. */
  policy: Omit<BackendTlsPolicy, 'caCertificatesPem' | 'clientCertificate'>;
  /** The annotation field problems of the Secret are reported on. */
  field: string;
}

/** The keep-alive annotations of one Ingress, as written. */
export interface ExternalAuthKeepaliveAnnotations {
  keepaliveConnections?: number;
  keepaliveRequests?: number;
  keepaliveTimeout?: number;
  keepaliveShareVars?: boolean;
}

/** The external authentication annotations of one Ingress, as written. */
export interface ExternalAuthAnnotations extends ExternalAuthKeepaliveAnnotations {
  url?: string;
  method?: string;
  signinUrl?: string;
  redirectParam?: string;
  responseHeaders?: string[];
  requestRedirect?: string;
  alwaysSetCookie?: boolean;
  cacheKey?: HashKeyPart[];
  cacheDurations?: ExternalAuthCache['durations'];
  /** auth-proxy-set-headers: the ConfigMap `name`, or `namespace/name` as written. */
  proxySetHeaders?: ConfigMapReference;
}

/**
 * How combineExternalAuth names what it warns about, given an annotation name (`auth-method`):
 * the annotations of an Ingress, or the ConfigMap's global-auth-* keys.
 */
export interface ExternalAuthNaming {
  /** The name as the user wrote it (`auth-method`, `global-auth-method`). */
  key(name: string): string;
  /** The problem's field. */
  field(name: string): string;
  /** How a message names it (`annotation "auth-method"`). */
  label(name: string): string;
}

/** The affinity annotations of one Ingress, as written. */
export interface AffinityAnnotations {
  enabled?: boolean;
  mode?: SessionAffinity['mode'];
  cookie: SessionAffinity['cookie'] | Partial<SessionAffinity['cookie']>;
  changeOnFailure?: boolean;
  /** The session-cookie-* annotations set, for the warning when affinity is not set. */
  names: string[];
}

/** The proxy annotations of one Ingress, as written. */
export interface ProxyAnnotations {
  hashKey?: HashKeyPart[];
  hashSubset?: boolean;
  hashSubsetSize?: number;
  loadBalancing?: 'round-robin' | 'ewma';
  connectionHeader?: string;
  accessLog?: boolean;
  satisfyAny?: boolean;
  upstreamTries?: number;
  /** A literal prefix, or "off". */
  redirectFrom?: string;
  redirectTo?: string;
  cookieDomain?: ResponseRewrite | 'off';
  cookiePath?: ResponseRewrite | 'off';
}

/** The header changes of a snippet; a side is absent when the snippet does not touch it. */
export interface SnippetHeaders {
  request?: HeaderModifier;
  response?: HeaderModifier;
}
