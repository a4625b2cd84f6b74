/**
 * ingress-nginx's external authentication annotations: auth-url (the service asked about every
 * forwarded request), auth-method, auth-signin and auth-signin-redirect-param (where a 401 sends
 * the client), auth-response-headers (copied from the service's answer onto the request),
 * auth-request-redirect, auth-always-set-cookie, auth-cache-key with auth-cache-duration
 * (answers reused per route and key), and auth-proxy-set-headers (a ConfigMap of headers for the
 * service, read by auth-proxy-headers.ts). Values only ever travel as data: nothing here
 * reaches nginx.conf. Where the URL may point is checked at translation (checkExternalAuthAddress).
 * The auth-keepalive* annotations are read by external-auth-keepalive.ts.
 */
import { isIP } from 'node:net';
import {
  HTTP_METHODS,
  refusedBackendAddress,
  type BackendAddressPolicy,
  type ExternalAuthCache,
  type ExternalAuthPolicy,
} from '@ingresskit/route-model';
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import { parseHashKey } from './proxy-annotations.js';
import { annotationField } from './annotation-field.js';
import { parseConfigMapReference } from './configmap-headers.js';
import { combineExternalAuthKeepalive, EXTERNAL_AUTH_KEEPALIVE_READERS } from './external-auth-keepalive.js';
import {
  type AnnotationProblem,
  type IngressAnnotations,
  type AnnotationParser,
} from './annotation-types.js';
import type { ExternalAuthAnnotations, ExternalAuthNaming } from './annotation-parts.js';

const HEADER_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_RESPONSE_HEADERS = 32;
const QUERY_PARAMETER = /^[A-Za-z0-9._~-]{1,64}$/;
/**
 * The nginx variables a sign-in URL may hold (oauth2-proxy's guides use them), which the data
 * plane fills in per request; any other `$` is refused rather than sent as written.
 */
const SIGNIN_VARIABLES = ['$escaped_request_uri', '$request_uri', '$http_host', '$host', '$scheme'] as const;
// Header values and URLs: printable ASCII, no spaces.
const URL_TEXT = /^[\x21-\x7e]+$/;
const HEADER_VALUE = /^[\x20-\x7e]{1,2048}$/;

function externalAuthOf(into: IngressAnnotations): ExternalAuthAnnotations {
  return (into.externalAuthAnnotations ??= {});
}

// nginx time units a cache duration may use; at most a week.
const TIME_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };
const MAX_CACHE_SECONDS = 7 * 86400;
// ingress-nginx's default auth-cache-duration.
const DEFAULT_CACHE_DURATIONS: ExternalAuthCache['durations'] = [{ statuses: [200, 202, 401], seconds: 300 }];

/**
 * auth-cache-duration: entries separated by ",", each status codes then a time (`200 202 10m`,
 * `401 1h 30m`), as nginx's proxy_cache_valid; without codes, 200, 301 and 302 as there.
 */
function parseCacheDurations(value: string): ExternalAuthCache['durations'] | string {
  const durations: ExternalAuthCache['durations'] = [];
  for (const entry of value.split(',')) {
    const words = entry.trim().split(/ +/);
    const statuses: number[] = [];
    let seconds = 0;
    for (const word of words) {
      if (/^[1-5][0-9]{2}$/.test(word) && seconds === 0) statuses.push(Number(word));
      else {
        const time = /^([0-9]{1,6})([smhd])$/.exec(word);
        if (time === null) return `"${word}" is not a status code or a time such as 30s, 5m, 1h`;
        seconds += Number(time[1]) * TIME_UNITS[time[2]!]!;
      }
    }
    if (seconds === 0) return `"${entry.trim()}" needs a time after its status codes`;
    if (seconds > MAX_CACHE_SECONDS) return 'must keep answers at most 7d';
    durations.push({ statuses: statuses.length === 0 ? [200, 301, 302] : statuses, seconds });
  }
  return durations;
}

/** `value` as an absolute http(s) URL without credentials or fragment, or why it is not one. */
function readHttpUrl(value: string): URL | string {
  if (!URL_TEXT.test(value)) return 'must be an http or https URL without spaces';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not hold credentials (user:password@)';
  if (url.hash !== '' || value.includes('#')) return 'must not hold a fragment (#)';
  if (url.hostname === '') return 'must name a host';
  return url;
}

