/**
 * Host name lookups as the pod's C library makes them, without the C library. getaddrinfo runs on
 * libuv's threadpool (4 threads, shared with file system work) and cannot be stopped: a name whose
 * DNS never answers holds a thread for as long as the resolver's timeouts, attempts and search
 * domains add up to, so a tenant's few such names stalled every other lookup. This asks the DNS
 * through c-ares (node:dns `Resolver`), which runs on the event loop and can be cancelled, after
 * doing what getaddrinfo does before DNS: a numeric host is its own address (`127.1` included, as
 * inet_aton reads it), /etc/hosts comes first, and the search list and ndots of resolv.conf
 * decide which names are asked, in order (resolv.conf(5), glibc's res_nsearch).
 */
import { Resolver } from 'node:dns/promises';
import { formatIpAddress, parseIpAddress } from '@ingresskit/ingress-routes';
import { NameNotFoundError } from './errors.js';
import type { HostsFile } from './hosts-file.js';
import type { ResolvConf } from './resolv-conf.js';

/**
 * Resolves a host name to its addresses; rejects when it does not resolve (the error's `code`
 * says why: ENOTFOUND, ETIMEOUT, ESERVFAIL, ...). `signal` asks it to stop: it then rejects soon.
 */
export type LookupName = (hostname: string, options: { signal: AbortSignal }) => Promise<string[]>;

/** What a lookup reads: resolv.conf's settings and /etc/hosts. */
export interface SystemLookupConfig {
  resolvConf: ResolvConf;
  hosts: HostsFile;
}

/** Answers that send the search on to the next name (NXDOMAIN, no address record); any other error ends it. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * The names a lookup of `name` asks the DNS for, in order: a name ending in a dot only as it is;
 * otherwise with each search domain appended, and as it is: first when it has at least `ndots`
 * dots, last when it has fewer.
 */
export function listSearchNames(name: string, resolvConf: Pick<ResolvConf, 'search' | 'ndots'>): string[] {
  if (name.endsWith('.')) return [name.slice(0, -1)];
  const searched = resolvConf.search.map((domain) => `${name}.${domain}`);
  const dots = name.split('.').length - 1;
  return dots >= resolvConf.ndots ? [name, ...searched] : [...searched, name];
}

function codeOf(reason: unknown): string | undefined {
  const code = (reason as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The A and AAAA addresses of `name`; undefined when it does not exist or has none. */
async function queryAddresses(resolver: Resolver, name: string): Promise<string[] | undefined> {
  const answers = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
  if (addresses.length > 0) return addresses;
  for (const answer of answers) {
    // A timeout or a failing server ends the search, as in the C library: the next name's answer
    // would not be the one the name has.
    if (answer.status === 'rejected' && !NO_SUCH_NAME.has(codeOf(answer.reason) ?? '')) throw answer.reason;
  }
  return undefined;
}

/** A {@link LookupName} over `config`: numeric hosts, then /etc/hosts, then the DNS through the search list. */
export function createSystemLookup(config: SystemLookupConfig): LookupName {
  const { resolvConf, hosts } = config;
  return async (hostname, { signal }) => {
    const name = hostname.toLowerCase();
    const bare = name.replace(/\.$/, '');
    const numeric = parseIpAddress(bare);
    if (numeric !== undefined) return [formatIpAddress(numeric)];
    const fromHosts = hosts.get(bare);
    if (fromHosts !== undefined) return [...fromHosts];
    signal.throwIfAborted();
    // One channel per lookup, so that cancelling it stops this lookup's queries and no other's.
    const resolver = new Resolver({ timeout: resolvConf.timeoutMs, tries: resolvConf.attempts });
    if (resolvConf.nameservers.length > 0) resolver.setServers(resolvConf.nameservers);
    const cancel = () => resolver.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      for (const candidate of listSearchNames(name, resolvConf)) {
        const addresses = await queryAddresses(resolver, candidate);
        if (addresses !== undefined) return addresses;
      }
      throw new NameNotFoundError(`${hostname} not found`);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  };
}
