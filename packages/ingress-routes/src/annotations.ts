/**
 * parseAnnotations: an Ingress's annotations under a prefix become the typed IngressAnnotations and
 * their problems (each value read by annotation-parsers.ts, then each family combined).
 * An invalid value is an error that leaves the whole Ingress out; unsupported annotations that
 * protect something (see ingress-nginx-annotations.ts: auth, limits, WAF, backend TLS, snippets)
 * do the same, other unsupported ones are ignored with a warning.
 */
import { INGRESS_NGINX_ANNOTATION_PREFIX } from '@ingresskit/kube-objects';
import {
  compareText,
  type BackendProtocol,
  type BackendTlsPolicy,
  type BasicAuthPolicy,
  type CanaryRule,
  type ClientCertificatePolicy,
  type CorsPolicy,
  type DigestAuthPolicy,
  type ExternalAuthPolicy,
  type GlobalRateLimit,
  type ResponseRewrite,
  type SessionAffinity,
  type UpstreamSettings,
} from '@ingresskit/route-model';
import { createAnnotationDefaults, type AnnotationDefaults } from './annotation-defaults.js';
import { findAnnotationParser } from './annotation-parsers.js';
import { combineAffinity, type AffinityAnnotations } from './affinity-annotations.js';
import { combineAuth, type AuthAnnotations, type BasicAuthRequest } from './auth-annotations.js';
import {
  combineBackendTls,
  type BackendTlsAnnotations,
  type BackendTlsRequest,
} from './backend-tls-annotations.js';
import {
  combineClientCertificate,
  type ClientCertificateAnnotations,
  type ClientCertificateRequest,
} from './client-certificate-annotations.js';
import { combineCanary, type CanaryAnnotations } from './canary-annotations.js';
import { combineCors } from './cors-annotations.js';
import type { ConfigMapHeader, ConfigMapReference } from './configmap-headers.js';
import {
  annotationNaming,
  combineExternalAuth,
  type ExternalAuthAnnotations,
} from './external-auth-annotations.js';
import { refusalOf } from './ingress-nginx-annotations.js';
import { checkLimitAnnotations, type LimitAnnotations } from './limit-annotations.js';
import {
  checkGlobalRateLimitAnnotations,
  type GlobalRateLimitAnnotations,
} from './global-rate-limit-annotations.js';
import { combineProxy, type ProxyAnnotations } from './proxy-annotations.js';
import { combineRedirects, type RedirectStatus } from './redirect-annotations.js';
import type { RedirectTarget } from './redirect-target.js';
import { checkRewriteTarget } from './rewrite-annotations.js';
import { annotationField } from './annotation-field.js';
import { checkBusyBuffers, dropBusyBuffers } from './upstream-annotations.js';
import { translateSnippet, type SnippetHeaders } from './snippet-directives.js';

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

/** Longest annotation value read; longer ones are refused before any parsing. */
const MAX_VALUE_LENGTH = 4096;

/**
 * Annotations under the prefix that carry data for other parts of a controller, not for routing:
 * `version` is the Ingress's configuration version in Tengine's global checksum.
 */
const NOT_FOR_ROUTING: ReadonlySet<string> = new Set(['version']);

/** The annotation an operator may open to the directives of translateSnippet. */
const SNIPPET_ANNOTATION = 'configuration-snippet';

/** The parser of configuration-snippet allowing `allowed` directives. */
function createSnippetParser(allowed: ReadonlySet<string>): AnnotationParser {
  return (value, into) => {
    const translated = translateSnippet(value, allowed);
    if ('problem' in translated) return `cannot be translated (${translated.problem})`;
    if (Object.keys(translated.headers).length > 0) into.snippetHeaders = translated.headers;
    return undefined;
  };
}

/**
 * Parses the annotations under `prefix` (a Kubernetes `metadata.annotations` value, possibly
 * malformed). Returns the typed values, or no values and at least one error when the Ingress
 * must be left out. configuration-snippet is parsed only when `allowedSnippetDirectives` names
 * directives (see translateSnippet); else it is refused. Never throws.
 */
