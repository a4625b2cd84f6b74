/**
 * Route → RouteEntry, the form the Lua router reads. Every value the data plane cannot take as
 * written is decided here, once, for both the pushed data and buildConfiguration's problems:
 * a value that would change what a route does in an unsafe way (a header that could split a
 * response, a redirect to an invalid host) makes the route answer 500; a value that only loses
 * precision (an unknown protocol, an invalid limit) falls back to the default; an allowlist entry
 * that cannot be parsed admits no one.
 */
import {
  normalizePrefix,
  type CorsPolicy,
  type StrictTransportSecurity,
  type HeaderModifier,
  type PathModifier,
  type Route,
  type RouteTimeouts,
} from '@ingresskit/route-model';
import { parseCidr } from './cidr.js';
import { compileAffinity } from './compile-affinity.js';
import { compileBasicAuth } from './compile-auth.js';
import { compileExternalAuth } from './compile-external-auth.js';
import { compileCanary, compileMembers } from './compile-canary.js';
import { compileClientLimits } from './compile-limits.js';
import { compileProxyPolicy } from './compile-proxy.js';
import { upstreamDirectivesOf } from './upstream-directives.js';
import type {
  ActionEntry,
  ConditionEntry,
  HeadersEntry,
  PathChangeEntry,
  PolicyEntry,
  RouteEntry,
} from './data-entries.js';
import { isBackendProtocol, isValidMaxBodyBytes, profileOf } from './profiles.js';
import { RouteIssueCollector, type RouteIssue } from './route-issues.js';

export type { RouteIssue } from './route-issues.js';

/** A compiled route and what compiling it decided. */
export interface CompiledRoute {
  entry: RouteEntry;
  issues: RouteIssue[];
}

// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Field values: visible characters, spaces and tabs; CR, LF and NUL would split or end a header.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const FIELD_VALUE = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/;
// eslint-disable-next-line no-control-regex -- as above
const CONTROL = /[\u0000-\u001f\u007f]/;
// A Host header or redirect host: a name, an IPv4 address or a bracketed IPv6 address, optional port.
const HOST_VALUE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;
const HOSTNAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$/;
const REDIRECT_STATUS = [301, 302, 303, 307, 308];
// A redirect's query goes into Location as written: characters that need no escaping, and escapes.
const QUERY = /^(?:[A-Za-z0-9._~\-=&+,:@/!]|%[0-9A-Fa-f]{2}){0,2048}$/;
const HTTPS_REDIRECT_STATUS = [301, 302, 307, 308];
const MAX_TIMEOUT_MS = 86_400_000;
// Every IPv4 and every IPv6 client: what a deny list entry that cannot be read stands for.
const DENY_EVERYONE: [string, number][] = [
  ['00000000', 0],
  ['0'.repeat(32), 0],
];

/** Whether `value` is a header name nginx and Lua can set safely. */
export function isHeaderName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 256 && TOKEN.test(value);
}

/** Whether `value` is a header value that cannot split a message. */
export function isHeaderValue(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 8192 && FIELD_VALUE.test(value);
}

function isPath(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('/') && value.length <= 8192 && !CONTROL.test(value);
}

function isStatus(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= 599;
}

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

function compileHeaders(
  modifier: HeaderModifier,
  field: string,
  out: RouteIssueCollector,
): HeadersEntry | undefined {
  const entry: HeadersEntry = {};
  const remove = (modifier.remove ?? []).filter((name, index) => {
    if (isHeaderName(name)) return true;
    out.error(`${field}.remove[${index}]`, 'is not a valid header name', name);
    return false;
  });
  if (remove.length > 0) entry.remove = remove;
  for (const kind of ['set', 'add'] as const) {
    const pairs: [string, string][] = [];
    (modifier[kind] ?? []).forEach((header, index) => {
      if (!isHeaderName(header?.name))
        out.error(`${field}.${kind}[${index}].name`, 'is not a valid header name', header?.name);
      else if (!isHeaderValue(header.value)) {
        out.error(
          `${field}.${kind}[${index}].value`,
          'holds control characters (CR, LF, NUL...)',
          header.value,
        );
      } else pairs.push([header.name, header.value]);
    });
    if (pairs.length > 0) entry[kind] = pairs;
  }
  return Object.keys(entry).length === 0 ? undefined : entry;
}

