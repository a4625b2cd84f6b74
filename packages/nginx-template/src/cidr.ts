/**
 * CIDR parsing for source allowlists. The result is the network's bytes as hex plus the prefix
 * length, which the Lua router compares with the client's binary address; parsing happens here,
 * once, so workers never parse text per request.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** A parsed network: `hex` holds 8 (IPv4) or 32 (IPv6) hex digits, host bits cleared. */
export interface ParsedCidr {
  hex: string;
  bits: number;
}

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

function ipv6Bytes(address: string): number[] | undefined {
  let text = address;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const v4 = text.slice(lastColon + 1);
    if (!isIPv4(v4)) return undefined;
    tail = ipv4Bytes(v4);
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const rest = halves.length === 2 && halves[1] !== '' ? halves[1]!.split(':') : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  if (tail.length > 0) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * Parses `10.0.0.0/8`, `2001:db8::/32` or a single address (a /32 or /128). Undefined for
 * anything else, including zone ids, whitespace and prefix lengths out of range: the caller must
 * treat such an entry as matching no client (fail closed).
 */
export function parseCidr(text: string): ParsedCidr | undefined {
  if (typeof text !== 'string') return undefined;
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const prefix = slash === -1 ? undefined : text.slice(slash + 1);
  let bytes: number[] | undefined;
  if (isIPv4(address)) bytes = ipv4Bytes(address);
  else if (isIPv6(address) && !address.includes('%')) bytes = ipv6Bytes(address);
  if (bytes === undefined) return undefined;
  const max = bytes.length * 8;
  if (prefix !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(prefix)) return undefined;
  const bits = prefix === undefined ? max : Number(prefix);
  if (bits > max) return undefined;
  const masked = bytes.map((byte, index) => {
    const keep = Math.max(0, Math.min(8, bits - index * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return { hex: masked.map((byte) => byte.toString(16).padStart(2, '0')).join(''), bits };
}
