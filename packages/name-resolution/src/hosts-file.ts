/**
 * /etc/hosts, which the C library asks before DNS (`hosts: files dns`). In a pod the kubelet writes
 * it: localhost, the pod's own name and address, and the pod spec's `hostAliases`, which an
 * operator may use to give ExternalName names fixed addresses. The system lookup
 * (system-lookup.ts) reads it as getaddrinfo did.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

/** The addresses of each name (lower case), in the order of the file, once each. */
export type HostsFile = ReadonlyMap<string, readonly string[]>;

/** Parses hosts(5) text: `address name [aliases...]` per line, `#` to the end of a line a comment. */
export function parseHostsFile(text: string): HostsFile {
  const hosts = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (address === undefined || isIP(address) === 0) continue;
    for (const name of names) {
      const key = name.toLowerCase().replace(/\.$/, '');
      const addresses = hosts.get(key) ?? [];
      if (!addresses.includes(address)) addresses.push(address);
      hosts.set(key, addresses);
    }
  }
  return hosts;
}

/** The hosts file of `path` (default /etc/hosts); empty when it cannot be read. */
export function readHostsFile(path = '/etc/hosts'): HostsFile {
  try {
    return parseHostsFile(readFileSync(path, 'utf8'));
  } catch {
    return new Map();
  }
}