function prefixOf(route: Route): string {
  return route.match.path.type === 'PathPrefix' ? normalizePrefix(route.match.path.value) : '/';
}

function compileModifier(
  modifier: PathModifier,
  route: Route,
  field: string,
  out: RouteIssueCollector,
): Extract<PathChangeEntry, { type: 'full' | 'prefix' }> | undefined {
  if (modifier.type === 'ReplaceFullPath') {
    if (!isPath(modifier.value))
      return out.error(
        `${field}.value`,
        'must be a path starting with "/" without control characters',
        modifier.value,
      );
    return { type: 'full', value: modifier.value };
  }
  if (modifier.type === 'ReplacePrefixMatch') {
    if (!isPath(modifier.value))
      return out.error(
        `${field}.value`,
        'must be a path starting with "/" without control characters',
        modifier.value,
      );
    if (route.match.path.type !== 'PathPrefix') {
      out.warn(
        `${field}.type`,
        'ReplacePrefixMatch needs a PathPrefix route; the whole path counts as unmatched',
        modifier.type,
      );
    }
    // route-model's modifyPath: the matched prefix (not `/`) is cut off and the value put first.
    const prefix = prefixOf(route);
    const base = normalizePrefix(modifier.value);
    return { type: 'prefix', strip: prefix === '/' ? 0 : prefix.length, value: base === '/' ? '' : base };
  }
  return out.error(`${field}.type`, 'is not a path modifier', (modifier as { type?: unknown }).type);
}

/** `$1`–`$9` become `${1}`–`${9}` (so `$10` stays `$1` then `0`); every other `$` is literal. */
function toSubstitutionTemplate(replacement: string): string {
  return replacement.replace(/\$([1-9])?/g, (_, digit: string | undefined) =>
    digit === undefined ? '$$' : `\${${digit}}`,
  );
}

function compileRewrite(route: Route, out: RouteIssueCollector): PathChangeEntry | undefined {
  const rewrite = route.policy.rewrite!;
  if (rewrite.type === 'RegexReplace') {
    if (typeof rewrite.pattern !== 'string' || rewrite.pattern === '') {
      return out.error('policy.rewrite.pattern', 'must be a non-empty pattern', rewrite.pattern);
    }
    if (typeof rewrite.replacement !== 'string' || CONTROL.test(rewrite.replacement)) {
      return out.error(
        'policy.rewrite.replacement',
        'must be text without control characters',
        rewrite.replacement,
      );
    }
    return {
      type: 'regex',
      pattern: rewrite.pattern,
      replacement: toSubstitutionTemplate(rewrite.replacement),
    };
  }
  return compileModifier(rewrite, route, 'policy.rewrite', out);
}

