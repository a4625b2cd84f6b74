/**
 * What the annotations of one Ingress parse into (IngressAnnotations), the shape of a problem
 * found in one and of the parser of one. A leaf: the family modules that parse annotations and
 * parseAnnotations, which composes them, both read it, and it reads neither.
 */
import { INGRESS_NGINX_ANNOTATION_PREFIX } from '@ingresskit/kube-objects';
import type {
  BackendProtocol,
  BackendTlsPolicy,
  BasicAuthPolicy,
  CanaryRule,
  ClientCertificatePolicy,
  CorsPolicy,
  DigestAuthPolicy,
  ExternalAuthPolicy,
  GlobalRateLimit,
  ResponseRewrite,
  SessionAffinity,
  UpstreamSettings,
} from '@ingresskit/route-model';
import type {
  AffinityAnnotations,
  AuthAnnotations,
  BackendTlsAnnotations,
  BackendTlsRequest,
  BasicAuthRequest,
  CanaryAnnotations,
  ClientCertificateAnnotations,
  ClientCertificateRequest,
  ConfigMapHeader,
  ConfigMapReference,
  ExternalAuthAnnotations,
  GlobalRateLimitAnnotations,
  LimitAnnotations,
  ProxyAnnotations,
  RedirectStatus,
  SnippetHeaders,
} from './annotation-parts.js';
import type { AnnotationProblemCode } from './problem-codes.js';
import type { RedirectTarget } from './redirect-target.js';

/** The default annotation prefix, shared with ingress-nginx so existing manifests keep working. */
export const DEFAULT_ANNOTATION_PREFIX = INGRESS_NGINX_ANNOTATION_PREFIX;

