/**
 * ingress-nginx's controller ConfigMap: every key it documents (v1.15, and the tracing and global
 * rate-limit keys of earlier versions), what we do with each, and
 * the parser of the ones we apply. Like the annotation catalogue, the list is data, so
 * docs/annotations.md is generated from it and cannot drift.
 *
 * A key we apply is either *live* (it sets the default of the same-named annotation, so a change
 * re-translates Ingresses and nginx keeps running) or *reload* (nginx can only take it from
 * nginx.conf). A key we do not apply is reported on the ConfigMap: as an error when it would
 * protect something or is raw nginx configuration, else as a warning; never silently ignored.
 * Values that mean what we do anyway (`use-gzip: "false"`) are not reported.
 */
import type { StrictTransportSecurity, UpstreamSettings } from '@ingresskit/route-model';
import {
  ANNOTATION_DEFAULT_KEYS,
  checkAnnotationValue,
  parseAnnotationDefault,
} from './annotation-defaults.js';
import { DEFAULT_HSTS } from './route-policy.js';
import { DEFAULT_GLOBAL_RATE_LIMIT_STATUS, MEMCACHED_HOST_KEY } from './global-rate-limit-annotations.js';
import {
  isIpAddress,
  MAX_MIME_TYPES,
  parseCidrList,
  BOOLEAN_PROBLEM,
  readBoolean,
  readMimeTypeList,
  saysValue,
} from './grammar.js';
import {
  checkConfigMapHeaders,
  createRequestHeaderGrammar,
  parseConfigMapReference,
  type HeaderGrammar,
} from './configmap-headers.js';
import { RESPONSE_HEADERS } from './custom-headers.js';
import {
  createGlobalExternalAuth,
  GLOBAL_AUTH_KEYS,
  GLOBAL_AUTH_URL_CLOSED,
  isGlobalAuthKey,
  readGlobalAuthKey,
} from './global-auth-keys.js';
import { LIMIT_STATUS_CODE, type LimitStatusCodes } from './limit-annotations.js';
import { checkDnsSubdomain, type ConfigMapLike } from '@ingresskit/kube-objects';
import { createSecureContext } from 'node:tls';
import {
  ACCESS_LOG_CONFIG_KEYS,
  ACCESS_LOG_KEYS,
  createConfigMapAccessLog,
  trimConfigMapValue,
  type AccessLogKeys,
  type ConfigMapAccessLog,
} from './access-log-keys.js';
import {
  HTTP_SETTINGS_CONFIG_KEYS,
  HTTP_SETTINGS_KEYS,
  OBSOLETE_HTTP2_CONFIG_KEYS,
  type ConfigMapHttpSettings,
} from './configmap-nginx-http-keys.js';
import {
  CONNECTION_KEY_ROWS,
  createConnectionKeyReader,
  type ConnectionKeySettings,
  type SecretData,
  type SecretDataLookup,
} from './configmap-connection-keys.js';
import { DEFAULT_INGRESS_CHECKS, type IngressChecks } from './ingress-checks.js';
import { INGRESS_CHECK_KEYS, SECURITY_CONFIG_KEYS, settleRiskLevel } from './security-keys.js';
import {
  completeProxyDefaults,
  isProxyDefaultKey,
  PROXY_DEFAULT_ROWS,
  readProxyDefault,
} from './configmap-proxy-defaults.js';
import {
  UPSTREAM_HEADER_KEYS,
  UPSTREAM_HEADER_ROWS,
  type UpstreamHeaderSettings,
} from './configmap-upstream-headers.js';
import { STREAM_PROXY_KEYS, STREAM_PROXY_ROWS, type StreamProxySettings } from './configmap-stream-keys.js';
import type { ConfigMapProblem, IngressNginxConfigKey } from './configmap-key.js';
import { withNonIdempotentRetries } from './upstream-annotations.js';
import type { AnnotationProblem } from './annotation-types.js';
import { type AnnotationDefaults } from './annotation-types.js';
import { type GlobalRateLimitConfig, type GlobalExternalAuth } from './types.js';
import { type ConfigMapHeader, type ExternalAuthAnnotations } from './annotation-parts.js';

/** The keys of Strict-Transport-Security, sent on HTTPS responses of every Ingress route. */
const HSTS_KEYS = ['hsts', 'hsts-include-subdomains', 'hsts-max-age', 'hsts-preload'];

const RAW_CONFIG = {
  severity: 'error',
  reason: 'it is raw nginx configuration, which is never accepted',
} as const;
const PROTECTION = (what: string) =>
  ({ severity: 'error', reason: `it ${what}, which is not enforced` }) as const;
const NOT_YET = { severity: 'warning', reason: 'not supported yet' } as const;
const NOT_NEEDED = (why: string) => ({ severity: 'warning', reason: why }) as const;
const TRACING = NOT_NEEDED('tracing is not supported');

const HEADERS_DIFFERENCE =
  'a ConfigMap NAMESPACE/NAME of a watched namespace, read again when it changes (no reload), for Ingress routes (not Gateway API ones); values are literal text ("$" is refused: nginx variables are not expanded). An entry that is no valid header is reported on the controller ConfigMap and left out, the rest applied; a missing ConfigMap adds nothing, with an error';