function compileAction(route: Route, out: RouteIssueCollector): ActionEntry | undefined {
  const action = route.action;
  switch (action.type) {
    case 'forward': {
      const entry: Extract<ActionEntry, { type: 'forward' }> = {
        type: 'forward',
        ...compileMembers(action.backends, 'action.backends', out),
      };
      if (action.canary !== undefined) {
        const canary = compileCanary(action.canary, out);
        if (canary === undefined) return undefined;
        entry.canary = canary;
      }
      return entry;
    }
    case 'redirect': {
      const redirect = action.redirect;
      if (!REDIRECT_STATUS.includes(redirect.statusCode)) {
        return out.error(
          'action.redirect.statusCode',
          `must be one of ${REDIRECT_STATUS.join(', ')}`,
          redirect.statusCode,
        );
      }
      const entry: Extract<ActionEntry, { type: 'redirect' }> = {
        type: 'redirect',
        status: redirect.statusCode,
      };
      if (redirect.scheme !== undefined) {
        if (redirect.scheme !== 'http' && redirect.scheme !== 'https') {
          return out.error('action.redirect.scheme', 'must be http or https', redirect.scheme);
        }
        entry.scheme = redirect.scheme;
      }
      if (redirect.hostname !== undefined) {
        if (typeof redirect.hostname !== 'string' || !HOSTNAME.test(redirect.hostname)) {
          return out.error(
            'action.redirect.hostname',
            'must be a host name or an IP address',
            redirect.hostname,
          );
        }
        entry.hostname = redirect.hostname;
      }
      if (redirect.port !== undefined) {
        if (!isPort(redirect.port))
          return out.error('action.redirect.port', 'must be a port from 1 to 65535', redirect.port);
        entry.port = redirect.port;
      }
      if (redirect.query !== undefined) {
        if (typeof redirect.query !== 'string' || !QUERY.test(redirect.query)) {
          return out.error(
            'action.redirect.query',
            'must be a URL query of A-Z a-z 0-9 . _ ~ - = & + , : @ / ! and %XX escapes',
            redirect.query,
          );
        }
        entry.query = redirect.query;
      }
      if (redirect.path !== undefined) {
        const path = compileModifier(redirect.path, route, 'action.redirect.path', out);
        if (path === undefined) return undefined;
        entry.path = path;
      }
      return entry;
    }
    case 'respond': {
      if (!isStatus(action.statusCode, 200)) {
        return out.error('action.statusCode', 'must be an HTTP status from 200 to 599', action.statusCode);
      }
      const entry: Extract<ActionEntry, { type: 'respond' }> = { type: 'respond', status: action.statusCode };
      if (action.body !== undefined) {
        if (typeof action.body !== 'string') return out.error('action.body', 'must be text', action.body);
        entry.body = action.body;
      }
      return entry;
    }
    default:
      return out.error(
        'action.type',
        'is not forward, redirect or respond',
        (action as { type?: unknown }).type,
      );
  }
}

/**
 * The route's connect, send and read timeouts in seconds (0: nginx's default), or undefined when
 * it sets none. Gateway API's `request` and `backendRequest` bound the whole exchange, which nginx
 * cannot time: the smaller of them bounds each of nginx's waits instead (connecting, each write,
 * each read), so a backend that does not answer in time gets a 504, but one that keeps sending
 * slowly is not cut off.
 */
function compileTimeouts(route: Route, out: RouteIssueCollector): [number, number, number] | undefined {
  const timeouts = route.policy.timeouts!;
  const valid = (name: keyof RouteTimeouts): number => {
    const value = timeouts[name];
    if (value === undefined || value === 0) return 0;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_TIMEOUT_MS)
      return value;
    out.warn(
      `policy.timeouts.${name}`,
      `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}; the default is used`,
      value,
    );
    return 0;
  };
  const bounds = [valid('requestMs'), valid('backendRequestMs')].filter((value) => value > 0);
  const bound = bounds.length === 0 ? 0 : Math.min(...bounds);
  const milliseconds = (['connectMs', 'sendMs', 'readMs'] as const).map((name) => {
    const value = valid(name);
    if (bound === 0) return value;
    return value === 0 ? bound : Math.min(value, bound);
  });
  if (milliseconds.every((value) => value === 0)) return undefined;
  return milliseconds.map((value) => value / 1000) as [number, number, number];
}

// A CORS origin: scheme, a host whose first label may be `*` (or, for Gateway API, that is `*`
// alone), an optional port.
const CORS_ORIGIN = /^https?:\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?$/;
const ANY_HOST_ORIGIN = /^https?:\/\/\*(?::[0-9]{1,5})?$/;
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/**
 * One origin → the regex that matches it, unanchored. ingress-nginx: `*.` stands for one DNS
 * label. Gateway API: `*.` for any number of labels, `*` alone for any host, and no port or the
 * scheme's default port match both with and without it.
 */
function originPattern(origin: string, gatewayApi: boolean): string {
  const [, scheme = '', host = '', port] = /^(https?):\/\/([^:]+)(?::(\d+))?$/.exec(origin) ?? [];
  let hostPattern: string;
  if (host === '*') hostPattern = '[A-Za-z0-9.-]+';
  else if (host.startsWith('*.'))
    hostPattern =
      (gatewayApi ? '(?:[A-Za-z0-9-]+\\.)+' : '[A-Za-z0-9-]+\\.') + host.slice(2).replace(/[.]/g, '\\.');
  else hostPattern = host.replace(/[.]/g, '\\.');
  const defaultPort = gatewayApi && (port === undefined || port === DEFAULT_PORTS[scheme]);
  const portPattern = defaultPort ? `(?::${DEFAULT_PORTS[scheme]})?` : port === undefined ? '' : `:${port}`;
  return `${scheme}://${hostPattern}${portPattern}`;
}

