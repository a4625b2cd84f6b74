/**
 * The machine's DNS servers, for nginx's `resolver`: an auth-url naming a host is resolved by
 * nginx per request (the proxy target is a variable), which needs one. Pods get theirs (the
 * cluster DNS) in /etc/resolv.conf, so ingress-nginx users' `*.svc.cluster.local` auth URLs work
 * as they did. Search domains are not applied: names must be fully qualified, as in ingress-nginx.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

/** The `nameserver` addresses of resolv.conf text, as nginx `resolver` values (IPv6 in brackets). */
export function parseNameservers(text: string): string[] {
  const servers: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    const address = match?.[1];
    // Scoped IPv6 addresses (fe80::1%eth0) cannot be written in a resolver line.
    if (address === undefined || address.includes('%') || isIP(address) === 0) continue;
    servers.push(isIP(address) === 6 ? `[${address}]` : address);
  }
  return [...new Set(servers)];
}

/** The nameservers of `path` (default /etc/resolv.conf); none when it cannot be read. */
export function readSystemNameservers(path = '/etc/resolv.conf'): string[] {
  try {
    return parseNameservers(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
}