const GLOBAL_AUTH_DIFFERENCE =
  'as auth-url (see it), for every Ingress route without its own auth-url unless its Ingress says enable-global-auth "false" (any may, as in ingress-nginx); not for --default-backend-service or Gateway API routes. An invalid value keeps the last valid one; with none, or a forbidden address, those routes answer 503 with an error. Paths in no-auth-locations (by default /.well-known/acme-challenge, for ACME HTTP-01 solvers) are exempt';

const REAL_IP_DIFFERENCE =
  "without use-forwarded-headers and enable-real-ip the client is the peer, and so is X-Forwarded-For, as in ingress-nginx; with either, a peer in proxy-real-ip-cidr may name the client in forwarded-for-header (real_ip_recursive on) for allowlists, limits and X-Real-IP; use-forwarded-headers also passes X-Forwarded-Proto (sent as X-Forwarded-Scheme too), -Host (the first of a list), -Port on (not Host; a request said to be https is not redirected to HTTPS) and X-Forwarded-For is the client, or with compute-full-forwarded-for the list received and the peer; without it they are the request's, X-Forwarded-Host with the port of the client's Host";
/** The TLS versions ssl-protocols may name. */
export const SSL_PROTOCOLS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;

/** A TLS version ssl-protocols may name. */
export type SslProtocol = (typeof SSL_PROTOCOLS)[number];

const MIME_PUNCTUATION = '! & . + - _';
const SSL_CIPHERS = /^[A-Za-z0-9+:_!@.=-]+$/;
const MAX_SSL_CIPHERS_LENGTH = 2048;

function keys(names: readonly string[], rest: Omit<IngressNginxConfigKey, 'name'>): IngressNginxConfigKey[] {
  return names.map((name) => ({ name, ...rest }));
}