/** Reads one external authentication value into `into`; returns why it is invalid, or undefined. */
export type ExternalAuthReader = (value: string, into: ExternalAuthAnnotations) => string | undefined;

/**
 * The readers of the external authentication annotations, by annotation name; the ConfigMap's
 * global-auth-* keys are read with the same ones (global-auth-keys.ts).
 */
export const EXTERNAL_AUTH_READERS: Readonly<Record<string, ExternalAuthReader>> = {
  'auth-url': (value, into) => {
    if (value.includes('$')) return 'must be a literal URL: nginx variables are not supported';
    const url = readHttpUrl(value);
    if (typeof url === 'string') return url;
    into.url = url.href;
    return undefined;
  },
  'auth-method': (value, into) => {
    if (!HTTP_METHODS.has(value)) return `must be one of ${[...HTTP_METHODS].join(', ')}`;
    into.method = value;
    return undefined;
  },
  'auth-signin': (value, into) => {
    // The variables are checked by what they stand for, so the rest must still be a URL.
    let example = value;
    for (const variable of SIGNIN_VARIABLES) example = example.split(variable).join('x');
    if (example.includes('$')) {
      return `may hold only the variables ${SIGNIN_VARIABLES.join(', ')}`;
    }
    const url = readHttpUrl(example);
    if (typeof url === 'string') return url;
    into.signinUrl = value;
    return undefined;
  },
  'auth-signin-redirect-param': (value, into) => {
    if (!QUERY_PARAMETER.test(value)) return 'must be a query parameter name: A-Z a-z 0-9 . _ ~ -';
    into.redirectParam = value;
    return undefined;
  },
  'auth-response-headers': (value, into) => {
    const names = value
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    if (names.length === 0) return 'must list at least one header name';
    if (names.length > MAX_RESPONSE_HEADERS) return `must list at most ${MAX_RESPONSE_HEADERS} headers`;
    const bad = names.find((name) => !HEADER_NAME.test(name));
    if (bad !== undefined) return `"${bad}" is not a header name (A-Z a-z 0-9 - _)`;
    into.responseHeaders = [...new Set(names)];
    return undefined;
  },
  'auth-request-redirect': (value, into) => {
    if (!HEADER_VALUE.test(value)) return 'must be at most 2048 printable characters';
    if (value.includes('$')) return 'must be literal text: nginx variables are not supported';
    into.requestRedirect = value;
    return undefined;
  },
  'auth-cache-key': (value, into) => {
    const key = parseHashKey(value);
    if (typeof key === 'string') return key;
    into.cacheKey = key;
    return undefined;
  },
  'auth-cache-duration': (value, into) => {
    const durations = parseCacheDurations(value);
    if (typeof durations === 'string') return durations;
    into.cacheDurations = durations;
    return undefined;
  },
  'auth-proxy-set-headers': (value, into) => {
    const reference = parseConfigMapReference(value);
    if (typeof reference === 'string') return reference;
    into.proxySetHeaders = reference;
    return undefined;
  },
  'auth-always-set-cookie': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    into.alwaysSetCookie = on;
    return undefined;
  },
  ...EXTERNAL_AUTH_KEEPALIVE_READERS,
};

/** The parsers of the external authentication annotations. */
export const EXTERNAL_AUTH_PARSERS: Readonly<Record<string, AnnotationParser>> = Object.fromEntries(
  Object.entries(EXTERNAL_AUTH_READERS).map(([name, read]) => [
    name,
    (value: string, into: IngressAnnotations) => read(value, externalAuthOf(into)),
  ]),
);

/**
 * ingress-nginx adds the original URL to the sign-in URL in `param` unless the URL's query
 * already sets that parameter to something: the parameter to add, or undefined.
 */
function redirectParamOf(signinUrl: string, param: string): string | undefined {
  const question = signinUrl.indexOf('?');
  if (question === -1) return param;
  const query = new URLSearchParams(signinUrl.slice(question + 1));
  return (query.get(param) ?? '') === '' ? param : undefined;
}

