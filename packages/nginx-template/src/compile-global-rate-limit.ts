/**
 * GlobalRateLimit → the entry the Lua global limiter reads, memcached's address included: it
 * travels as data, so a new host or limit needs no reload. A limit that cannot be read makes the
 * route answer 500 (serving it unlimited would be the unsafe way to fail).
 */
import type { GlobalRateLimit } from '@ingresskit/route-model';
import { isIP } from 'node:net';
import { compileHashPart } from './compile-proxy.js';
import type { GlobalLimitEntry } from './data-entries.js';
import { compileExemptSources, type LimitsIssues } from './compile-limits.js';

const MAX_LIMIT = 1_000_000_000;
// A count lives two windows; memcached reads an expiry over 30 days as a date.
const MAX_WINDOW_SECONDS = 14 * 24 * 3600;
const MAX_SCOPE_LENGTH = 1024;
// eslint-disable-next-line no-control-regex -- the scope is part of memcached keys (hashed) and log lines
const CONTROL = /[\u0000-\u001f\u007f]/;
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

function isWhole(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** Compiles `policy.globalRateLimit`; undefined after an error reported through `out`. */
export function compileGlobalRateLimit(
  limit: GlobalRateLimit,
  out: LimitsIssues,
): GlobalLimitEntry | undefined {
  const field = 'policy.globalRateLimit';
  const { scope, store } = limit;
  if (typeof scope !== 'string' || scope === '' || scope.length > MAX_SCOPE_LENGTH || CONTROL.test(scope))
    return out.error(`${field}.scope`, 'must be a name without control characters', scope);
  if (!isWhole(limit.limit, 1, MAX_LIMIT))
    return out.error(`${field}.limit`, `must be a whole number from 1 to ${MAX_LIMIT}`, limit.limit);
  if (!isWhole(limit.windowSeconds, 1, MAX_WINDOW_SECONDS))
    return out.error(
      `${field}.windowSeconds`,
      `must be a whole number from 1 to ${MAX_WINDOW_SECONDS}`,
      limit.windowSeconds,
    );
  if (!isWhole(limit.statusCode, 400, 599))
    return out.error(`${field}.statusCode`, 'must be an HTTP status from 400 to 599', limit.statusCode);
  const key: GlobalLimitEntry['key'] = [];
  for (const [index, part] of (Array.isArray(limit.key) ? limit.key : []).entries()) {
    const compiled = compileHashPart(part, `${field}.key[${index}]`, out);
    if (compiled === undefined) return undefined;
    key.push(compiled);
  }
  if (!key.some(([kind]) => kind === 'var'))
    return out.error(`${field}.key`, 'must hold a part of the request');
  if (typeof store !== 'object' || store === null) return out.error(`${field}.store`, 'must be an object');
  if (typeof store.host !== 'string' || (isIP(store.host) === 0 && !HOST_NAME.test(store.host)))
    return out.error(`${field}.store.host`, 'must be an IP address or a host name', store.host);
  if (!isWhole(store.port, 1, 65535))
    return out.error(`${field}.store.port`, 'must be a port from 1 to 65535', store.port);
  if (!isWhole(store.timeoutMs, 1, 60_000))
    return out.error(`${field}.store.timeoutMs`, 'must be from 1 to 60000', store.timeoutMs);
  if (!isWhole(store.idleTimeoutMs, 1, 3_600_000))
    return out.error(`${field}.store.idleTimeoutMs`, 'must be from 1 to 3600000', store.idleTimeoutMs);
  if (!isWhole(store.poolSize, 1, 10_000))
    return out.error(`${field}.store.poolSize`, 'must be from 1 to 10000', store.poolSize);
  const entry: GlobalLimitEntry = {
    scope,
    limit: limit.limit,
    window: limit.windowSeconds,
    key,
    status: limit.statusCode,
    store: [store.host, store.port, store.timeoutMs, store.idleTimeoutMs, store.poolSize],
  };
  if (limit.exemptSources !== undefined)
    entry.exempt = compileExemptSources(limit.exemptSources, `${field}.exemptSources`, out);
  return entry;
}
