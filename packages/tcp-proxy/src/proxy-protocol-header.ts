/**
 * Reads the PROXY protocol header (v1 text or v2 binary, as HAProxy specifies them) a load balancer
 * sends before a connection's own bytes: how long it is and the client address it names.
 */
import { BlockList, isIP } from 'node:net';

/** An address and port a PROXY header names. */
export interface ProxyAddress {
  address: string;
  port: number;
}

/** What parseProxyProtocolHeader found at the start of the bytes received so far. */
export type ProxyHeaderParse =
  | { state: 'incomplete'; needed: number }
  | { state: 'invalid'; reason: string }
  /** `source` and `destination` are absent for `PROXY UNKNOWN`, v2 LOCAL and non-TCP families. */
  | { state: 'complete'; length: number; source?: ProxyAddress; destination?: ProxyAddress };

const V1_PREFIX = Buffer.from('PROXY ');
/** v1's longest line, CRLF included. */
const V1_MAX_LENGTH = 107;
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V2_FIXED_LENGTH = 16;
/** Addresses and TLVs of a v2 header; a load balancer sends far less. */
const V2_MAX_BODY = 1024;
const PORT = /^(?:0|[1-9][0-9]{0,4})$/;

/** Whether `bytes` (perhaps short) are the start of `prefix`, or start with it. */
function startsLike(bytes: Buffer, prefix: Buffer): boolean {
  const length = Math.min(bytes.length, prefix.length);
  return bytes.subarray(0, length).equals(prefix.subarray(0, length));
}

/** Reads a PROXY header at the start of `bytes`; never throws. */
export function parseProxyProtocolHeader(bytes: Buffer): ProxyHeaderParse {
  if (bytes.length === 0) return { state: 'incomplete', needed: 1 };
  if (startsLike(bytes, V1_PREFIX)) return parseV1(bytes);
  if (startsLike(bytes, V2_SIGNATURE)) return parseV2(bytes);
  return { state: 'invalid', reason: 'no PROXY protocol header' };
}

function parseV1(bytes: Buffer): ProxyHeaderParse {
  const end = bytes.subarray(0, V1_MAX_LENGTH).indexOf('\r\n');
  if (end < 0) {
    return bytes.length >= V1_MAX_LENGTH
      ? { state: 'invalid', reason: 'PROXY v1 line too long' }
      : { state: 'incomplete', needed: bytes.length + 1 };
  }
  const length = end + 2;
  const fields = bytes.subarray(0, end).toString('latin1').split(' ');
  if (fields[1] === 'UNKNOWN') return { state: 'complete', length };
  const [, family, source, destination, sourcePort, destinationPort, ...rest] = fields;
  const version = family === 'TCP4' ? 4 : family === 'TCP6' ? 6 : 0;
  if (
    version === 0 ||
    rest.length > 0 ||
    isIP(source ?? '') !== version ||
    isIP(destination ?? '') !== version ||
    !isPort(sourcePort) ||
    !isPort(destinationPort)
  )
    return { state: 'invalid', reason: 'malformed PROXY v1 line' };
  return {
    state: 'complete',
    length,
    source: { address: source!, port: Number(sourcePort) },
    destination: { address: destination!, port: Number(destinationPort) },
  };
}

function isPort(value: string | undefined): boolean {
  return value !== undefined && PORT.test(value) && Number(value) <= 65535;
}

function parseV2(bytes: Buffer): ProxyHeaderParse {
  if (bytes.length < V2_FIXED_LENGTH) return { state: 'incomplete', needed: V2_FIXED_LENGTH };
  const versionCommand = bytes[12]!;
  const family = bytes[13]!;
  const bodyLength = bytes.readUInt16BE(14);
  if (versionCommand >> 4 !== 2 || (versionCommand & 0x0f) > 1)
    return { state: 'invalid', reason: 'unknown PROXY v2 version or command' };
  if (bodyLength > V2_MAX_BODY) return { state: 'invalid', reason: 'PROXY v2 header too long' };
  const length = V2_FIXED_LENGTH + bodyLength;
  if (bytes.length < length) return { state: 'incomplete', needed: length };
  // LOCAL: the load balancer's own connection (a health check), no client behind it.
  if ((versionCommand & 0x0f) === 0) return { state: 'complete', length };
  const body = bytes.subarray(V2_FIXED_LENGTH, length);
  const tcp = V2_TCP_FAMILIES[family];
  // UNSPEC, UDP and unix sockets name no TCP client: the connection's own address stands.
  if (tcp === undefined) return { state: 'complete', length };
  const { size, format } = tcp;
  if (bodyLength < 2 * size + 4) return { state: 'invalid', reason: 'PROXY v2 addresses too short' };
  return {
    state: 'complete',
    length,
    source: { address: format(body.subarray(0, size)), port: body.readUInt16BE(2 * size) },
    destination: { address: format(body.subarray(size, 2 * size)), port: body.readUInt16BE(2 * size + 2) },
  };
}

/** The v2 families of TCP: the size of an address and how it is written. */
const V2_TCP_FAMILIES: Readonly<Record<number, { size: number; format: (bytes: Buffer) => string }>> = {
  0x11: { size: 4, format: formatIpv4 },
  0x21: { size: 16, format: formatIpv6 },
};

function formatIpv4(bytes: Buffer): string {
  return [...bytes].join('.');
}

function formatIpv6(bytes: Buffer): string {
  const groups: string[] = [];
  for (let at = 0; at < 16; at += 2) groups.push(bytes.readUInt16BE(at).toString(16));
  return groups.join(':');
}

/**
 * A test of whether a peer is one of `networks` (addresses or CIDRs, IPv4 or IPv6): the load
 * balancers whose PROXY header is believed. An IPv4-mapped IPv6 peer is taken as IPv4.
 */
export function createPeerMatcher(networks: readonly string[]): (peer: string | undefined) => boolean {
  const list = new BlockList();
  for (const network of networks) {
    const [address, prefix] = network.split('/');
    const family = isIP(address ?? '');
    if (family === 0) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(prefix), type);
  }
  return (peer) => {
    if (peer === undefined) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer);
    const address = mapped === null ? peer : mapped[1]!;
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}