/** Every key of ingress-nginx's ConfigMap, sorted by name. */
export const INGRESS_NGINX_CONFIGMAP_KEYS: readonly IngressNginxConfigKey[] = (
  [
    ...keys(
      ANNOTATION_DEFAULT_KEYS.filter((name) => name !== 'custom-http-errors'),
      { applied: 'live' },
    ),
    {
      name: 'custom-http-errors',
      applied: 'live',
      // As ingress-nginx's server-wide error pages: even an Ingress with a default-backend annotation
      // has them answered by the controller's default backend.
      difference:
        'the default of Ingresses without the annotation, answered by --default-backend-service only, as ingress-nginx; 400-599 only; a new set reloads nginx once',
    },
    ...keys(['worker-processes', 'max-worker-connections', 'worker-shutdown-timeout', 'error-log-level'], {
      applied: 'reload',
    }),
    ...keys(['upstream-keepalive-connections', 'upstream-keepalive-timeout', 'upstream-keepalive-requests'], {
      applied: 'reload',
    }),
    ...keys(['use-forwarded-headers', 'enable-real-ip', 'compute-full-forwarded-for'], {
      applied: 'reload',
      difference: REAL_IP_DIFFERENCE,
    }),
    {
      name: 'forwarded-for-header',
      applied: 'reload',
      difference:
        'a header name of A-Z a-z 0-9 - (at most 64), read with use-forwarded-headers or enable-real-ip (see them)',
    },
    {
      name: 'proxy-real-ip-cidr',
      applied: 'reload',
      difference:
        "IPv4 and IPv6 addresses and CIDRs separated by commas, believed with use-forwarded-headers, enable-real-ip or use-proxy-protocol (see them); the default 0.0.0.0/0, as ingress-nginx's, believes any IPv4 peer: set it to the proxies in front before turning any of them on",
    },
    {
      name: 'proxy-body-size',
      applied: 'reload',
      difference:
        'the default of routes without the annotation; nginx takes it from nginx.conf (client_max_body_size)',
    },
    {
      name: 'disable-access-log',
      applied: 'reload',
      difference: 'turns the access log of every request off or on',
    },
    ...ACCESS_LOG_CONFIG_KEYS,
    ...HTTP_SETTINGS_CONFIG_KEYS,
    ...OBSOLETE_HTTP2_CONFIG_KEYS,
    ...PROXY_DEFAULT_ROWS,
    ...UPSTREAM_HEADER_ROWS,
    ...STREAM_PROXY_ROWS,
    {
      name: 'add-headers',
      applied: 'live',
      difference: `${HEADERS_DIFFERENCE}; an annotation's custom-headers of the same name win on its routes`,
    },
    {
      name: 'proxy-set-headers',
      applied: 'live',
      difference: `${HEADERS_DIFFERENCE}; names are A-Z a-z 0-9 - and not the headers the gateway sets itself (Host, X-Forwarded-*, X-Real-IP, X-Request-ID, ...)`,
    },
    ...keys(['limit-req-status-code', 'limit-conn-status-code'], {
      applied: 'live',
      difference:
        'a status from 400 to 599, of the refusals of limit-rps and limit-rpm (req) or limit-connections (conn)',
    }),
    {
      name: 'global-allowed-response-headers',
      applied: 'live',
      difference:
        'header names (A-Z a-z 0-9 - _) separated by commas, compared without case; a change re-translates the Ingresses with custom-headers',
    },
    {
      name: 'allow-snippet-annotations',
      applied: 'live',
      difference:
        '"false" (the default; or 0, f, F, FALSE, False) is the only value: snippets are never served as nginx configuration. The controller flag --allow-snippet-directives lets configuration-snippet hold the header directives it names, translated into data',
    },
    ...keys(['main-snippet', 'http-snippet', 'server-snippet', 'stream-snippet', 'location-snippet'], {
      unsupported: RAW_CONFIG,
    }),
    ...keys(['modsecurity-snippet', 'global-auth-snippet', 'lua-shared-dicts', 'plugins'], {
      unsupported: RAW_CONFIG,
    }),
    ...keys(
      [
        'whitelist-source-range',
        'denylist-source-range',
        'block-cidrs',
        'block-user-agents',
        'block-referers',
      ],
      {
        unsupported: PROTECTION('filters clients'),
      },
    ),
    ...GLOBAL_AUTH_KEYS.map((name): IngressNginxConfigKey => ({
      name,
      applied: 'live',
      difference:
        name === 'global-auth-url'
          ? GLOBAL_AUTH_DIFFERENCE
          : `read as the ${name.slice('global-'.length)} annotation (see it), for the Ingress routes global-auth-url protects; "" is the default`,
    })),
    ...keys(['enable-modsecurity', 'enable-owasp-modsecurity-crs'], {
      unsupported: PROTECTION('filters requests through a web application firewall'),
      sameAs: ['false'],
    }),
    ...keys(HSTS_KEYS, { applied: 'live' }),
    ...keys(['limit-rate', 'limit-rate-after'], {
      unsupported: PROTECTION('limits what a client may receive'),
      sameAs: ['0'],
    }),
    ...CONNECTION_KEY_ROWS,
    ...keys(['ssl-reject-handshake'], {
      unsupported: PROTECTION('chooses the TLS a client may use'),
    }),
    ...keys(
      [
        'global-rate-limit-memcached-port',
        'global-rate-limit-memcached-connect-timeout',
        'global-rate-limit-memcached-max-idle-timeout',
        'global-rate-limit-memcached-pool-size',
        'global-rate-limit-status-code',
      ],
      { applied: 'live' },
    ),
    {
      name: 'global-rate-limit-memcached-host',
      applied: 'live',
      difference:
        "an IP, or a name the data plane's resolvers know; while unset, Ingresses with global-rate-limit get 503 and an error",
    },
    ...keys(
      ['use-gzip', 'gzip-level', 'gzip-min-length', 'server-tokens', 'keep-alive', 'keep-alive-requests'],
      {
        applied: 'reload',
      },
    ),
    {
      name: 'gzip-types',
      applied: 'reload',
      difference: `MIME types TYPE/SUBTYPE (A-Z a-z 0-9 and ${MIME_PUNCTUATION}) or "*", separated by spaces; at most ${MAX_MIME_TYPES}`,
    },
    {
      name: 'ssl-protocols',
      applied: 'reload',
      difference: `${SSL_PROTOCOLS.join(', ')} only, separated by spaces`,
    },
    {
      name: 'ssl-ciphers',
      applied: 'reload',
      difference: `an OpenSSL cipher list (A-Z a-z 0-9 and + : _ ! - @ . =, at most ${MAX_SSL_CIPHERS_LENGTH} characters) that matches a cipher; while unset, nginx's default list rather than ingress-nginx's. A list nginx refuses keeps the running nginx.conf`,
    },
    ...keys(['use-geoip', 'use-geoip2'], {
      unsupported: NOT_NEEDED('GeoIP is not supported'),
      sameAs: ['false'],
    }),
    ...keys(['enable-opentracing', 'enable-opentelemetry', 'enable-syslog'], {
      unsupported: TRACING,
      sameAs: ['false'],
    }),
    ...keys(
      [
        'opentelemetry-config',
        'opentelemetry-operation-name',
        'opentelemetry-trust-incoming-span',
        'otel-max-export-batch-size',
        'otel-max-queuesize',
        'otel-sampler',
        'otel-sampler-parent-based',
        'otel-sampler-ratio',
        'otel-schedule-delay-millis',
        'otel-service-name',
        'otlp-collector-host',
        'otlp-collector-port',
      ],
      { unsupported: TRACING },
    ),
    ...SECURITY_CONFIG_KEYS,
    ...keys(['enable-aio-write'], {
      unsupported: NOT_YET,
      sameAs: ['false'],
    }),
    ...keys(
      [
        'opentracing-operation-name',
        'opentracing-location-operation-name',
        'zipkin-collector-host',
        'zipkin-collector-port',
        'zipkin-service-name',
        'zipkin-sample-rate',
        'jaeger-collector-host',
        'jaeger-collector-port',
        'jaeger-endpoint',
        'jaeger-service-name',
        'jaeger-propagation-format',
        'jaeger-sampler-type',
        'jaeger-sampler-param',
        'jaeger-sampler-host',
        'jaeger-sampler-port',
        'jaeger-trace-context-header-name',
        'jaeger-debug-header',
        'jaeger-baggage-header',
        'jaeger-trace-baggage-header-prefix',
        'datadog-collector-host',
        'datadog-collector-port',
        'datadog-service-name',
        'datadog-environment',
        'datadog-operation-name-override',
        'datadog-priority-sampling',
        'datadog-sample-rate',
        'syslog-host',
        'syslog-port',
      ],
      { unsupported: TRACING },
    ),
    ...keys(
      [
        'disable-ipv6-dns',
        'enable-ocsp',
        'grpc-buffer-size-kb',
        'geoip2-autoreload-in-minutes',
        'limit-conn-zone-variable',
      ],
      { unsupported: NOT_YET },
    ),
  ] satisfies IngressNginxConfigKey[] as IngressNginxConfigKey[]
).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

