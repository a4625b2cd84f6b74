/**
 * IP addresses in one canonical spelling, so that a rule that compares addresses cannot be walked
 * around by writing the same address another way. The C library's inet_aton, and so getaddrinfo
 * and every socket API built on it (Node's `net.connect` included), reads IPv4 in more forms than
 * dotted decimal: `127.1`, `0x7f.0.0.1`, `0177.0.0.1`, `2130706433`. IPv6 may be written with or
 * without zero compression, in either case, in brackets, with a zone id, and an IPv4-mapped IPv6
 * address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) connects to the IPv4 address it maps.
 */

/** A parsed IP address: its family and its bytes (4 for IPv4, 16 for IPv6). */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: readonly number[];
}

/** A network: the address of its first host and the length of its prefix in bits. */
export interface IpNetwork {
  readonly address: IpAddress;
  readonly prefix: number;
}

// Longer text is no address in any spelling (an IPv6 address with a long zone id is, but the zone
// is dropped before this limit applies).
const MAX_ADDRESS_LENGTH = 45;

/**
 * One inet_aton part: decimal, octal after a leading 0, hex after 0x (glibc reads a bare `0x` as
 * 0); undefined when it is none of these.
 */
function parseLoosePart(part: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]*$/.test(part)) return Number.parseInt(part, 8);
  if (/^[1-9][0-9]*$/.test(part)) return Number(part);
  return undefined;
}

/** IPv4 as inet_aton reads it: one to four parts, the last filling the bytes left. */
function parseIpv4(text: string): IpAddress | undefined {
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    // 12 characters hold every 32-bit value in any base; longer ones overflow.
    if (part.length > 12) return undefined;
    const value = parseLoosePart(part);
    if (value === undefined) return undefined;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((value) => value > 255)) return undefined;
  const lastBytes = 4 - values.length;
  if (last >= 2 ** (8 * lastBytes)) return undefined;
  const bytes = [...values];
  for (let shift = 8 * (lastBytes - 1); shift >= 0; shift -= 8)
    bytes.push(Math.floor(last / 2 ** shift) % 256);
  return { family: 4, bytes };
}

/** Strict dotted decimal, as the tail of an IPv6 address is written (inet_pton: no leading zeros). */
function parseDottedQuad(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(?:0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return undefined;
    bytes.push(Number(part));
  }
  return bytes;
}

/** The 16-bit groups of one side of `::` (or of the whole address), or undefined. */
function parseGroups(text: string, mayEndInIpv4: boolean): number[] | undefined {
  if (text === '') return [];
  const pieces = text.split(':');
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (mayEndInIpv4 && index === pieces.length - 1 && piece.includes('.')) {
      const quad = parseDottedQuad(piece);
      if (quad === undefined) return undefined;
      groups.push(quad[0]! * 256 + quad[1]!, quad[2]! * 256 + quad[3]!);
    } else if (/^[0-9a-f]{1,4}$/.test(piece)) {
      groups.push(Number.parseInt(piece, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIpv6(text: string): IpAddress | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  let groups: number[];
  if (halves.length === 1) {
    const all = parseGroups(text, true);
    if (all?.length !== 8) return undefined;
    groups = all;
  } else {
    const head = parseGroups(halves[0]!, false);
    const tail = parseGroups(halves[1]!, true);
    // `::` stands for at least one group of zeros.
    if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  return { family: 6, bytes: groups.flatMap((group) => [group >> 8, group & 0xff]) };
}

/**
 * Parses IPv6 in its standard text forms only (hex groups, one `::`, a dotted-decimal tail; any
 * case), its bytes as written: no brackets, no zone id, an IPv4-mapped address left mapped.
 * Undefined for anything else.
 */
export function parseIpv6Address(text: string): IpAddress | undefined {
  if (text.length > MAX_ADDRESS_LENGTH) return undefined;
  return parseIpv6(text.toLowerCase());
}

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:0:0/96`) maps, else the address itself. */
function unmapIpv4(address: IpAddress): IpAddress {
  if (address.family === 4 || !MAPPED_PREFIX.every((byte, i) => address.bytes[i] === byte)) return address;
  return { family: 4, bytes: address.bytes.slice(12) };
}

/**
 * Parses an IP address in any of the spellings of the module comment; an IPv4-mapped IPv6 address
 * comes back as the IPv4 address it maps, and a zone id (`fe80::1%eth0`) is dropped. Undefined
 * for anything else, host names included.
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  let body = text.toLowerCase();
  if (body.startsWith('[') && body.endsWith(']')) body = body.slice(1, -1);
  const zone = body.indexOf('%');
  if (zone >= 0 && body.includes(':')) body = body.slice(0, zone);
  if (body === '' || body.length > MAX_ADDRESS_LENGTH) return undefined;
  const parsed = body.includes(':') ? parseIpv6(body) : parseIpv4(body);
  return parsed === undefined ? undefined : unmapIpv4(parsed);
}

/** The canonical text of an address: dotted decimal, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatIpAddress(address: IpAddress): string {
  const { bytes } = address;
  if (address.family === 4) return bytes.join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes[i]! * 256 + bytes[i + 1]!);
  // RFC 5952 4.2: the longest run of two or more zero groups, the first of equal ones.
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8;) {
    if (groups[start] !== 0) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** The canonical text of `text` when it is an IP address in any spelling (see parseIpAddress), else undefined. */
export function canonicalAddress(text: string): string | undefined {
  const parsed = parseIpAddress(text);
  return parsed === undefined ? undefined : formatIpAddress(parsed);
}

/** Parses `address/prefix` (the address in any spelling); throws on a malformed network, for tables written in code. */
export function parseIpNetwork(cidr: string): IpNetwork {
  const slash = cidr.lastIndexOf('/');
  const address = parseIpAddress(cidr.slice(0, slash));
  const prefix = Number(cidr.slice(slash + 1));
  const bits = address?.family === 4 ? 32 : 128;
  if (slash < 0 || address === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > bits)
    throw new RangeError(`not a network: ${cidr}`);
  return { address, prefix };
}

/** Whether `address` is in `network` (never across families). */
export function isInNetwork(address: IpAddress, network: IpNetwork): boolean {
  if (address.family !== network.address.family) return false;
  const full = Math.floor(network.prefix / 8);
  for (let i = 0; i < full; i += 1) if (address.bytes[i] !== network.address.bytes[i]) return false;
  const rest = network.prefix % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (address.bytes[full]! & mask) === (network.address.bytes[full]! & mask);
}

// IPv6 that carries an IPv4 address in its last 32 bits and may reach it: the NAT64 well-known
// prefix (RFC 6052: a NAT64 gateway connects to the embedded address) and the deprecated
// IPv4-compatible form (RFC 4291 2.5.5.1).
const EMBEDDING_NETWORKS = [parseIpNetwork('64:ff9b::/96'), parseIpNetwork('::/96')];

/**
 * The IPv4 address an IPv6 address of the NAT64 well-known prefix or the IPv4-compatible form
 * carries, or undefined (`::` and `::1` carry none: they are IPv6's own unspecified and loopback).
 */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.family !== 6 || !EMBEDDING_NETWORKS.some((network) => isInNetwork(address, network)))
    return undefined;
  const tail = address.bytes.slice(12);
  const isZeroPrefix = address.bytes.slice(0, 12).every((byte) => byte === 0);
  if (isZeroPrefix && tail[0] === 0 && tail[1] === 0 && tail[2] === 0 && tail[3]! <= 1) return undefined;
  return { family: 4, bytes: tail };
}
