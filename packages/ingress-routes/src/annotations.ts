/**
 * The supported Ingress annotations, each parsed into a typed field with a strict grammar. An
 * invalid value is an error that leaves the whole Ingress out; unsupported annotations that protect
 * something (see ingress-nginx-annotations.ts: auth, limits, WAF, backend TLS, snippets)
 * do the same, other unsupported ones are ignored with a warning.
 */
import {
  compareText,
  type BackendProtocol,
  type BasicAuthPolicy,
  type CanaryRule,
  type CorsPolicy,
  type ExternalAuthPolicy,
  type ResponseRewrite,
  type SessionAffinity,
  type UpstreamSettings,
} from '@ingresskit/route-model';

import { UPSTREAM_PARSERS } from './upstream-annotations.js';
import { combineProxy, PROXY_PARSERS, type ProxyAnnotations } from './proxy-annotations.js';
import { AFFINITY_PARSERS, combineAffinity, type AffinityAnnotations } from './affinity-annotations.js';
import {
  AUTH_PARSERS,
  combineAuth,
  type AuthAnnotations,
  type BasicAuthRequest,
} from './auth-annotations.js';

import {
  combineExternalAuth,
  EXTERNAL_AUTH_PARSERS,
  type ExternalAuthAnnotations,
} from './external-auth-annotations.js';
import { CANARY_PARSERS, combineCanary, type CanaryAnnotations } from './canary-annotations.js';

import { checkHost, checkHostWithPort, checkLiteralPath, parseCidrList, readBoolean } from './grammar.js';
import { combineCors, CORS_PARSERS } from './cors-annotations.js';
import { refusalOf } from './ingress-nginx-annotations.js';
import { checkLimitAnnotations, LIMIT_PARSERS, type LimitAnnotations } from './limit-annotations.js';
import { combineRedirects, REDIRECT_PARSERS, type RedirectStatus } from './redirect-annotations.js';
import type { RedirectTarget } from './redirect-target.js';
import { checkRewriteTarget, REWRITE_PARSERS } from './rewrite-annotations.js';

/** The default annotation prefix, shared with ingress-nginx so existing manifests keep working. */
export const DEFAULT_ANNOTATION_PREFIX = 'nginx.ingress.kubernetes.io';

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
  /** The canary annotations as written (see `canary` for what they make). */
  canaryAnnotations?: CanaryAnnotations;
  /** canary "true": the Ingress is the canary of the main Ingress of its hosts and paths. */
  canary?: CanaryRule;
  /** auth-* as written. */
  auth?: AuthAnnotations;
  /** auth-type basic: the Secret to read. */
  basicAuthRequest?: BasicAuthRequest;
  /** The users of basic authentication, once the Secret is read (empty: nobody gets in). */
  basicAuth?: BasicAuthPolicy;
  /** auth-url and the other external authentication annotations as written. */
  externalAuthAnnotations?: ExternalAuthAnnotations;
  /** auth-url: the service that must let each forwarded request through. */
  externalAuth?: ExternalAuthPolicy;
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

/** Longest annotation value read; longer ones are refused before any parsing. */
const MAX_VALUE_LENGTH = 4096;
/** Most hostnames one server-alias may add. */
const MAX_SERVER_ALIASES = 64;

/** Reads one annotation's value into `into`; returns why the value is invalid, or undefined. */
export type AnnotationParser = (value: string, into: IngressAnnotations) => string | undefined;

type Parser = AnnotationParser;

function parseBoolean(set: (into: IngressAnnotations, value: boolean) => void): Parser {
  return (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return 'must be "true" or "false"';
    set(into, on);
    return undefined;
  };
}

function parseSeconds(max: number, set: (into: IngressAnnotations, value: number) => void): Parser {
  return (value, into) => {
    if (!/^[0-9]{1,6}$/.test(value) || Number(value) < 1 || Number(value) > max) {
      return `must be whole seconds from 1 to ${max}`;
    }
    set(into, Number(value));
    return undefined;
  };
}

/** Multipliers of proxy-body-size units; nginx reads k, m and g as powers of 1024. */
const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

const BACKEND_PROTOCOLS: ReadonlySet<string> = new Set<BackendProtocol>(['HTTP', 'HTTPS', 'GRPC', 'GRPCS']);

