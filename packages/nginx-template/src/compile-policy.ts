/**
 * RoutePolicy → the policy entry the Lua router applies, composed from each policy's compiler.
 * Policies simple enough to need no module of their own (HTTPS redirect, source lists, body size,
 * upstream host, HSTS, mirror, custom errors) are compiled here.
 */
import type { Route, StrictTransportSecurity } from '@ingresskit/route-model';
import { parseCidr } from './cidr.js';
import { compileAffinity } from './compile-affinity.js';
import { compileBasicAuth, compileDigestAuth } from './compile-auth.js';
import { compileCors } from './compile-cors.js';
import { compileExternalAuth } from './compile-external-auth.js';
import { compileHeaders, isHeaderName, isHeaderValue } from './compile-headers.js';
import { compileClientLimits } from './compile-limits.js';
import { compileOnce, createCompileCache } from './compile-once.js';
import { compileGlobalRateLimit } from './compile-global-rate-limit.js';
import { compileRewrite } from './compile-path-change.js';
import { compileProxyPolicy } from './compile-proxy.js';
import { compileTimeouts } from './compile-timeouts.js';
import type { PolicyEntry } from './data-entries.js';
import type { PolicyIssues } from './policy-issues.js';
import { isBackendProtocol, isValidErrorStatuses } from './profiles.js';
import { isValidMaxBodyBytes } from './settings.js';
import { compileUpstreamSettings, type UpstreamDefaults } from './upstream-directives.js';

// A Host header: a name, an IPv4 address or a bracketed IPv6 address, optional port.
const HOST_VALUE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;
const HTTPS_REDIRECT_STATUS = [301, 302, 307, 308];
// Every IPv4 and every IPv6 client: what a deny list entry that cannot be read stands for.
const DENY_EVERYONE: [string, number][] = [
  ['00000000', 0],
  ['0'.repeat(32), 0],
];

// The values routes share, each compiled once (see compile-once.ts): the large ones a tenant writes.
const allowCache = createCompileCache<[string, number][]>();
const denyCache = createCompileCache<[string, number][]>();
const corsCache = createCompileCache<PolicyEntry['cors']>();
const requestHeadersCache = createCompileCache<PolicyEntry['request']>();
const responseHeadersCache = createCompileCache<PolicyEntry['response']>();
const basicAuthCache = createCompileCache<PolicyEntry['auth']>();
const digestAuthCache = createCompileCache<PolicyEntry['digest']>();
const externalAuthCache = createCompileCache<PolicyEntry['extAuth']>();

/**
 * allowSources or denySources → networks. An entry that cannot be read, with a stricter reading,
 * admits no one to an allow-list and denies everyone in a deny list: either way it fails closed.
 */
function compileNetworks(
  field: 'allowSources' | 'denySources',
  sources: readonly string[],
  out: PolicyIssues,
): [string, number][] {
  const networks: [string, number][] = [];
  sources.forEach((source, index) => {
    const parsed = parseCidr(source);
    if (parsed !== undefined) networks.push([parsed.hex, parsed.bits]);
    else if (field === 'allowSources') {
      out.strict(`policy.${field}[${index}]`, 'is not an IP address or CIDR; it admits no client', source);
    } else {
      out.strict(`policy.${field}[${index}]`, 'is not an IP address or CIDR; it denies every client', source);
      networks.push(...DENY_EVERYONE);
    }
  });
  return networks;
}

