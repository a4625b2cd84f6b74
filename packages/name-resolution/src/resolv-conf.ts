/**
 * The machine's resolver settings, /etc/resolv.conf as the C library reads it (resolv.conf(5)).
 * Pods get theirs from the kubelet: the cluster DNS as nameserver, the search domains of their
 * namespace and `options ndots:5`.
 *
 * Two readers: nginx's `resolver` takes the nameservers, for auth-url host names it resolves per
 * request (ingress-nginx users' `*.svc.cluster.local` auth URLs keep working; search domains are
 * not applied there, names must be fully qualified, as in ingress-nginx); the system lookup of
 * ExternalName names (system-lookup.ts) takes all of it, to resolve names as the pod would.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

/** What resolv.conf says, with the C library's defaults for what it leaves out. */
export interface ResolvConf {
  /** `nameserver` addresses as written (no brackets), in order, once each; scoped IPv6 left out. */
  nameservers: string[];
  /** The search list (`search`, or `domain`: the last of the two wins), without the root. */
  search: string[];
  /** Dots a name needs to be tried as written before the search list; 1 by default, at most 15. */
  ndots: number;
  /** How long one query waits for a nameserver; 5 s by default, at most 30 s. */
  timeoutMs: number;
  /** How many rounds of queries over the nameservers; 2 by default, at most 5. */
  attempts: number;
}

// glibc's limits (resolv/res_init.c); a longer search list is cut as Kubernetes allows no more.
const MAX_SEARCH_DOMAINS = 32;

/** The last well-formed `name:N` of `options`, at most `max`; `fallback` when there is none. */
function optionValue(options: readonly string[], name: string, fallback: number, max: number): number {
  let value = fallback;
  for (const option of options) {
    if (!option.startsWith(`${name}:`)) continue;
    const text = option.slice(name.length + 1);
    if (/^[0-9]{1,3}$/.test(text)) value = Math.min(Number(text), max);
  }
  return value;
}

/** Parses resolv.conf text; unknown lines and malformed values are skipped, as the C library does. */
export function parseResolvConf(text: string): ResolvConf {
  const nameservers: string[] = [];
  let search: string[] = [];
  const options: string[] = [];
  for (const line of text.split('\n')) {
    const [keyword, ...values] = line.trim().split(/\s+/);
    if (keyword === 'nameserver') {
      const address = values[0];
      // Scoped IPv6 addresses (fe80::1%eth0) cannot be written in an nginx resolver line.
      if (address === undefined || address.includes('%') || isIP(address) === 0) continue;
      if (!nameservers.includes(address)) nameservers.push(address);
    } else if (keyword === 'search' || keyword === 'domain') {
      search = (keyword === 'domain' ? values.slice(0, 1) : values)
        .map((domain) => domain.replace(/\.$/, '').toLowerCase())
        .filter((domain) => domain !== '')
        .slice(0, MAX_SEARCH_DOMAINS);
    } else if (keyword === 'options') {
      options.push(...values);
    }
  }
  return {
    nameservers,
    search,
    ndots: optionValue(options, 'ndots', 1, 15),
    timeoutMs: optionValue(options, 'timeout', 5, 30) * 1000,
    attempts: Math.max(1, optionValue(options, 'attempts', 2, 5)),
  };
}

/** The resolv.conf of `path` (default /etc/resolv.conf); the defaults alone when it cannot be read. */
export function readResolvConf(path = '/etc/resolv.conf'): ResolvConf {
  try {
    return parseResolvConf(readFileSync(path, 'utf8'));
  } catch {
    return parseResolvConf('');
  }
}

/** The `nameserver` addresses of resolv.conf text, as nginx `resolver` values (IPv6 in brackets). */
export function parseNameservers(text: string): string[] {
  return parseResolvConf(text).nameservers.map((address) => (isIP(address) === 6 ? `[${address}]` : address));
}

/** The nameservers of `path` (default /etc/resolv.conf); none when it cannot be read. */
export function readSystemNameservers(path = '/etc/resolv.conf'): string[] {
  try {
    return parseNameservers(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
}