const BY_NAME = new Map(INGRESS_NGINX_CONFIGMAP_KEYS.map((key) => [key.name, key]));

/** The nginx.conf settings a ConfigMap sets (names as nginx-template's RenderOptions). */
export interface ConfigMapNginxSettings
  extends ConnectionKeySettings, UpstreamHeaderSettings, StreamProxySettings {
  /**
   * The proxy-* keys of a route's upstream settings (proxy-buffer-size, proxy-next-upstream, ...):
   * the defaults of routes without the annotation, and nginx.conf's own.
   */
  upstreamDefaults?: UpstreamSettings;
  workerProcesses?: number | 'auto';
  workerConnections?: number;
  workerShutdownTimeoutSeconds?: number;
  errorLogLevel?: 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit';
  /** `0` (no limit) or a size such as `8m`. */
  proxyBodySize?: string;
  accessLog?: boolean;
  /** The access log keys but disable-access-log (see ConfigMapAccessLog); absent when none is set. */
  accessLogSettings?: ConfigMapAccessLog;
  upstreamKeepalive?: { connections?: number; timeoutSeconds?: number; requests?: number };
  /** use-forwarded-headers, enable-real-ip, compute-full-forwarded-for, forwarded-for-header, proxy-real-ip-cidr. */
  useForwardedHeaders?: boolean;
  enableRealIp?: boolean;
  computeFullForwardedFor?: boolean;
  forwardedForHeader?: string;
  /** Canonical, unique, sorted. */
  proxyRealIpCidr?: string[];
  /** use-gzip. */
  gzip?: boolean;
  gzipLevel?: number;
  gzipMinLength?: number;
  /** MIME types, or `*`. */
  gzipTypes?: string[];
  serverTokens?: boolean;
  /** keep-alive: seconds a client connection may idle; 0 turns keep-alive off. */
  keepaliveTimeoutSeconds?: number;
  keepaliveRequests?: number;
  sslProtocols?: SslProtocol[];
  /** An OpenSSL cipher list. */
  sslCiphers?: string;
  /** Header buffers and timeouts, HTTP/2, TLS sessions, hash sizes, workers, brotli, addresses, error log. */
  http?: ConfigMapHttpSettings;
}

function readSslProtocols(value: string): SslProtocol[] | string {
  const protocols = value.split(/\s+/).filter((protocol) => protocol !== '');
  const bad = protocols.find((protocol) => !(SSL_PROTOCOLS as readonly string[]).includes(protocol));
  if (protocols.length === 0 || bad !== undefined)
    return `must name TLS versions among ${SSL_PROTOCOLS.join(', ')}, separated by spaces`;
  return SSL_PROTOCOLS.filter((protocol) => protocols.includes(protocol));
}

function readSslCiphers(value: string): string | undefined {
  if (value.length > MAX_SSL_CIPHERS_LENGTH || !SSL_CIPHERS.test(value))
    return `must be an OpenSSL cipher list of A-Z a-z 0-9 + : _ ! - @ . = of at most ${MAX_SSL_CIPHERS_LENGTH} characters`;
  // The same OpenSSL call nginx makes (SSL_CTX_set_cipher_list): a list that matches no cipher is
  // refused here, with an Event, rather than by nginx -t at the reload.
  try {
    createSecureContext({ ciphers: value });
  } catch {
    return 'matches no cipher OpenSSL knows';
  }
  return undefined;
}

/** What a ConfigMap says of the translation of every Ingress (live: no reload). */
export interface TranslationDefaults {
  /** The defaults of the same-named annotations. */
  annotationDefaults: AnnotationDefaults;
  /** Strict-Transport-Security of every Ingress route; DEFAULT_HSTS unless the keys say otherwise. */
  hsts: StrictTransportSecurity | undefined;
  /** The memcached of global-rate-limit and the status of its refusals. */
  globalRateLimit: GlobalRateLimitConfig;
  /** global-allowed-response-headers: the header names custom-headers may set. */
  allowedResponseHeaders: readonly string[];
  /** limit-req-status-code and limit-conn-status-code: the statuses of limit-* refusals. */
  limitStatusCodes: LimitStatusCodes;
  /** add-headers: the headers of its ConfigMap, set on every response (none without it). */
  responseHeaders: readonly ConfigMapHeader[];
  /** proxy-set-headers: the headers of its ConfigMap, set on every request to a backend. */
  requestHeaders: readonly ConfigMapHeader[];
  /** global-auth-*: the external authentication of Ingresses without their own (none when undefined). */
  globalAuth?: GlobalExternalAuth;
  /** enable-access-log-for-default-backend: log the requests the default backend answers. */
  defaultBackendAccessLog: boolean;
  /** strict-validate-path-type, annotation-value-word-blocklist, annotations-risk-level. */
  ingressChecks: IngressChecks;
}