export function parseAnnotations(
  raw: unknown,
  prefix: string = DEFAULT_ANNOTATION_PREFIX,
  defaults?: AnnotationDefaults,
  allowedSnippetDirectives: readonly string[] = [],
): AnnotationParseResult {
  const into = createAnnotationDefaults(defaults);
  const problems: AnnotationProblem[] = [];
  if (raw === undefined || raw === null) return { annotations: into, problems };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      problems: [{ field: 'metadata.annotations', message: 'must be a map of strings', severity: 'error' }],
    };
  }
  const entries = Object.entries(raw as Record<string, unknown>).sort(([a], [b]) => compareText(a, b));
  const withPrefix = `${prefix}/`;
  // allowlist- and denylist-source-range, limit-allowlist are the current names; set beside the
  // old ones, they win.
  const current = new Set(
    ['allowlist-source-range', 'denylist-source-range', 'limit-allowlist'].map(
      (name) => `${withPrefix}${name}`,
    ),
  );
  const ordered = [
    ...entries.filter(([key]) => !current.has(key)),
    ...entries.filter(([key]) => current.has(key)),
  ];
  for (const [key, value] of ordered) {
    if (!key.startsWith(withPrefix)) continue;
    const name = key.slice(withPrefix.length);
    const field = annotationField(key);
    if (NOT_FOR_ROUTING.has(name)) continue;
    const isSnippet = name === SNIPPET_ANNOTATION && allowedSnippetDirectives.length > 0;
    const parser = isSnippet
      ? createSnippetParser(new Set(allowedSnippetDirectives))
      : findAnnotationParser(name);
    if (parser === undefined) {
      const refusal = refusalOf(name, value);
      problems.push(
        refusal !== undefined
          ? {
              field,
              message: `annotation "${name}" is not supported; the Ingress is not served without it, since ${refusal}`,
              severity: 'error',
            }
          : { field, message: `annotation "${name}" is not supported and is ignored`, severity: 'warning' },
      );
      continue;
    }
    if (typeof value !== 'string') {
      problems.push({ field, message: `annotation "${name}" must be a string`, severity: 'error' });
      continue;
    }
    if (value.length > MAX_VALUE_LENGTH) {
      problems.push({
        field,
        message: `annotation "${name}" must be at most ${MAX_VALUE_LENGTH} characters`,
        severity: 'error',
        value: value.slice(0, 64),
      });
      continue;
    }
    // A snippet is lines of directives: its tokenizer refuses the control characters other than
    // tab, CR and LF, which end nothing there since the snippet only ever becomes data.
    const reason =
      // eslint-disable-next-line no-control-regex -- newlines and NUL are the classic injection
      !isSnippet && /[\u0000-\u001f\u007f]/.test(value)
        ? 'must not hold control characters'
        : parser(value, into);
    if (reason !== undefined) {
      problems.push({ field, message: `annotation "${name}" ${reason}`, severity: 'error', value });
    }
  }
  checkRewriteTarget(into, withPrefix, problems);
  combineRedirects(into, withPrefix, problems);
  combineCors(into, withPrefix, problems);
  const names = new Set(ordered.map(([key]) => key.slice(withPrefix.length)));
  checkLimitAnnotations(into.limits, withPrefix, problems, names);
  checkGlobalRateLimitAnnotations(into.globalRateLimit, withPrefix, problems, names);
  const canary = combineCanary(into.canaryAnnotations, withPrefix, problems);
  if (canary !== undefined) into.canary = canary;
  const basicAuth = combineAuth(into.auth, withPrefix, problems);
  if (basicAuth !== undefined) into.basicAuthRequest = basicAuth;
  const clientCertificate = combineClientCertificate(into.clientCertificate, withPrefix, problems);
  if (clientCertificate !== undefined) into.clientCertificateRequest = clientCertificate;
  const backendTls = combineBackendTls(
    into.backendTlsAnnotations,
    into.backendProtocol,
    withPrefix,
    problems,
  );
  if (backendTls !== undefined) into.backendTlsRequest = backendTls;
  const externalAuth = combineExternalAuth(
    into.externalAuthAnnotations,
    annotationNaming(withPrefix),
    problems,
  );
  if (externalAuth !== undefined) into.externalAuth = externalAuth;
  const affinity = combineAffinity(into.affinity, withPrefix, problems);
  if (affinity !== undefined) into.sessionAffinity = affinity;
  const busyBuffers = checkBusyBuffers(into.upstreamSettings);
  if (busyBuffers !== undefined) {
    // Left out, not refused: the response is only buffered as nginx's default says.
    dropBusyBuffers(into);
    problems.push({
      field: annotationField(`${withPrefix}proxy-busy-buffers-size`),
      message: `proxy-busy-buffers-size (the annotation's or the controller ConfigMap's) ${busyBuffers}; it is not applied`,
      severity: 'warning',
    });
  }
  const locationRewrite = combineProxy(into.proxy, withPrefix, problems);
  if (locationRewrite !== undefined) into.locationRewrite = locationRewrite;
  if (problems.some((problem) => problem.severity === 'error')) return { problems };
  return { annotations: into, problems };
}
