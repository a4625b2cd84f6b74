/**
 * ExternalAuthKeepalive → the keepalive part of the external auth entry: the pool's bounds and
 * where the Lua client connects (the URL's port, path and scheme, and its address when the host
 * is one; a host name's address is the one nginx last resolved and checked for the route).
 */
import { isIP } from 'node:net';
import type { ExternalAuthKeepalive } from '@ingresskit/route-model';
import type { AuthIssues } from './compile-auth.js';
import type { ExternalAuthEntry } from './data-entries.js';

const isWithin = (value: unknown, low: number, high: number): value is number =>
  Number.isInteger(value) && (value as number) >= low && (value as number) <= high;

/** Compiles `policy.externalAuth.keepalive` for the service at `url`; undefined after an error. */
export function compileAuthKeepalive(
  keepalive: ExternalAuthKeepalive,
  url: URL,
  out: AuthIssues,
): NonNullable<ExternalAuthEntry['keepalive']> | undefined {
  const { connections, requests, timeoutSeconds, shareRequestId } = keepalive;
  if (
    !isWithin(connections, 1, 1024) ||
    !isWithin(requests, 1, 1_000_000) ||
    !isWithin(timeoutSeconds, 1, 3600)
  ) {
    return out.error(
      'policy.externalAuth.keepalive',
      'must be 1-1024 connections, 1-1000000 requests and 1-3600 seconds',
      keepalive,
    );
  }
  const tls = url.protocol === 'https:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const entry: NonNullable<ExternalAuthEntry['keepalive']> = {
    size: connections,
    requests,
    timeout: timeoutSeconds,
    port: url.port === '' ? (tls ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
  };
  if (isIP(host) !== 0) entry.address = host;
  if (tls) entry.tls = true;
  if (shareRequestId === true) entry.shareRequestId = true;
  return entry;
}
