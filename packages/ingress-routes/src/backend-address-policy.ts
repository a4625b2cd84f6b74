/**
 * Which addresses a backend may point at. A tenant who can write a Service or an EndpointSlice in
 * one namespace must not be able to aim a route at the node or the gateway's own pod: loopback
 * reaches the controller's health, metrics and explain endpoints, link-local reaches the cloud
 * metadata service (SSRF), and the pod's own addresses reach everything the pod listens on.
 */
import { BlockList, isIP } from 'node:net';

/** What backends may point at; see DEFAULT_BACKEND_ADDRESS_POLICY. */
export interface BackendAddressPolicy {
  /** ExternalName Services are served (ingress-nginx's `--allow-external-name-services`, default true). */
  readonly allowExternalName: boolean;
  /**
   * Loopback addresses and `forbiddenAddresses` are allowed, except on `ownPorts`: only for a
   * controller whose backends run on its own machine (the demo, tests). Link-local (the cloud
   * metadata service) and unspecified addresses stay refused.
   */
  readonly allowLocalAddresses: boolean;
  /** Addresses of the gateway's own pod, refused like loopback. */
  readonly forbiddenAddresses: ReadonlySet<string>;
  /**
   * Ports the gateway itself listens on (nginx's listeners, health and metrics, the webhook). With
   * `allowLocalAddresses` they stay refused on loopback and own addresses, so a development set-up
   * cannot be aimed at the controller's endpoints or loop nginx into itself.
   */
  readonly ownPorts?: ReadonlySet<number>;
}

export const DEFAULT_BACKEND_ADDRESS_POLICY: BackendAddressPolicy = {
  allowExternalName: true,
  allowLocalAddresses: false,
  forbiddenAddresses: new Set(),
};

type LocalKind = 'loopback' | 'link-local' | 'unspecified';

const RANGES: readonly [LocalKind, BlockList][] = [
  ['loopback', blockList(['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6'])],
  ['link-local', blockList(['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6'])],
  ['unspecified', blockList(['0.0.0.0', 8, 'ipv4'], ['::', 128, 'ipv6'])],
];

function blockList(...subnets: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of subnets) list.addSubnet(network, prefix, family);
  return list;
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) stands for, else the address. */
function unmapped(address: string): string {
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

function localKindOf(address: string): LocalKind | undefined {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return RANGES.find(([, list]) => list.check(plain, type))?.[0];
}

/**
 * Why a backend may not point at `address` (an IP address or a host name) and `port` under
 * `policy`, or undefined when it may. Names are judged only by their text here (`localhost` and
 * `*.localhost` always resolve to loopback); what a name resolves to is not known at translation
 * time.
 */
export function refusedBackendAddress(
  address: string,
  port: number | undefined,
  policy: BackendAddressPolicy,
): string | undefined {
  const lower = address.toLowerCase();
  const kind = localKindOf(address);
  let reason: string;
  if (lower === 'localhost' || lower.endsWith('.localhost')) reason = `${address} is a loopback name`;
  else if (kind !== undefined)
    reason = `${address} is ${kind === 'unspecified' ? 'an' : 'a'} ${kind} address`;
  else if (policy.forbiddenAddresses.has(unmapped(lower)))
    reason = `${address} is an address of the gateway's own pod`;
  else return undefined;
  if (!policy.allowLocalAddresses || kind === 'link-local' || kind === 'unspecified') return reason;
  if (port !== undefined && policy.ownPorts?.has(port) === true)
    return `${address}:${port} is a port of the gateway itself`;
  return undefined;
}