/** The translation defaults without a ConfigMap, as ingress-nginx's. */
export const DEFAULT_TRANSLATION: TranslationDefaults = Object.freeze({
  annotationDefaults: Object.freeze({}),
  hsts: DEFAULT_HSTS,
  globalRateLimit: Object.freeze({ statusCode: DEFAULT_GLOBAL_RATE_LIMIT_STATUS }),
  allowedResponseHeaders: Object.freeze([]),
  limitStatusCodes: Object.freeze({ requests: LIMIT_STATUS_CODE, connections: LIMIT_STATUS_CODE }),
  responseHeaders: Object.freeze([]),
  requestHeaders: Object.freeze([]),
  defaultBackendAccessLog: false,
  ingressChecks: DEFAULT_INGRESS_CHECKS,
});

/** The headers of proxy-set-headers: not those the data plane sets itself, or that frame a request. */
const REQUEST_HEADERS = createRequestHeaderGrammar(
  ['x-forwarded-host', 'x-forwarded-port', 'x-forwarded-proto', 'x-forwarded-scheme'],
  'is a header the gateway sets itself',
);

/** The keys naming a ConfigMap of headers, with the grammar of its entries. */
const HEADER_KEYS: Readonly<Record<string, HeaderGrammar>> = {
  'add-headers': RESPONSE_HEADERS,
  'proxy-set-headers': REQUEST_HEADERS,
};

/** How parseControllerConfigMap finds a ConfigMap add-headers or proxy-set-headers names. */
export type ConfigMapLookup = (namespace: string, name: string) => ConfigMapLike | undefined;

const ALLOWED_HEADER = /^[A-Za-z0-9_-]{1,128}$/;

/** global-allowed-response-headers (names separated by commas) into `into`; why it is invalid, or undefined. */
function readAllowedHeaders(value: string, into: string[]): string | undefined {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const bad = names.find((name) => !ALLOWED_HEADER.test(name));
  if (bad !== undefined) return `holds "${bad}", which is not a header name (A-Z a-z 0-9 - _)`;
  into.splice(0, into.length, ...names);
  return undefined;
}

/** The global-rate-limit-* keys as read, before the host decides whether there is a store. */
interface GlobalRateLimitKeys {
  statusCode: number;
  host?: string;
  port: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  poolSize: number;
}

/** ingress-nginx's defaults of the memcached keys (its config.go). */
function defaultGlobalRateLimitKeys(): GlobalRateLimitKeys {
  return {
    statusCode: DEFAULT_GLOBAL_RATE_LIMIT_STATUS,
    port: 11211,
    timeoutMs: 50,
    idleTimeoutMs: 10_000,
    poolSize: 50,
  };
}

/** How each global-rate-limit-* key is read: the reason it is invalid, or undefined. */
const GLOBAL_RATE_LIMIT_KEYS: Readonly<
  Record<string, (value: string, into: GlobalRateLimitKeys) => string | undefined>
> = {
  [MEMCACHED_HOST_KEY]: (value, into) => {
    if (value === '') return undefined;
    if (!isIpAddress(value) && checkDnsSubdomain(value) !== undefined)
      return 'must be an IP address or a DNS host name';
    into.host = value;
    return undefined;
  },
  'global-rate-limit-memcached-port': (value, into) => readNumber(value, 1, 65535, (n) => (into.port = n)),
  'global-rate-limit-memcached-connect-timeout': (value, into) =>
    readNumber(value, 1, 60_000, (n) => (into.timeoutMs = n)),
  'global-rate-limit-memcached-max-idle-timeout': (value, into) =>
    readNumber(value, 1, 3_600_000, (n) => (into.idleTimeoutMs = n)),
  'global-rate-limit-memcached-pool-size': (value, into) =>
    readNumber(value, 1, 10_000, (n) => (into.poolSize = n)),
  'global-rate-limit-status-code': (value, into) => readNumber(value, 400, 599, (n) => (into.statusCode = n)),
};

function readNumber(
  value: string,
  min: number,
  max: number,
  set: (value: number) => void,
): string | undefined {
  const number = wholeNumber(value, min, max);
  if (typeof number === 'string') return number;
  set(number);
  return undefined;
}

/** The global rate limit settings the keys make: a store only with a host. */
function createGlobalRateLimitConfig(keys: GlobalRateLimitKeys): GlobalRateLimitConfig {
  const { statusCode, host, port, timeoutMs, idleTimeoutMs, poolSize } = keys;
  if (host === undefined) return { statusCode };
  return { statusCode, store: { host, port, timeoutMs, idleTimeoutMs, poolSize } };
}

/** What a controller ConfigMap sets. */
export interface ControllerConfigMapSettings {
  translation: TranslationDefaults;
  /** Reload: settings nginx takes from nginx.conf only. */
  nginx: ConfigMapNginxSettings;
}