/** A Gateway API list header (`GET, PUT` or `*`) as the data plane sends it to a request asking. */
function askedHeader(value: string, echoWildcard: boolean): string | true {
  return value === '*' && echoWildcard ? true : value;
}

/**
 * CorsPolicy → the origin regex and the fixed headers. A value that is not a valid header value,
 * or an origin outside the grammar, makes the route answer 500: serving it without the CORS
 * headers it asked for, or with others, would both be wrong.
 */
function compileCors(cors: CorsPolicy, out: RouteIssueCollector): PolicyEntry['cors'] {
  const origins = Array.isArray(cors.allowOrigins) ? cors.allowOrigins : [];
  const gatewayApi = cors.dialect === 'gateway-api';
  const credentials = cors.allowCredentials === true;
  const entry: NonNullable<PolicyEntry['cors']> = { headers: [] };
  if (origins.length === 0)
    return out.error('policy.cors.allowOrigins', 'must list at least one origin or "*"');
  if (!(origins.length === 1 && origins[0] === '*')) {
    const patterns: string[] = [];
    for (const [index, origin] of origins.entries()) {
      const valid =
        typeof origin === 'string' &&
        (CORS_ORIGIN.test(origin) || (gatewayApi && ANY_HOST_ORIGIN.test(origin)));
      if (!valid) {
        return out.error(
          `policy.cors.allowOrigins[${index}]`,
          'must be "*" alone or http(s)://host[:port], the host possibly starting with "*."',
          origin,
        );
      }
      patterns.push(originPattern(origin, gatewayApi));
    }
    entry.origin = `^(?:${patterns.join('|')})$`;
  } else if (gatewayApi && credentials) {
    entry.echoOrigin = true;
  }
  if (gatewayApi) {
    for (const [name, value] of [
      ['Access-Control-Allow-Methods', cors.allowMethods],
      ['Access-Control-Allow-Headers', cors.allowHeaders],
    ] as const) {
      if (!isHeaderValue(value)) return out.error(`policy.cors`, `${name} holds control characters`, value);
    }
    if (cors.allowMethods !== '') entry.methods = askedHeader(cors.allowMethods, credentials);
    if (cors.allowHeaders !== '') entry.allowHeaders = askedHeader(cors.allowHeaders, credentials);
    entry.preflight = 200;
  }
  const headers: [string, string | undefined][] = [
    ['Access-Control-Allow-Credentials', credentials ? 'true' : undefined],
    ['Access-Control-Allow-Methods', gatewayApi ? undefined : cors.allowMethods],
    ['Access-Control-Allow-Headers', gatewayApi ? undefined : cors.allowHeaders],
    // Gateway API: a `*` cannot expose headers to a request with credentials; none are then named.
    [
      'Access-Control-Expose-Headers',
      cors.exposeHeaders === '' || (gatewayApi && credentials && cors.exposeHeaders === '*')
        ? undefined
        : cors.exposeHeaders,
    ],
    [
      'Access-Control-Max-Age',
      Number.isSafeInteger(cors.maxAgeSeconds) ? String(cors.maxAgeSeconds) : undefined,
    ],
  ];
  for (const [name, value] of headers) {
    if (value === undefined) continue;
    if (!isHeaderValue(value)) return out.error(`policy.cors`, `${name} holds control characters`, value);
    entry.headers.push([name, value]);
  }
  return entry;
}

