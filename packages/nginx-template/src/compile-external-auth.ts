/**
 * ExternalAuthPolicy → the entry the Lua router asks the auth service with. The data plane does
 * not trust its input: a URL, method, header name or value it could not send exactly as written
 * is an error, and the route answers 500 rather than serving without the check.
 */
import { HTTP_METHODS, type ExternalAuthPolicy } from '@ingresskit/route-model';
import type { AuthIssues } from './compile-auth.js';
import { compileHashPart } from './compile-proxy.js';
import type { ExternalAuthEntry } from './data-entries.js';
import { compileAuthKeepalive } from './compile-auth-keepalive.js';

// Printable ASCII without spaces: what a URL in a proxy_pass variable or a Location may hold.
const URL_TEXT = /^[\x21-\x7e]{1,4096}$/;
const HEADER_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const HEADER_VALUE = /^[\x20-\x7e]{1,2048}$/;
// A header set on the check may be empty.
const SET_VALUE = /^[\x20-\x7e]{0,2048}$/;
const QUERY_PARAMETER = /^[A-Za-z0-9._~-]{1,64}$/;
const SIGNIN_VARIABLES = ['$escaped_request_uri', '$request_uri', '$http_host', '$host', '$scheme'];

/** `text` as an http(s) URL with a host and no credentials or fragment, else undefined. */
function readHttpUrl(text: unknown): URL | undefined {
  if (typeof text !== 'string' || !URL_TEXT.test(text) || text.includes('#')) return undefined;
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.hostname === '' || url.username !== '' || url.password !== '') return undefined;
    return url;
  } catch {
    return undefined;
  }
}

const MAX_CACHE_SECONDS = 7 * 86400;

/** The cache of answers: its key, which must read the request, and seconds by status. */
function compileCache(
  cache: NonNullable<ExternalAuthPolicy['cache']>,
  out: AuthIssues,
): ExternalAuthEntry['cache'] | undefined {
  const key: ['text' | 'var', string][] = [];
  for (const [index, part] of (Array.isArray(cache.key) ? cache.key : []).entries()) {
    const compiled = compileHashPart(part, `policy.externalAuth.cache.key[${index}]`, out);
    if (compiled === undefined) return undefined;
    key.push(compiled);
  }
  // A key of text alone would hand one client's answer to every other.
  if (!key.some(([kind]) => kind === 'var')) {
    return out.error('policy.externalAuth.cache.key', 'must hold a part of the request');
  }
  const ttl: Record<string, number> = {};
  for (const [index, duration] of (Array.isArray(cache.durations) ? cache.durations : []).entries()) {
    const { statuses, seconds } = duration ?? {};
    if (
      !Number.isInteger(seconds) ||
      seconds < 1 ||
      seconds > MAX_CACHE_SECONDS ||
      !Array.isArray(statuses) ||
      !statuses.every((status) => Number.isInteger(status) && status >= 100 && status <= 599)
    ) {
      return out.error(
        `policy.externalAuth.cache.durations[${index}]`,
        'must be status codes and 1 to 604800 seconds',
        duration,
      );
    }
    // The first entry naming a status wins, as nginx reads proxy_cache_valid lines.
    for (const status of statuses) if (!Object.hasOwn(ttl, String(status))) ttl[String(status)] = seconds;
  }
  return { key, ttl };
}

/** Compiles `policy.externalAuth`; undefined after an error reported through `out`. */
export function compileExternalAuth(
  auth: ExternalAuthPolicy,
  out: AuthIssues,
): ExternalAuthEntry | undefined {
  const url = typeof auth.url === 'string' && !auth.url.includes('$') ? readHttpUrl(auth.url) : undefined;
  if (url === undefined) {
    return out.error('policy.externalAuth.url', 'must be an http or https URL without variables', auth.url);
  }
  const method = auth.method ?? 'GET';
  if (!HTTP_METHODS.has(method)) {
    return out.error(
      'policy.externalAuth.method',
      `must be one of ${[...HTTP_METHODS].join(', ')}`,
      auth.method,
    );
  }
  // The Host header and TLS name: the URL's host without its port, as ingress-nginx sends.
  const entry: ExternalAuthEntry = { url: url.href, host: url.hostname, method };
  if (auth.requestRedirect !== undefined) {
    if (typeof auth.requestRedirect !== 'string' || !HEADER_VALUE.test(auth.requestRedirect)) {
      return out.error('policy.externalAuth.requestRedirect', 'must be a header value', auth.requestRedirect);
    }
    entry.redirect = auth.requestRedirect;
  }
  if (auth.signin !== undefined) {
    const signin = auth.signin;
    let example = typeof signin?.url === 'string' ? signin.url : '';
    for (const variable of SIGNIN_VARIABLES) example = example.split(variable).join('x');
    if (example.includes('$') || readHttpUrl(example) === undefined) {
      return out.error(
        'policy.externalAuth.signin.url',
        `must be an http or https URL, with no variables but ${SIGNIN_VARIABLES.join(', ')}`,
        signin?.url,
      );
    }
    entry.signin = signin.url;
    if (signin.redirectParam !== undefined) {
      if (typeof signin.redirectParam !== 'string' || !QUERY_PARAMETER.test(signin.redirectParam)) {
        return out.error(
          'policy.externalAuth.signin.redirectParam',
          'must be a query parameter name',
          signin.redirectParam,
        );
      }
      entry.param = signin.redirectParam;
    }
  }
  if (auth.responseHeaders !== undefined) {
    const names: unknown[] = Array.isArray(auth.responseHeaders) ? auth.responseHeaders : [undefined];
    const bad = names.find((name) => typeof name !== 'string' || !HEADER_NAME.test(name));
    if (bad !== undefined || names.length > 32) {
      return out.error('policy.externalAuth.responseHeaders', 'must be at most 32 header names', bad);
    }
    if (names.length > 0) entry.headers = names as string[];
  }
  if (auth.requestHeaders !== undefined) {
    const headers: unknown[] = Array.isArray(auth.requestHeaders) ? auth.requestHeaders : [undefined];
    const isHeader = (header: unknown): header is { name: string; value: string } => {
      const { name, value } = (typeof header === 'object' && header !== null ? header : {}) as {
        name?: unknown;
        value?: unknown;
      };
      return (
        typeof name === 'string' &&
        HEADER_NAME.test(name) &&
        typeof value === 'string' &&
        SET_VALUE.test(value)
      );
    };
    const bad = headers.find((header) => !isHeader(header));
    if (bad !== undefined || headers.length > 64) {
      return out.error(
        'policy.externalAuth.requestHeaders',
        'must be at most 64 headers with printable values',
        bad,
      );
    }
    if (headers.length > 0)
      entry.set = auth.requestHeaders.map(({ name, value }): [string, string] => [name, value]);
  }
  if (auth.alwaysSetCookie === true) entry.alwaysCookie = true;
  if (auth.cache !== undefined) {
    const cache = compileCache(auth.cache, out);
    if (cache === undefined) return undefined;
    entry.cache = cache;
  }
  if (auth.keepalive !== undefined) {
    const keepalive = compileAuthKeepalive(auth.keepalive, url, out);
    if (keepalive === undefined) return undefined;
    entry.keepalive = keepalive;
  }
  return entry;
}