/** The result of parseControllerConfigMap. */
export interface ControllerConfigMapParse {
  settings: ControllerConfigMapSettings;
  /** The valid value of every applied key, to give the next parse as `previous`. */
  values: Readonly<Record<string, string>>;
  problems: ConfigMapProblem[];
  /** `namespace/name` of the ConfigMaps read (add-headers, proxy-set-headers), found or not, sorted. */
  configMaps: string[];
  /** `namespace/name` of the Secrets read (ssl-dh-param), found or not. */
  secrets: string[];
  /** The data of the Secrets whose content was applied, to give the next parse as `previousSecrets`. */
  secretData: SecretData;
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warn', 'error', 'crit'] as const;

function wholeNumber(value: string, min: number, max: number): number | string {
  const number = /^[0-9]{1,10}$/.test(value) ? Number(value) : Number.NaN;
  return number >= min && number <= max ? number : `must be a whole number from ${min} to ${max}`;
}

/** Seconds as ingress-nginx writes them: `240s`, `240` or `4m`. */
function seconds(value: string, max: number): number | string {
  const match = /^([0-9]{1,7})(s|m|h)?$/.exec(value);
  const total = match === null ? Number.NaN : Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] ?? 's']!;
  return total >= 0 && total <= max ? total : `must be seconds such as 240s or 4m, at most ${max} s`;
}

/** A reload key of a boolean (readBoolean). */
function flag(set: (into: ConfigMapNginxSettings, on: boolean) => void) {
  return (value: string, into: ConfigMapNginxSettings): string | undefined => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    set(into, on);
    return undefined;
  };
}

/** How each reload key is read into ConfigMapNginxSettings: the reason it is invalid, or undefined. */
const NGINX_KEYS: Readonly<
  Record<string, (value: string, into: ConfigMapNginxSettings) => string | undefined>
> = {
  'worker-processes': (value, into) => {
    if (value === 'auto') into.workerProcesses = 'auto';
    else {
      const count = wholeNumber(value, 1, 1024);
      if (typeof count === 'string') return `${count}, or "auto"`;
      into.workerProcesses = count;
    }
    return undefined;
  },
  'max-worker-connections': (value, into) => {
    // ingress-nginx: 0 means its default (16384 here too).
    const count = wholeNumber(value, 0, 65535);
    if (typeof count === 'string') return count;
    if (count > 0) into.workerConnections = count;
    return undefined;
  },
  'worker-shutdown-timeout': (value, into) => {
    const total = seconds(value, 86400);
    if (typeof total === 'string') return total;
    into.workerShutdownTimeoutSeconds = total;
    return undefined;
  },
  'error-log-level': (value, into) => {
    if (!(LOG_LEVELS as readonly string[]).includes(value)) return `must be one of ${LOG_LEVELS.join(', ')}`;
    into.errorLogLevel = value as ConfigMapNginxSettings['errorLogLevel'];
    return undefined;
  },
  'proxy-body-size': (value, into) => {
    const problem = checkAnnotationValue('proxy-body-size', value);
    if (problem === undefined) into.proxyBodySize = value;
    return problem;
  },
  'disable-access-log': flag((into, on) => (into.accessLog = !on)),
  'use-gzip': flag((into, on) => (into.gzip = on)),
  'gzip-level': (value, into) => readNumber(value, 1, 9, (n) => (into.gzipLevel = n)),
  'gzip-min-length': (value, into) => readNumber(value, 0, 1_000_000_000, (n) => (into.gzipMinLength = n)),
  'gzip-types': (value, into) => {
    const types = readMimeTypeList(value);
    if (typeof types === 'string') return types;
    into.gzipTypes = types;
    return undefined;
  },
  'server-tokens': flag((into, on) => (into.serverTokens = on)),
  'keep-alive': (value, into) => {
    const total = seconds(value, 86400);
    if (typeof total === 'string') return total;
    into.keepaliveTimeoutSeconds = total;
    return undefined;
  },
  'keep-alive-requests': (value, into) =>
    readNumber(value, 1, 100_000_000, (n) => (into.keepaliveRequests = n)),
  'ssl-protocols': (value, into) => {
    const protocols = readSslProtocols(value);
    if (typeof protocols === 'string') return protocols;
    into.sslProtocols = protocols;
    return undefined;
  },
  'ssl-ciphers': (value, into) => {
    const problem = readSslCiphers(value);
    if (problem === undefined) into.sslCiphers = value;
    return problem;
  },
  'upstream-keepalive-connections': (value, into) => {
    const count = wholeNumber(value, 0, 100_000);
    if (typeof count === 'string') return count;
    into.upstreamKeepalive = { ...into.upstreamKeepalive, connections: count };
    return undefined;
  },
  'upstream-keepalive-timeout': (value, into) => {
    const total = seconds(value, 86400);
    if (typeof total === 'string') return total;
    into.upstreamKeepalive = { ...into.upstreamKeepalive, timeoutSeconds: total };
    return undefined;
  },
  'use-forwarded-headers': flag((into, on) => (into.useForwardedHeaders = on)),
  'enable-real-ip': flag((into, on) => (into.enableRealIp = on)),
  'compute-full-forwarded-for': flag((into, on) => (into.computeFullForwardedFor = on)),
  'forwarded-for-header': (value, into) => {
    if (!/^[A-Za-z0-9-]{1,64}$/.test(value)) return 'must be a header name of A-Z a-z 0-9 - (at most 64)';
    into.forwardedForHeader = value;
    return undefined;
  },
  'proxy-real-ip-cidr': (value, into) => {
    const networks = parseCidrList(value);
    if (typeof networks === 'string') return networks;
    into.proxyRealIpCidr = networks;
    return undefined;
  },
  'upstream-keepalive-requests': (value, into) => {
    const count = wholeNumber(value, 1, 10_000_000);
    if (typeof count === 'string') return count;
    into.upstreamKeepalive = { ...into.upstreamKeepalive, requests: count };
    return undefined;
  },
};

