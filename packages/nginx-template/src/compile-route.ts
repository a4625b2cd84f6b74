/**
 * Route → RouteEntry, the form the Lua router reads. Every value the data plane cannot take as
 * written is decided here, once, for both the pushed data and buildConfiguration's problems:
 * a value that would change what a route does in an unsafe way (a header that could split a
 * response, a redirect to an invalid host) makes the route answer 500; a value that only loses
 * precision (an unknown protocol, an invalid limit) falls back to the default; an allowlist entry
 * that cannot be parsed admits no one.
 */
import { normalizePrefix, type StrictTransportSecurity, type Route } from '@ingresskit/route-model';
import { parseCidr } from './cidr.js';
import { compileAffinity } from './compile-affinity.js';
import { compileBasicAuth } from './compile-auth.js';
import { compileCors } from './compile-cors.js';
import { compileExternalAuth } from './compile-external-auth.js';
import { compileCanary, compileMembers } from './compile-canary.js';
import { compileHeaders } from './compile-headers.js';
import { compileClientLimits } from './compile-limits.js';
import { compilePathModifier, compileRewrite } from './compile-path-change.js';
import { compileProxyPolicy } from './compile-proxy.js';
import { compileTimeouts } from './compile-timeouts.js';
import { upstreamDirectivesOf } from './upstream-directives.js';
import type { ActionEntry, ConditionEntry, PolicyEntry, RouteEntry } from './data-entries.js';
import { isBackendProtocol, isValidMaxBodyBytes, profileOf } from './profiles.js';
import { RouteIssueCollector, type RouteIssue } from './route-issues.js';

export type { RouteIssue } from './route-issues.js';

/** A compiled route and what compiling it decided. */
export interface CompiledRoute {
  entry: RouteEntry;
  issues: RouteIssue[];
}

// A Host header or redirect host: a name, an IPv4 address or a bracketed IPv6 address, optional port.
const HOST_VALUE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;
const HOSTNAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$/;
const REDIRECT_STATUS = [301, 302, 303, 307, 308];
// A redirect's query goes into Location as written: characters that need no escaping, and escapes.
const QUERY = /^(?:[A-Za-z0-9._~\-=&+,:@/!]|%[0-9A-Fa-f]{2}){0,2048}$/;
const HTTPS_REDIRECT_STATUS = [301, 302, 307, 308];
// Every IPv4 and every IPv6 client: what a deny list entry that cannot be read stands for.
const DENY_EVERYONE: [string, number][] = [
  ['00000000', 0],
  ['0'.repeat(32), 0],
];

function isStatus(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= 599;
}

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
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
        const path = compilePathModifier(redirect.path, route, 'action.redirect.path', out);
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