/** StrictTransportSecurity → the header value; an invalid max-age is left out with a warning. */
function compileHsts(hsts: StrictTransportSecurity, out: RouteIssueCollector): string | undefined {
  if (!Number.isSafeInteger(hsts.maxAgeSeconds) || hsts.maxAgeSeconds < 0) {
    out.warn(
      'policy.hsts.maxAgeSeconds',
      'must be a whole number of seconds; no HSTS is sent',
      hsts.maxAgeSeconds,
    );
    return undefined;
  }
  return [
    `max-age=${hsts.maxAgeSeconds}`,
    ...(hsts.includeSubdomains ? ['includeSubDomains'] : []),
    ...(hsts.preload ? ['preload'] : []),
  ].join('; ');
}

function compilePolicy(route: Route, out: RouteIssueCollector): PolicyEntry {
  const policy = route.policy ?? {};
  const entry: PolicyEntry = {};
  if (policy.redirectToHttps !== undefined) {
    const { statusCode, onlyIfHostHasTls, stripTrailingSlash } = policy.redirectToHttps;
    if (!HTTPS_REDIRECT_STATUS.includes(statusCode)) {
      out.error(
        'policy.redirectToHttps.statusCode',
        `must be one of ${HTTPS_REDIRECT_STATUS.join(', ')}`,
        statusCode,
      );
    } else {
      entry.https = { status: statusCode };
      if (onlyIfHostHasTls === true) entry.https.tlsOnly = true;
      if (stripTrailingSlash === true) entry.https.strip = true;
    }
  }
  if (policy.allowSources !== undefined) {
    entry.allow = [];
    (Array.isArray(policy.allowSources) ? policy.allowSources : []).forEach((source, index) => {
      const parsed = parseCidr(source);
      if (parsed === undefined) {
        out.strict(
          `policy.allowSources[${index}]`,
          'is not an IP address or CIDR; it admits no client',
          source,
        );
      } else entry.allow!.push([parsed.hex, parsed.bits]);
    });
  }
  if (
    policy.denySources !== undefined &&
    Array.isArray(policy.denySources) &&
    policy.denySources.length > 0
  ) {
    entry.deny = [];
    policy.denySources.forEach((source, index) => {
      const parsed = parseCidr(source);
      if (parsed === undefined) {
        out.strict(
          `policy.denySources[${index}]`,
          'is not an IP address or CIDR; it denies every client',
          source,
        );
        entry.deny!.push(...DENY_EVERYONE);
      } else entry.deny!.push([parsed.hex, parsed.bits]);
    });
  }
  if (policy.maxBodyBytes !== undefined) {
    if (isValidMaxBodyBytes(policy.maxBodyBytes)) entry.maxBody = policy.maxBodyBytes;
    else
      out.warn(
        'policy.maxBodyBytes',
        'must be a whole number of bytes from 0 to 1 TiB; the default is used',
        policy.maxBodyBytes,
      );
  }
  if (policy.rewrite !== undefined) {
    const rewrite = compileRewrite(route, out);
    if (rewrite !== undefined) entry.rewrite = rewrite;
  }
  if (policy.upstreamHost !== undefined) {
    if (typeof policy.upstreamHost !== 'string' || !HOST_VALUE.test(policy.upstreamHost)) {
      out.error(
        'policy.upstreamHost',
        'must be a host name or address, with an optional port',
        policy.upstreamHost,
      );
    } else entry.host = policy.upstreamHost;
  }
  if (policy.requestHeaders !== undefined) {
    const headers = compileHeaders(policy.requestHeaders, 'policy.requestHeaders', out);
    if (headers !== undefined) entry.request = headers;
  }
  if (policy.responseHeaders !== undefined) {
    const headers = compileHeaders(policy.responseHeaders, 'policy.responseHeaders', out);
    if (headers !== undefined) entry.response = headers;
  }
  if (policy.cors !== undefined) {
    const cors = compileCors(policy.cors, out);
    if (cors !== undefined) entry.cors = cors;
  }
  if (policy.hsts !== undefined) {
    const hsts = compileHsts(policy.hsts, out);
    if (hsts !== undefined) entry.hsts = hsts;
  }
  if (policy.timeouts !== undefined) {
    const timeouts = compileTimeouts(route, out);
    if (timeouts !== undefined) entry.timeouts = timeouts;
  }
  if (policy.sessionAffinity !== undefined) {
    const affinity = compileAffinity(policy.sessionAffinity, route, out);
    if (affinity !== undefined) entry.affinity = affinity;
  }
  if (policy.basicAuth !== undefined) {
    const auth = compileBasicAuth(policy.basicAuth, out);
    if (auth !== undefined) entry.auth = auth;
  }
  if (policy.externalAuth !== undefined) {
    const externalAuth = compileExternalAuth(policy.externalAuth, out);
    if (externalAuth !== undefined) entry.extAuth = externalAuth;
  }
  compileProxyPolicy(policy, entry, out);
  for (const name of upstreamDirectivesOf(policy.upstreamSettings).invalid) {
    out.warn(
      `policy.upstreamSettings.${name}`,
      'is out of range; the default is used',
      policy.upstreamSettings?.[name as keyof typeof policy.upstreamSettings],
    );
  }
  if (policy.clientLimits !== undefined) {
    const limits = compileClientLimits(policy.clientLimits, out);
    if (limits !== undefined) entry.limits = limits;
  }
  if (policy.backendProtocol !== undefined && !isBackendProtocol(policy.backendProtocol)) {
    out.warn(
      'policy.backendProtocol',
      'must be HTTP, HTTPS, GRPC or GRPCS; HTTP is used',
      policy.backendProtocol,
    );
  }
  if (policy.mirror !== undefined) {
    if (typeof policy.mirror.backend === 'string' && policy.mirror.backend !== '')
      entry.mirror = policy.mirror.backend;
    else
      out.warn(
        'policy.mirror.backend',
        'must be a backend id; requests are not copied',
        policy.mirror.backend,
      );
  }
  return entry;
}