function isBackendProtocol(value: string): value is BackendProtocol {
  return BACKEND_PROTOCOLS.has(value);
}

function parseSourceRanges(set: (into: IngressAnnotations, ranges: string[]) => void): Parser {
  return (value, into) => {
    const ranges = parseCidrList(value);
    if (typeof ranges === 'string') return ranges;
    set(into, ranges);
    return undefined;
  };
}

/** The supported annotations by name (without prefix), with the grammar each value must match. */
const PARSERS: Record<string, Parser> = {
  'ssl-redirect': parseBoolean((into, value) => (into.sslRedirect = value)),
  'force-ssl-redirect': parseBoolean((into, value) => (into.forceSslRedirect = value)),
  'use-regex': parseBoolean((into, value) => (into.useRegex = value)),
  ...REWRITE_PARSERS,
  'proxy-connect-timeout': parseSeconds(3600, (into, value) => (into.connectTimeoutSeconds = value)),
  'proxy-read-timeout': parseSeconds(86400, (into, value) => (into.readTimeoutSeconds = value)),
  'proxy-send-timeout': parseSeconds(86400, (into, value) => (into.sendTimeoutSeconds = value)),
  'proxy-body-size': (value, into) => {
    const match = /^(?:0|([1-9][0-9]{0,8})([kKmMgG]?))$/.exec(value);
    if (match === null) return 'must be 0 (no limit) or a size such as 512k, 8m or 1g';
    const [, digits, unit] = match;
    into.maxBodyBytes = digits === undefined ? 0 : Number(digits) * SIZE_UNITS[(unit ?? '').toLowerCase()]!;
    return undefined;
  },
  'backend-protocol': (value, into) => {
    const upper = value.toUpperCase();
    if (!isBackendProtocol(upper)) return 'must be HTTP, HTTPS, GRPC or GRPCS';
    into.backendProtocol = upper;
    return undefined;
  },
  'allowlist-source-range': parseSourceRanges((into, ranges) => (into.allowSourceRanges = ranges)),
  'whitelist-source-range': parseSourceRanges((into, ranges) => (into.allowSourceRanges = ranges)),
  'denylist-source-range': parseSourceRanges((into, ranges) => (into.denySourceRanges = ranges)),
  'blacklist-source-range': parseSourceRanges((into, ranges) => (into.denySourceRanges = ranges)),
  ...REDIRECT_PARSERS,
  'x-forwarded-prefix': (value, into) => {
    const reason = checkLiteralPath(value);
    if (reason !== undefined) return reason;
    into.forwardedPrefix = value;
    return undefined;
  },
  'preserve-trailing-slash': parseBoolean((into, value) => (into.preserveTrailingSlash = value)),
  'from-to-www-redirect': parseBoolean((into, value) => (into.fromToWwwRedirect = value)),
  'server-alias': (value, into) => {
    const aliases = value
      .split(',')
      .map((alias) => alias.trim())
      .filter((alias) => alias !== '');
    if (aliases.length === 0) return 'must list at least one host name';
    if (aliases.length > MAX_SERVER_ALIASES) return `must list at most ${MAX_SERVER_ALIASES} host names`;
    for (const alias of aliases) {
      const reason = checkHost(alias);
      if (reason !== undefined) return `"${alias}" ${reason}`;
    }
    into.serverAliases = [...new Set(aliases)];
    return undefined;
  },
  ...CORS_PARSERS,
  'upstream-vhost': (value, into) => {
    const reason = checkHostWithPort(value);
    if (reason !== undefined) return reason;
    into.upstreamHost = value;
    return undefined;
  },
  ...LIMIT_PARSERS,
  ...CANARY_PARSERS,
  ...AUTH_PARSERS,
  ...EXTERNAL_AUTH_PARSERS,
  ...AFFINITY_PARSERS,
  ...PROXY_PARSERS,
  ...UPSTREAM_PARSERS,
};

/** The names (without prefix) of the annotations we parse and honour. */
export const SUPPORTED_ANNOTATIONS: ReadonlySet<string> = new Set(Object.keys(PARSERS));

function createDefaults(defaults: AnnotationDefaults = {}): IngressAnnotations {
  return {
    sslRedirect: true,
    forceSslRedirect: false,
    useRegex: false,
    allowSourceRanges: [],
    backendProtocol: 'HTTP',
    ...defaults,
  };
}