/** The annotations of one Ingress, parsed. */
export interface IngressAnnotations {
  /** ssl-redirect: redirect plain HTTP to HTTPS on hosts with TLS (default true). */
  sslRedirect: boolean;
  /** force-ssl-redirect: redirect plain HTTP to HTTPS on every host. */
  forceSslRedirect: boolean;
  /** rewrite-target: `/` followed by path characters and `$1`-`$9`. */
  rewriteTarget?: string;
  /** use-regex: ImplementationSpecific paths are regular expressions. */
  useRegex: boolean;
  /** allowlist-source-range (or whitelist-source-range): canonical CIDRs, sorted; empty: everyone. */
  allowSourceRanges: string[];
  /** denylist-source-range (or blacklist-source-range): canonical CIDRs, sorted; absent: no one. */
  denySourceRanges?: string[];
  /** backend-protocol, upper case. */
  backendProtocol: BackendProtocol;
  connectTimeoutSeconds?: number;
  readTimeoutSeconds?: number;
  sendTimeoutSeconds?: number;
  /** proxy-body-size in bytes (k, m, g are multiples of 1024); 0 means no limit. */
  maxBodyBytes?: number;
  /** upstream-vhost: the Host header sent upstream, `host` or `host:port`. */
  upstreamHost?: string;
  /**
   * temporal-redirect (status temporal-redirect-code, default 302) or else permanent-redirect
   * (permanent-redirect-code, default 301): every route of the Ingress answers this redirect.
   */
  redirect?: { target: RedirectTarget; statusCode: RedirectStatus };
  /** app-root: a request for `/` on the Ingress's hosts is redirected (302) here. */
  appRoot?: RedirectTarget;
  /** x-forwarded-prefix: the X-Forwarded-Prefix header sent upstream. */
  forwardedPrefix?: string;
  /** preserve-trailing-slash: the HTTPS redirect keeps a trailing `/` (ingress-nginx drops it). */
  preserveTrailingSlash?: boolean;
  /** from-to-www-redirect: `www.` + host (or host without `www.`) redirects to the host. */
  fromToWwwRedirect?: boolean;
  /** server-alias: more hostnames for the Ingress's first host, lower case, unique. */
  serverAliases?: string[];
  /** enable-cors "true" with the cors-* options, ingress-nginx's defaults for the unset ones. */
  cors?: CorsPolicy;
  /** limit-connections, limit-rps, limit-rpm and what loosens them, as written. */
  limits?: LimitAnnotations;
  /** global-rate-limit and its window, key and ignored CIDRs, as written. */
  globalRateLimit?: GlobalRateLimitAnnotations;
  /** The global rate limit but its scope, once the ConfigMap's memcached completes it (none: closed). */
  globalRateLimitPolicy?: Omit<GlobalRateLimit, 'scope'>;
  /** The canary annotations as written (see `canary` for what they make). */
  canaryAnnotations?: CanaryAnnotations;
  /** canary "true": the Ingress is the canary of the main Ingress of its hosts and paths. */
  canary?: CanaryRule;
  /** auth-* as written. */
  auth?: AuthAnnotations;
  /** auth-type basic or digest: the Secret to read. */
  basicAuthRequest?: BasicAuthRequest;
  /** The users of basic authentication, once the Secret is read (empty: nobody gets in). */
  basicAuth?: BasicAuthPolicy;
  /** The users of digest authentication in its realm, once the Secret is read (empty: nobody gets in). */
  digestAuth?: DigestAuthPolicy;
  /** auth-tls-* as written. */
  clientCertificate?: ClientCertificateAnnotations;
  /** auth-tls-secret: the CA Secret to read and the policy it completes. */
  clientCertificateRequest?: ClientCertificateRequest;
  /** Client certificate authentication, once the CA Secret is read (no CA: closed). */
  clientCertificatePolicy?: ClientCertificatePolicy;
  /** proxy-ssl-* as written. */
  backendTlsAnnotations?: BackendTlsAnnotations;
  /** proxy-ssl-secret: the Secret to read and the policy it completes. */
  backendTlsRequest?: BackendTlsRequest;
  /** TLS towards the backend, once the Secret is read (no CA with verify: closed). */
  backendTls?: BackendTlsPolicy;
  /** auth-url and the other external authentication annotations as written. */
  externalAuthAnnotations?: ExternalAuthAnnotations;
  /** auth-url or the ConfigMap's global-auth-url: the service that must let each forwarded request through. */
  externalAuth?: ExternalAuthPolicy;
  /** enable-global-auth: "false" opts the Ingress out of the controller ConfigMap's global-auth-url. */
  enableGlobalAuth?: boolean;
  /** affinity and session-cookie-* as written. */
  affinity?: AffinityAnnotations;
  /** affinity "cookie": the session affinity of every route. */
  sessionAffinity?: SessionAffinity;
  /** upstream-hash-by, proxy-next-upstream-tries, proxy-redirect-*, proxy-cookie-* as written. */
  proxy?: ProxyAnnotations;
  /** proxy-redirect-from and -to together. */
  locationRewrite?: ResponseRewrite;
  /** service-upstream: backends are their Service's cluster IP, not its endpoints. */
  serviceUpstream?: boolean;
  /** proxy-buffering, proxy-next-upstream and the other profile directives. */
  upstreamSettings?: UpstreamSettings;
  /** The controller ConfigMap's http-redirect-code: the status of the redirects to HTTPS and www (308 when absent). */
  httpRedirectCode?: 301 | 302 | 307 | 308;
  /** The controller ConfigMap's retry-non-idempotent: every route also retries non-idempotent requests. */
  retryNonIdempotent?: boolean;
  /** The controller ConfigMap's no-tls-redirect-locations: path prefixes never redirected to HTTPS. */
  noTlsRedirectLocations?: string[];
  /** The controller ConfigMap's no-auth-locations: path prefixes asking for no authentication. */
  noAuthLocations?: string[];
  /** custom-http-errors: statuses from 400 to 599, sorted, unique. */
  customHttpErrors?: number[];
  /** disable-proxy-intercept-errors: with custom-http-errors, the backend's own answers pass through. */
  disableProxyInterceptErrors?: boolean;
  /** The controller ConfigMap's custom-http-errors (answered by the controller's default backend only). */
  defaultCustomHttpErrors?: number[];
  /** default-backend: a Service of the Ingress's namespace (its first port). */
  defaultBackendService?: string;
  /** custom-headers: the ConfigMap `name`, or `namespace/name` as written. */
  customHeaders?: ConfigMapReference;
  /** custom-headers: the response headers of its ConfigMap, once read and allowed (else: closed). */
  customResponseHeaders?: ConfigMapHeader[];
  /** configuration-snippet, when its directives are allowed: its header changes. */
  snippetHeaders?: SnippetHeaders;
  /** Every forwarding route answers 503: something authentication needs cannot be read. */
  closed?: true;
}

/** A problem found in an annotation, before it is tied to its object. */
export interface AnnotationProblem {
  /** The kind of problem (see INGRESS_PROBLEM_CODES). */
  code: AnnotationProblemCode;
  field: string;
  message: string;
  severity: 'error' | 'warning';
  value?: string;
}

/** The result of parseAnnotations: the parsed values, or undefined when the Ingress must be left out. */
export interface AnnotationParseResult {
  annotations?: IngressAnnotations;
  problems: AnnotationProblem[];
}

/** Reads one annotation's value into `into`; returns why the value is invalid, or undefined. */
export type AnnotationParser = (value: string, into: IngressAnnotations) => string | undefined;

/** Defaults of annotations, as a ConfigMap sets them (see ANNOTATION_DEFAULT_KEYS). */
export type AnnotationDefaults = Partial<
  Pick<
    IngressAnnotations,
    | 'sslRedirect'
    | 'forceSslRedirect'
    | 'connectTimeoutSeconds'
    | 'readTimeoutSeconds'
    | 'sendTimeoutSeconds'
    | 'defaultCustomHttpErrors'
    | 'upstreamSettings'
    | 'serviceUpstream'
    | 'httpRedirectCode'
    | 'retryNonIdempotent'
    | 'noTlsRedirectLocations'
    | 'noAuthLocations'
  >
> & {
  /** load-balance and the proxy keys of configmap-proxy-defaults. */
  proxy?: Pick<
    ProxyAnnotations,
    'loadBalancing' | 'upstreamTries' | 'cookieDomain' | 'cookiePath' | 'redirectFrom' | 'redirectTo'
  >;
};
