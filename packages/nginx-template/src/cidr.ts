/**
 * CIDR parsing for source allowlists. The result is the network's bytes as hex plus the prefix
 * length, which the Lua router compares with the client's binary address; parsing happens here,
 * once, so workers never parse text per request.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { parseIpv6Address } from '@ingresskit/route-model';

/** A parsed network: `hex` holds 8 (IPv4) or 32 (IPv6) hex digits, host bits cleared. */
export interface ParsedCidr {
  hex: string;
  bits: number;
}

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
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
  else if (isIPv6(address) && !address.includes('%')) bytes = parseIpv6Address(address)?.bytes.slice();
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
