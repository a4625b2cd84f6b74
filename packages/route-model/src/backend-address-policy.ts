/**
 * Which addresses a backend may point at. A tenant who can write a Service or an EndpointSlice in
 * one namespace must not be able to aim a route at the node or the gateway's own pod: loopback
 * reaches the controller's health, metrics and explain endpoints, link-local and the clouds'
 * other metadata addresses (metadata-addresses.ts) reach the node's credentials (SSRF), and the
 * pod's own addresses reach everything the pod listens on. Every address is compared in canonical
 * form (ip-address.ts), so no other spelling of the same address gets through.
 */
import {
  embeddedIpv4,
  formatIpAddress,
  isInNetwork,
  parseIpAddress,
  parseIpNetwork,
  type IpAddress,
  type IpNetwork,
} from './ip-address.js';
import { findMetadataNetwork } from './metadata-addresses.js';

/** What backends may point at; see DEFAULT_BACKEND_ADDRESS_POLICY. */
export interface BackendAddressPolicy {
  /** ExternalName Services are served (ingress-nginx's `--allow-external-name-services`, default true). */
  readonly allowExternalName: boolean;
  /**
   * Loopback addresses and `forbiddenAddresses` are allowed, except on `ownPorts`: only for a
   * controller whose backends run on its own machine (the demo, tests). Link-local, unspecified
   * and cloud metadata addresses (CLOUD_METADATA_NETWORKS) stay refused.
   */
  readonly allowLocalAddresses: boolean;
  /** Addresses of the gateway's own pod, refused like loopback; compared in canonical form, whatever their spelling. */
  readonly forbiddenAddresses: ReadonlySet<string>;
  /**
   * Ports the gateway itself listens on (nginx's listeners, the ssl-passthrough proxy's internal
   * one, stream services, health and metrics, the webhook). With `allowLocalAddresses` they stay
   * refused on loopback and own addresses, so a development set-up cannot be aimed at the
   * controller's endpoints or loop nginx into itself.
   */
  readonly ownPorts?: ReadonlySet<number>;
}

export const DEFAULT_BACKEND_ADDRESS_POLICY: BackendAddressPolicy = {
  allowExternalName: true,
  allowLocalAddresses: false,
  forbiddenAddresses: new Set(),
};

type LocalKind = 'loopback' | 'link-local' | 'unspecified';

const RANGES: readonly (readonly [LocalKind, IpNetwork[]])[] = [
  ['loopback', [parseIpNetwork('127.0.0.0/8'), parseIpNetwork('::1/128')]],
  ['link-local', [parseIpNetwork('169.254.0.0/16'), parseIpNetwork('fe80::/10')]],
  ['unspecified', [parseIpNetwork('0.0.0.0/8'), parseIpNetwork('::/128')]],
];

function localKindOf(address: IpAddress): LocalKind | undefined {
  return RANGES.find(([, networks]) => networks.some((network) => isInNetwork(address, network)))?.[0];
}

/** The canonical forms of each set of own addresses, computed once per set. */
const canonicalOwnAddresses = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

function isOwnAddress(address: IpAddress, policy: BackendAddressPolicy): boolean {
  let own = canonicalOwnAddresses.get(policy.forbiddenAddresses);
  if (own === undefined) {
    const parsed = [...policy.forbiddenAddresses].map(parseIpAddress);
    own = new Set(parsed.filter((entry) => entry !== undefined).map(formatIpAddress));
    canonicalOwnAddresses.set(policy.forbiddenAddresses, own);
  }
  return own.has(formatIpAddress(address));
}

/** Why `address` is refused, and whether `allowLocalAddresses` lifts that (loopback, own addresses). */
interface Refusal {
  readonly reason: string;
  readonly isLocal: boolean;
}

function judgeAddress(shown: string, address: IpAddress, policy: BackendAddressPolicy): Refusal | undefined {
  const kind = localKindOf(address);
  if (kind !== undefined)
    return {
      reason: `${shown} is ${kind === 'unspecified' ? 'an' : 'a'} ${kind} address`,
      isLocal: kind === 'loopback',
    };
  const metadata = findMetadataNetwork(address);
  if (metadata !== undefined)
    return { reason: `${shown} is a cloud metadata address (${metadata.service})`, isLocal: false };
  if (isOwnAddress(address, policy))
    return { reason: `${shown} is an address of the gateway's own pod`, isLocal: true };
  return undefined;
}

function refusalOf(address: string, policy: BackendAddressPolicy): Refusal | undefined {
  const lower = address.toLowerCase();
  if (lower === 'localhost' || lower.endsWith('.localhost'))
    return { reason: `${address} is a loopback name`, isLocal: true };
  const parsed = parseIpAddress(address);
  if (parsed === undefined) return undefined;
  const canonical = formatIpAddress(parsed);
  // Say which address another spelling stands for: `0x7f.1` is read as 127.0.0.1.
  const shown = canonical === lower ? address : `${address} (${canonical})`;
  const refusal = judgeAddress(shown, parsed, policy);
  if (refusal !== undefined) return refusal;
  const embedded = embeddedIpv4(parsed);
  if (embedded === undefined) return undefined;
  const carried = judgeAddress(formatIpAddress(embedded), embedded, policy);
  return carried === undefined
    ? undefined
    : { reason: `${shown} carries ${carried.reason}`, isLocal: carried.isLocal };
}

/**
 * Why a backend may not point at `address` (an IP address in any spelling, or a host name) and
 * `port` under `policy`, or undefined when it may. Addresses are compared in canonical form
 * (ip-address.ts: `127.1`, `::ffff:7f00:1` and `fd00:0:0:0:0:0:0:2` are the addresses they spell).
 * Names are judged only by their text here (`localhost` and `*.localhost` always resolve to
 * loopback); what a name resolves to is not known at translation time.
 */
export function refusedBackendAddress(
  address: string,
  port: number | undefined,
  policy: BackendAddressPolicy,
): string | undefined {
  const refusal = refusalOf(address, policy);
  if (refusal === undefined) return undefined;
  if (!policy.allowLocalAddresses || !refusal.isLocal) return refusal.reason;
  if (port !== undefined && policy.ownPorts?.has(port) === true)
    return `${address.includes(':') ? `[${address}]` : address}:${port} is a port of the gateway itself`;
  return undefined;
}
