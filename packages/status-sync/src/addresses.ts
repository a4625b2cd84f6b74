/** The addresses an Ingress status publishes, and where each comes from: flag, Service or node. */
import { isIP } from 'node:net';
import type { V1Node, V1Service } from '@kubernetes/client-node';

/** One entry of `status.loadBalancer.ingress` as this package writes it: an IP or a hostname. */
export type StatusAddress = { readonly ip: string } | { readonly hostname: string };

/** `{ ip }` when `value` parses as an IPv4/IPv6 address, else `{ hostname }`. */
export function toStatusAddress(value: string): StatusAddress {
  return isIP(value) === 0 ? { hostname: value } : { ip: value };
}

/**
 * Sorts and de-duplicates addresses: IPs first, then hostnames, each by plain string order. The order
 * is ingress-nginx's (hostname, then IP), so taking over from it rewrites no status.
 */
export function normalizeAddresses(addresses: Iterable<StatusAddress>): StatusAddress[] {
  const byKey = new Map<string, StatusAddress>();
  for (const address of addresses) byKey.set(addressKey(address), address);
  return [...byKey.keys()].sort(compareStrings).map((key) => byKey.get(key)!);
}

/**
 * Splits `--publish-status-address` (comma separated, spaces allowed) into addresses; an entry that
 * parses as an IP becomes an IP, any other a hostname. Empty entries are dropped.
 */
export function parsePublishStatusAddress(value: string | readonly string[]): StatusAddress[] {
  const entries = typeof value === 'string' ? value.split(',') : value;
  return normalizeAddresses(
    entries
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .map(toStatusAddress),
  );
}

/**
 * The addresses a Service publishes, by type (a missing type is ClusterIP, as the API server defaults):
 * ExternalName → its external name; ClusterIP → the cluster IP (none for headless); NodePort → its
 * `externalIPs`, else the cluster IP; LoadBalancer → each `status.loadBalancer.ingress` entry (IP when
 * set, else hostname) plus `externalIPs`. Sorted and de-duplicated; an unknown type gives none.
 */
export function addressesFromService(service: V1Service): StatusAddress[] {
  const spec = service.spec;
  const externalIPs = (spec?.externalIPs ?? []).filter(isPresent).map(toStatusAddress);
  switch (spec?.type ?? 'ClusterIP') {
    case 'ExternalName':
      return isPresent(spec?.externalName) ? [{ hostname: spec.externalName }] : [];
    case 'ClusterIP':
      return clusterIpAddresses(service);
    case 'NodePort':
      return externalIPs.length > 0 ? normalizeAddresses(externalIPs) : clusterIpAddresses(service);
    case 'LoadBalancer': {
      const fromStatus = (service.status?.loadBalancer?.ingress ?? []).flatMap(loadBalancerEntryAddress);
      return normalizeAddresses([...fromStatus, ...externalIPs]);
    }
    default:
      return [];
  }
}

/**
 * The address a node is reached at: its ExternalIP, else its InternalIP; with
 * `preferInternalIp` (ingress-nginx's `--report-node-internal-ip-address`) the other way round.
 * Undefined when the node reports neither.
 */
export function nodeAddress(node: V1Node, preferInternalIp: boolean): StatusAddress | undefined {
  const order = preferInternalIp ? ['InternalIP', 'ExternalIP'] : ['ExternalIP', 'InternalIP'];
  const addresses = node.status?.addresses ?? [];
  for (const type of order) {
    const found = addresses.find((address) => address.type === type && isPresent(address.address));
    if (found !== undefined) return toStatusAddress(found.address);
  }
  return undefined;
}

/** A stable text key for an address; also its sort key (IPs sort before hostnames). */
export function addressKey(address: StatusAddress): string {
  return 'ip' in address ? `0 ${address.ip}` : `1 ${address.hostname}`;
}

function clusterIpAddresses(service: V1Service): StatusAddress[] {
  const clusterIP = service.spec?.clusterIP;
  // "None" marks a headless Service: there is no address to publish.
  return isPresent(clusterIP) && clusterIP !== 'None' ? [toStatusAddress(clusterIP)] : [];
}

function loadBalancerEntryAddress(entry: { ip?: string; hostname?: string }): StatusAddress[] {
  if (isPresent(entry.ip)) return [{ ip: entry.ip }];
  if (isPresent(entry.hostname)) return [{ hostname: entry.hostname }];
  return [];
}

function isPresent(value: string | undefined | null): value is string {
  return typeof value === 'string' && value !== '';
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