/** StrictTransportSecurity → the header value; an invalid max-age is left out with a warning. */
function compileHsts(hsts: StrictTransportSecurity, out: PolicyIssues): string | undefined {
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

/**
 * Compiles `route.policy` (its upstream settings against the operator's `defaults`); every policy
 * with an error is left out, reported through `out`.
 */
export function compilePolicy(route: Route, defaults: UpstreamDefaults, out: PolicyIssues): PolicyEntry {
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
    const sources = Array.isArray(policy.allowSources) ? policy.allowSources : [];
    entry.allow = compileOnce(allowCache, sources, out, (issues) =>
      compileNetworks('allowSources', sources, issues),
    );
  }
  if (
    policy.denySources !== undefined &&
    Array.isArray(policy.denySources) &&
    policy.denySources.length > 0
  ) {
    const sources = policy.denySources;
    entry.deny = compileOnce(denyCache, sources, out, (issues) =>
      compileNetworks('denySources', sources, issues),
    );
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
    const modifier = policy.requestHeaders;
    const headers = compileOnce(requestHeadersCache, modifier, out, (issues) =>
      compileHeaders(modifier, 'policy.requestHeaders', issues),
    );
    if (headers !== undefined) entry.request = headers;
  }
  if (policy.responseHeaders !== undefined) {
    const modifier = policy.responseHeaders;
    const headers = compileOnce(responseHeadersCache, modifier, out, (issues) =>
      compileHeaders(modifier, 'policy.responseHeaders', issues),
    );
    if (headers !== undefined) entry.response = headers;
  }
  if (policy.cors !== undefined) {
    const source = policy.cors;
    const cors = compileOnce(corsCache, source, out, (issues) => compileCors(source, issues));
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
    const source = policy.basicAuth;
    const auth = compileOnce(basicAuthCache, source, out, (issues) => compileBasicAuth(source, issues));
    if (auth !== undefined) entry.auth = auth;
  }
  if (policy.digestAuth !== undefined) {
    const source = policy.digestAuth;
    const digest = compileOnce(digestAuthCache, source, out, (issues) => compileDigestAuth(source, issues));
    if (digest !== undefined) entry.digest = digest;
  }
  if (policy.externalAuth !== undefined) {
    const source = policy.externalAuth;
    const externalAuth = compileOnce(externalAuthCache, source, out, (issues) =>
      compileExternalAuth(source, issues),
    );
    if (externalAuth !== undefined) entry.extAuth = externalAuth;
  }
  compileProxyPolicy(policy, entry, out);
  compileUpstreamSettings(policy.upstreamSettings, defaults, entry, out);
  if (policy.clientLimits !== undefined) {
    const limits = compileClientLimits(policy.clientLimits, out);
    if (limits !== undefined) entry.limits = limits;
  }
  if (policy.globalRateLimit !== undefined) {
    const limit = compileGlobalRateLimit(policy.globalRateLimit, out);
    if (limit !== undefined) entry.glimit = limit;
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
  if (policy.noEndpointsBackend !== undefined) {
    if (typeof policy.noEndpointsBackend === 'string' && policy.noEndpointsBackend !== '')
      entry.emptyBackend = policy.noEndpointsBackend;
    else
      out.warn(
        'policy.noEndpointsBackend',
        'must be a backend id; a backend without endpoints answers 503',
        policy.noEndpointsBackend,
      );
  }
  if (policy.customErrors !== undefined) {
    const errors = compileCustomErrors(policy.customErrors, out);
    if (errors !== undefined) entry.errors = errors;
  }
  return entry;
}

/** CustomErrors → the errors entry; invalid statuses leave them out, with a warning. */
function compileCustomErrors(
  errors: NonNullable<Route['policy']['customErrors']>,
  out: PolicyIssues,
): PolicyEntry['errors'] {
  if (!isValidErrorStatuses(errors.statuses)) {
    out.warn(
      'policy.customErrors.statuses',
      'must be ascending, unique statuses from 400 to 599 but 499; answers are not replaced',
      errors.statuses,
    );
    return undefined;
  }
  const backends = Array.isArray(errors.backends)
    ? errors.backends.filter((id) => typeof id === 'string' && id !== '')
    : [];
  const entry: NonNullable<PolicyEntry['errors']> = { statuses: [...errors.statuses], backends };
  const headers = (errors.headers ?? []).filter(
    ({ name, value }) => isHeaderName(name) && isHeaderValue(value),
  );
  if (headers.length !== (errors.headers ?? []).length) {
    out.warn('policy.customErrors.headers', 'holds invalid headers, which are not sent', errors.headers);
  }
  if (headers.length > 0) entry.headers = headers.map(({ name, value }) => [name, value]);
  if (errors.passBackendErrors === true) entry.own = true;
  return entry;
}