/**
 * Reads a controller ConfigMap's `data`. A valid key is applied; an invalid value of a key we
 * apply is an error and the key keeps its value from `previous` (the last good one), or the
 * default; a Secret a key names (ssl-dh-param) keeps its content from `previousSecrets` so. Any
 * other key is reported as its catalogue entry says. Never throws.
 */
export function parseControllerConfigMap(
  data: unknown,
  previous: Readonly<Record<string, string>> = {},
  configMap: ConfigMapLookup = () => undefined,
  secret: SecretDataLookup = () => undefined,
  previousSecrets: SecretData = {},
): ControllerConfigMapParse {
  const connectionKeys = createConnectionKeyReader(secret, previousSecrets);
  const annotationDefaults: AnnotationDefaults = {};
  const hsts = { enabled: true, value: { ...DEFAULT_HSTS } };
  const nginx: ConfigMapNginxSettings = {};
  const globalRateLimit = defaultGlobalRateLimitKeys();
  const allowedResponseHeaders: string[] = [];
  const limitStatusCodes = { requests: LIMIT_STATUS_CODE, connections: LIMIT_STATUS_CODE };
  const headerReferences: Record<string, { namespace: string; name: string }> = {};
  const globalAuth: ExternalAuthAnnotations = {};
  /** Keys whose value is invalid and that have no valid value to keep. */
  const refused = new Set<string>();
  const accessLogKeys: AccessLogKeys = {};
  const httpSettings: ConfigMapHttpSettings = {};
  let defaultBackendAccessLog = false;
  const ingressChecks: IngressChecks = { ...DEFAULT_INGRESS_CHECKS };
  const values: Record<string, string> = {};
  const problems: ConfigMapProblem[] = [];
  const record = typeof data === 'object' && data !== null && !Array.isArray(data) ? data : {};
  // `again`: re-applying the last valid value, whose Secrets read as `previousSecrets` has them.
  const apply = (name: string, value: string, again = false): string | undefined => {
    if ((ANNOTATION_DEFAULT_KEYS as readonly string[]).includes(name))
      return parseAnnotationDefault(
        name as (typeof ANNOTATION_DEFAULT_KEYS)[number],
        value,
        annotationDefaults,
      );
    if (name === 'allow-snippet-annotations')
      return readBoolean(value) === false
        ? undefined
        : 'must be "false": snippets are never served as nginx configuration (--allow-snippet-directives lets configuration-snippet hold header directives)';
    if (HSTS_KEYS.includes(name)) return readHsts(name, value, hsts);
    if (name === 'limit-req-status-code')
      return readNumber(value, 400, 599, (n) => (limitStatusCodes.requests = n));
    if (name === 'limit-conn-status-code')
      return readNumber(value, 400, 599, (n) => (limitStatusCodes.connections = n));
    if (name === 'global-allowed-response-headers') return readAllowedHeaders(value, allowedResponseHeaders);
    if (Object.hasOwn(HEADER_KEYS, name)) {
      const reference = parseConfigMapReference(value);
      if (typeof reference === 'string') return reference;
      if (reference.namespace === undefined) return 'must name a ConfigMap as NAMESPACE/NAME';
      headerReferences[name] = { namespace: reference.namespace, name: reference.name };
      return undefined;
    }
    if (Object.hasOwn(GLOBAL_RATE_LIMIT_KEYS, name))
      return GLOBAL_RATE_LIMIT_KEYS[name]!(value, globalRateLimit);
    if (isGlobalAuthKey(name)) return readGlobalAuthKey(name, value, globalAuth);
    if (isProxyDefaultKey(name)) return readProxyDefault(name, value, annotationDefaults);
    if (Object.hasOwn(ACCESS_LOG_KEYS, name)) return ACCESS_LOG_KEYS[name]!(value, accessLogKeys);
    if (Object.hasOwn(HTTP_SETTINGS_KEYS, name)) return HTTP_SETTINGS_KEYS[name]!(value, httpSettings);
    if (Object.hasOwn(INGRESS_CHECK_KEYS, name)) return INGRESS_CHECK_KEYS[name]!(value, ingressChecks);
    if (name === 'enable-access-log-for-default-backend') {
      const on = readBoolean(value);
      if (on === undefined) return BOOLEAN_PROBLEM;
      defaultBackendAccessLog = on;
      return undefined;
    }
    if (connectionKeys.has(name)) return connectionKeys.apply(name, value, nginx, again);
    if (Object.hasOwn(UPSTREAM_HEADER_KEYS, name)) return UPSTREAM_HEADER_KEYS[name]!(value, nginx);
    if (Object.hasOwn(STREAM_PROXY_KEYS, name)) return STREAM_PROXY_KEYS[name]!(value, nginx);
    return NGINX_KEYS[name]!(value, nginx);
  };
  for (const name of Object.keys(record).sort()) {
    const written: unknown = (record as Record<string, unknown>)[name];
    const value = typeof written === 'string' ? trimConfigMapValue(name, written) : written;
    const field = `data[${JSON.stringify(name)}]`;
    const key = BY_NAME.get(name);
    if (typeof value !== 'string') {
      problems.push({ field, message: 'must be a string', severity: 'error' });
      continue;
    }
    if (key === undefined) {
      problems.push({
        field,
        message: `"${name}" is not a key of ingress-nginx's ConfigMap and is ignored`,
        severity: 'warning',
        value,
      });
      continue;
    }
    if (key.applied === undefined) {
      if (key.sameAs?.some((same) => saysValue(value, same)) === true) continue;
      const { severity, reason } = key.unsupported!;
      problems.push({ field, message: `"${name}" is not applied: ${reason}`, severity, value });
      continue;
    }
    // eslint-disable-next-line no-control-regex -- newlines and NUL are the classic injection
    const reason = /[\u0000-\u001f\u007f]/.test(value)
      ? 'must not hold control characters'
      : apply(name, value);
    if (reason === undefined) {
      values[name] = value;
      continue;
    }
    const kept = previous[name];
    const isKept = kept !== undefined && apply(name, kept, true) === undefined;
    if (isKept) values[name] = kept;
    else refused.add(name);
    // A protection whose value is wrong must not fall back to its default, which is off.
    const stays = isKept
      ? `the last valid value ${JSON.stringify(kept)} stays`
      : name === 'global-auth-url'
        ? GLOBAL_AUTH_URL_CLOSED
        : 'the default stays';
    problems.push({ field, message: `"${name}" ${reason}; ${stays}`, severity: 'error', value });
  }
  const headers = { 'add-headers': [], 'proxy-set-headers': [] } as Record<string, ConfigMapHeader[]>;
  for (const [name, reference] of Object.entries(headerReferences)) {
    const key = `${reference.namespace}/${reference.name}`;
    const field = `data[${JSON.stringify(name)}]`;
    const found = configMap(reference.namespace, reference.name);
    const checked =
      found === undefined
        ? { headers: [], problems: [`names ${key}, which is not found; no headers are set`] }
        : checkConfigMapHeaders(found.data, HEADER_KEYS[name]!);
    headers[name] = checked.headers;
    for (const message of checked.problems) {
      const what = found === undefined ? message : `ConfigMap ${key} ${message}; it is left out`;
      problems.push({ field, message: `"${name}" ${what}`, severity: 'error', value: key });
    }
  }
  settleRiskLevel(record, ingressChecks, problems);
  completeProxyDefaults(annotationDefaults, problems);
  // retry-non-idempotent adds non_idempotent to every route's conditions: the routes that keep the
  // ConfigMap's proxy-next-upstream then have the operator's retry set with it.
  const upstreamDefaults =
    annotationDefaults.retryNonIdempotent === true
      ? withNonIdempotentRetries(annotationDefaults.upstreamSettings)
      : annotationDefaults.upstreamSettings;
  if (upstreamDefaults !== undefined) nginx.upstreamDefaults = upstreamDefaults;
  const authProblems: AnnotationProblem[] = [];
  const global = createGlobalExternalAuth(globalAuth, refused.has('global-auth-url'), authProblems);
  // The codes are those of an Ingress's problems; a ConfigMap's problems are said by their key.
  problems.push(...authProblems.map(({ code: _code, ...problem }) => problem));
  const translation: TranslationDefaults = {
    annotationDefaults,
    hsts: hsts.enabled ? hsts.value : undefined,
    globalRateLimit: createGlobalRateLimitConfig(globalRateLimit),
    allowedResponseHeaders,
    limitStatusCodes,
    responseHeaders: headers['add-headers']!,
    requestHeaders: headers['proxy-set-headers']!,
    ...(global === undefined ? {} : { globalAuth: global }),
    defaultBackendAccessLog,
    ingressChecks,
  };
  const accessLogSettings = createConfigMapAccessLog(accessLogKeys);
  if (accessLogSettings !== undefined) nginx.accessLogSettings = accessLogSettings;
  if (Object.keys(httpSettings).length > 0) nginx.http = httpSettings;
  const configMaps = Object.values(headerReferences)
    .map((reference) => `${reference.namespace}/${reference.name}`)
    .sort();
  return {
    settings: { translation, nginx },
    values,
    problems,
    configMaps: [...new Set(configMaps)],
    secrets: connectionKeys.secretsRead(),
    secretData: connectionKeys.secretsApplied(),
  };
}

/** One `hsts*` key into `into`; the reason it is invalid, or undefined. */
function readHsts(
  name: string,
  value: string,
  into: { enabled: boolean; value: StrictTransportSecurity },
): string | undefined {
  if (name === 'hsts-max-age') {
    const seconds = wholeNumber(value, 0, 2 ** 31 - 1);
    if (typeof seconds === 'string') return seconds;
    into.value.maxAgeSeconds = seconds;
    return undefined;
  }
  const on = readBoolean(value);
  if (on === undefined) return BOOLEAN_PROBLEM;
  if (name === 'hsts') into.enabled = on;
  else if (name === 'hsts-include-subdomains') into.value.includeSubdomains = on;
  else into.value.preload = on;
  return undefined;
}
