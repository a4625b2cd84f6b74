/**
 * The table of supported annotations: each name (without prefix) with the parser its value must
 * match. Families bring their own tables; the annotations of no family are parsed here.
 */
import type { BackendProtocol } from '@ingresskit/route-model';
import { AFFINITY_PARSERS } from './affinity-annotations.js';
import { AUTH_PARSERS } from './auth-annotations.js';
import { BACKEND_TLS_PARSERS } from './backend-tls-annotations.js';
import { CANARY_PARSERS } from './canary-annotations.js';
import { CLIENT_CERTIFICATE_PARSERS } from './client-certificate-annotations.js';
import { CORS_PARSERS } from './cors-annotations.js';
import { CUSTOM_ERROR_PARSERS } from './custom-error-annotations.js';
import { CUSTOM_HEADER_PARSERS } from './custom-headers.js';
import { EXTERNAL_AUTH_PARSERS } from './external-auth-annotations.js';
import { GLOBAL_AUTH_PARSERS } from './global-auth.js';
import { booleanParser, checkHost, checkHostWithPort, checkLiteralPath, parseCidrList } from './grammar.js';
import { LIMIT_PARSERS } from './limit-annotations.js';
import { GLOBAL_RATE_LIMIT_PARSERS } from './global-rate-limit-annotations.js';
import { PROXY_PARSERS } from './proxy-annotations.js';
import { REDIRECT_PARSERS } from './redirect-annotations.js';
import { REWRITE_PARSERS } from './rewrite-annotations.js';
import { UPSTREAM_PARSERS } from './upstream-annotations.js';
import { type AnnotationParser, type IngressAnnotations } from './annotation-types.js';

/** Most hostnames one server-alias may add. */
const MAX_SERVER_ALIASES = 64;

const parseBoolean: (set: (into: IngressAnnotations, value: boolean) => void) => AnnotationParser =
  booleanParser;

function parseSeconds(max: number, set: (into: IngressAnnotations, value: number) => void): AnnotationParser {
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

function parseSourceRanges(set: (into: IngressAnnotations, ranges: string[]) => void): AnnotationParser {
  return (value, into) => {
    const ranges = parseCidrList(value);
    if (typeof ranges === 'string') return ranges;
    set(into, ranges);
    return undefined;
  };
}

/** The supported annotations by name (without prefix), with the grammar each value must match. */
const PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'ssl-redirect': parseBoolean((into, value) => (into.sslRedirect = value)),
  'force-ssl-redirect': parseBoolean((into, value) => (into.forceSslRedirect = value)),
  'use-regex': parseBoolean((into, value) => (into.useRegex = value)),
  // TLS of such a host is passed through by the controller's proxy (apps/controller l4-services),
  // which reads the value as ingress-nginx does and reports it; routes serve its HTTP as usual.
  'ssl-passthrough': () => undefined,
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
  ...GLOBAL_RATE_LIMIT_PARSERS,
  ...CANARY_PARSERS,
  ...AUTH_PARSERS,
  ...EXTERNAL_AUTH_PARSERS,
  ...GLOBAL_AUTH_PARSERS,
  ...CLIENT_CERTIFICATE_PARSERS,
  ...BACKEND_TLS_PARSERS,
  ...AFFINITY_PARSERS,
  ...PROXY_PARSERS,
  ...UPSTREAM_PARSERS,
  ...CUSTOM_ERROR_PARSERS,
  ...CUSTOM_HEADER_PARSERS,
};

/** The names (without prefix) of the annotations we parse and honour. */
export const SUPPORTED_ANNOTATIONS: ReadonlySet<string> = new Set(Object.keys(PARSERS));

/** The parser of the annotation `name` (without prefix), or undefined when it is not supported. */
export function findAnnotationParser(name: string): AnnotationParser | undefined {
  // Own properties only: `constructor` or `toString` must read as unsupported, not as a parser.
  return Object.hasOwn(PARSERS, name) ? PARSERS[name] : undefined;
}