function compileConditions(
  conditions: readonly { name: string; type: string; value: string }[] | undefined,
  foldNames: boolean,
  field: string,
  out: RouteIssueCollector,
): ConditionEntry[] | undefined {
  if (conditions === undefined || conditions.length === 0) return undefined;
  return conditions.map((condition, index) => {
    if (condition.type !== 'Exact' && condition.type !== 'RegularExpression') {
      out.error(`${field}[${index}].type`, 'must be Exact or RegularExpression', condition.type);
    }
    const name = String(condition.name);
    return [
      foldNames ? name.toLowerCase() : name,
      condition.type === 'Exact' ? 'exact' : 'regex',
      String(condition.value),
    ];
  });
}

/**
 * Compiles one route. A route with an error that could change what it does becomes a route with
 * the same id and match that answers 500, so the rest of its host is still served.
 */
export function compileRoute(route: Route): CompiledRoute {
  const out = new RouteIssueCollector();
  const { path } = route.match;
  const kind = path.type === 'Exact' ? 'exact' : path.type === 'PathPrefix' ? 'prefix' : 'regex';
  if (!['Exact', 'PathPrefix', 'RegularExpression'].includes(path.type)) {
    out.error('match.path.type', 'must be Exact, PathPrefix or RegularExpression', path.type);
  }
  const entry: RouteEntry = {
    id: String(route.id),
    kind,
    path: kind === 'prefix' ? normalizePrefix(String(path.value)) : String(path.value),
  } as RouteEntry;
  if (path.type === 'RegularExpression' && path.ignoreCase === true) entry.ignoreCase = true;
  if (route.match.method !== undefined) entry.method = String(route.match.method);
  const headers = compileConditions(route.match.headers, true, 'match.headers', out);
  if (headers !== undefined) entry.headers = headers;
  const query = compileConditions(route.match.queryParams, false, 'match.queryParams', out);
  if (query !== undefined) entry.query = query;
  if (route.listeners !== undefined) entry.listeners = route.listeners.map(String);
  const action = compileAction(route, out);
  const policy = compilePolicy(route, out);
  if (out.fatal || action === undefined) {
    entry.action = { type: 'respond', status: 500 };
    return { entry, issues: out.issues };
  }
  const profile = profileOf(route);
  if (profile !== undefined) {
    entry.profile = profile.name;
    entry.protocol = profile.protocol;
  }
  entry.action = action;
  if (Object.keys(policy).length > 0) entry.policy = policy;
  return { entry, issues: out.issues };
}