/**
 * The annotations whose default the controller's ConfigMap sets (ingress-nginx reads the same
 * names there): an Ingress without the annotation gets the ConfigMap's value.
 */
export const ANNOTATION_DEFAULT_KEYS = [
  'ssl-redirect',
  'force-ssl-redirect',
  'proxy-connect-timeout',
  'proxy-read-timeout',
  'proxy-send-timeout',
] as const;

/** Defaults of annotations, as a ConfigMap sets them (see ANNOTATION_DEFAULT_KEYS). */
export type AnnotationDefaults = Partial<
  Pick<
    IngressAnnotations,
    'sslRedirect' | 'forceSslRedirect' | 'connectTimeoutSeconds' | 'readTimeoutSeconds' | 'sendTimeoutSeconds'
  >
>;

/**
 * Why `value` is not valid for the annotation `name` (without prefix), or undefined when it is:
 * the annotation's own grammar, for settings elsewhere that take the same values.
 */
export function checkAnnotationValue(name: string, value: string): string | undefined {
  const parser = Object.hasOwn(PARSERS, name) ? PARSERS[name] : undefined;
  return parser === undefined ? `is not a known annotation` : parser(value, createDefaults());
}

/**
 * Reads one ANNOTATION_DEFAULT_KEYS value with the annotation's own grammar into `into`; returns
 * why it is invalid, or undefined.
 */
export function parseAnnotationDefault(
  key: (typeof ANNOTATION_DEFAULT_KEYS)[number],
  value: string,
  into: AnnotationDefaults,
): string | undefined {
  const parsed = createDefaults();
  const reason = PARSERS[key]!(value, parsed);
  if (reason !== undefined) return reason;
  const field = (
    {
      'ssl-redirect': 'sslRedirect',
      'force-ssl-redirect': 'forceSslRedirect',
      'proxy-connect-timeout': 'connectTimeoutSeconds',
      'proxy-read-timeout': 'readTimeoutSeconds',
      'proxy-send-timeout': 'sendTimeoutSeconds',
    } as const
  )[key];
  (into as Record<string, unknown>)[field] = parsed[field];
  return undefined;
}

/**
 * Annotations under the prefix that carry data for other parts of a controller, not for routing:
 * `version` is the Ingress's configuration version in Tengine's global checksum.
 */
const NOT_FOR_ROUTING: ReadonlySet<string> = new Set(['version']);

/**
 * Parses the annotations under `prefix` (a Kubernetes `metadata.annotations` value, possibly
 * malformed). Returns the typed values, or no values and at least one error when the Ingress
 * must be left out. Never throws.
 */
export function parseAnnotations(
  raw: unknown,
  prefix: string = DEFAULT_ANNOTATION_PREFIX,
  defaults?: AnnotationDefaults,
): AnnotationParseResult {
  const into = createDefaults(defaults);
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
    const field = `metadata.annotations[${JSON.stringify(key)}]`;
    if (NOT_FOR_ROUTING.has(name)) continue;
    // Own properties only: `constructor` or `toString` must read as unsupported, not as a parser.
    const parser = Object.hasOwn(PARSERS, name) ? PARSERS[name] : undefined;
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
    // eslint-disable-next-line no-control-regex -- newlines and NUL are the classic injection
    const reason = /[\u0000-\u001f\u007f]/.test(value)
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
  const canary = combineCanary(into.canaryAnnotations, withPrefix, problems);
  if (canary !== undefined) into.canary = canary;
  const basicAuth = combineAuth(into.auth, withPrefix, problems);
  if (basicAuth !== undefined) into.basicAuthRequest = basicAuth;
  const externalAuth = combineExternalAuth(into.externalAuthAnnotations, withPrefix, problems);
  if (externalAuth !== undefined) into.externalAuth = externalAuth;
  const affinity = combineAffinity(into.affinity, withPrefix, problems);
  if (affinity !== undefined) into.sessionAffinity = affinity;
  const locationRewrite = combineProxy(into.proxy, withPrefix, problems);
  if (locationRewrite !== undefined) into.locationRewrite = locationRewrite;
  if (problems.some((problem) => problem.severity === 'error')) return { problems };
  return { annotations: into, problems };
}
