/**
 * An Ingress's `status.loadBalancer.ingress`: the entries written for the addresses, and whether it
 * already holds them.
 */
import { addressKey, type StatusAddress } from './addresses.js';

/** An entry of `status.loadBalancer.ingress` as read (typed model or raw JSON from a watch). */
export interface LoadBalancerEntry {
  ip?: string | null;
  hostname?: string | null;
  ipMode?: string | null;
  ports?: readonly unknown[] | null;
}

/**
 * True when an Ingress's current `status.loadBalancer.ingress` already is exactly `desired` (already
 * normalized), ignoring order. Entries with ports, an ipMode, both or neither of ip and hostname
 * differ from anything this package writes, so they get rewritten; so do duplicates.
 */
export function isStatusEqual(
  current: readonly LoadBalancerEntry[] | null | undefined,
  desired: readonly StatusAddress[],
): boolean {
  const entries = current ?? [];
  if (entries.length !== desired.length) return false;
  const currentKeys = entries.map(entryKey).sort();
  const desiredKeys = desired.map(addressKey).sort();
  return currentKeys.every((key, index) => key === desiredKeys[index]);
}

/** The status entries to write for `addresses`. */
export function toLoadBalancerEntries(
  addresses: readonly StatusAddress[],
): { ip?: string; hostname?: string }[] {
  return addresses.map((address) => ('ip' in address ? { ip: address.ip } : { hostname: address.hostname }));
}

function entryKey(entry: LoadBalancerEntry): string {
  const hasIp = typeof entry.ip === 'string' && entry.ip !== '';
  const hasHostname = typeof entry.hostname === 'string' && entry.hostname !== '';
  const hasExtras =
    (entry.ports !== undefined && entry.ports !== null) ||
    (entry.ipMode !== undefined && entry.ipMode !== null);
  if (!hasExtras && hasIp && !hasHostname) return addressKey({ ip: entry.ip! });
  if (!hasExtras && hasHostname && !hasIp) return addressKey({ hostname: entry.hostname! });
  // Never equal to a key of addressKey, which starts with "0 " or "1 ".
  return `2 ${JSON.stringify(entry)}`;
}