/** The naming of the external authentication annotations under `withPrefix` (`prefix/`). */
export function annotationNaming(withPrefix: string): ExternalAuthNaming {
  return {
    key: (name) => name,
    field: (name) => annotationField(`${withPrefix}${name}`),
    label: (name) => `annotation "${name}"`,
  };
}

/**
 * The external authentication policy the annotations ask for, or undefined without auth-url
 * (then each other external auth annotation set is a warning: it has no effect).
 */
export function combineExternalAuth(
  annotations: ExternalAuthAnnotations | undefined,
  naming: ExternalAuthNaming,
  problems: AnnotationProblem[],
): ExternalAuthPolicy | undefined {
  if (annotations === undefined) return undefined;
  const {
    url,
    method,
    signinUrl,
    redirectParam,
    responseHeaders,
    requestRedirect,
    alwaysSetCookie,
    cacheKey,
    cacheDurations,
    proxySetHeaders,
  } = annotations;
  if (url === undefined) {
    const set: [string, unknown][] = [
      ['auth-method', method],
      ['auth-signin', signinUrl],
      ['auth-signin-redirect-param', redirectParam],
      ['auth-response-headers', responseHeaders],
      ['auth-request-redirect', requestRedirect],
      ['auth-always-set-cookie', alwaysSetCookie],
      ['auth-cache-key', cacheKey],
      ['auth-cache-duration', cacheDurations],
      ['auth-proxy-set-headers', proxySetHeaders],
      ['auth-keepalive', annotations.keepaliveConnections],
      ['auth-keepalive-requests', annotations.keepaliveRequests],
      ['auth-keepalive-timeout', annotations.keepaliveTimeout],
      ['auth-keepalive-share-vars', annotations.keepaliveShareVars],
    ];
    for (const [name, value] of set) {
      if (value === undefined) continue;
      problems.push({
        field: naming.field(name),
        message: `${naming.label(name)} has no effect without ${naming.key('auth-url')}`,
        code: 'annotation-without-effect',
        severity: 'warning',
      });
    }
    return undefined;
  }
  const policy: ExternalAuthPolicy = { url };
  if (method !== undefined) policy.method = method;
  if (signinUrl !== undefined) {
    const param = redirectParamOf(signinUrl, redirectParam ?? 'rd');
    policy.signin = param === undefined ? { url: signinUrl } : { url: signinUrl, redirectParam: param };
  }
  if (responseHeaders !== undefined) policy.responseHeaders = [...responseHeaders];
  if (requestRedirect !== undefined) policy.requestRedirect = requestRedirect;
  if (alwaysSetCookie === true) policy.alwaysSetCookie = true;
  if (cacheKey !== undefined) {
    policy.cache = { key: cacheKey, durations: cacheDurations ?? DEFAULT_CACHE_DURATIONS };
  } else if (cacheDurations !== undefined) {
    problems.push({
      field: naming.field('auth-cache-duration'),
      message: `${naming.label('auth-cache-duration')} has no effect without ${naming.key('auth-cache-key')}`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  }
  const keepalive = combineExternalAuthKeepalive(annotations, naming, problems);
  if (keepalive !== undefined) policy.keepalive = keepalive;
  return policy;
}

/**
 * Why the auth service at `url` may not be asked under `policy` (the rule backends follow: no
 * link-local or cloud metadata address, no loopback or own address of the gateway unless local
 * addresses are allowed, never the gateway's own ports), or undefined when it may. A host name
 * is judged by its text only.
 */
export function checkExternalAuthAddress(url: string, policy: BackendAddressPolicy): string | undefined {
  const parsed = new URL(url);
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  // nginx's proxy_pass reads http://unix:<port>/... as the unix socket path <port>/...
  if (host === 'unix') return 'unix is no host nginx can ask: it reads unix: as a unix socket';
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  const refusal = refusedBackendAddress(host, port, policy);
  if (refusal !== undefined) return refusal;
  // Decimal or hex forms of an IPv4 address are normalized by URL already; anything left that
  // looks numeric but is no IP would reach the resolver as a name: refused for clarity.
  if (isIP(host) === 0 && /^[0-9.]+$/.test(host)) return `${host} is not a valid address`;
  return undefined;
}
