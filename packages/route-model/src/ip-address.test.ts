import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  canonicalAddress,
  embeddedIpv4,
  formatIpAddress,
  isInNetwork,
  parseIpAddress,
  parseIpNetwork,
  parseIpv6Address,
} from './ip-address.js';

describe('canonicalAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0X7F.0.0.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['169.16689662', '169.254.169.254'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
  ])('reads the IPv4 spelling %s as %s, as inet_aton does', (text, canonical) => {
    expect(canonicalAddress(text)).toBe(canonical);
  });

  it.each([
    '256.0.0.1',
    '1.2.3.4.5',
    '1..2',
    '1.2.3.',
    '08.0.0.1',
    '0x1g',
    '4294967296',
    '1.16777216',
    'a.b',
    '',
  ])('reads %j as no address', (text) => {
    expect(canonicalAddress(text)).toBeUndefined();
  });

  it.each([
    ['fd00:0:0:0:0:0:0:2', 'fd00::2'],
    ['FD00::0002', 'fd00::2'],
    ['fd00:0000:0000:0000:0000:0000:0000:0002', 'fd00::2'],
    ['[fd00::2]', 'fd00::2'],
    ['fe80::1%eth0', 'fe80::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::', '::'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:0:0:2:0:0:3:4', '1::2:0:0:3:4'],
    ['1:2:3:4:5:6:0:8', '1:2:3:4:5:6:0:8'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', '169.254.169.254'],
    ['64:ff9b::169.254.169.254', '64:ff9b::a9fe:a9fe'],
  ])('reads the IPv6 spelling %s as %s', (text, canonical) => {
    expect(canonicalAddress(text)).toBe(canonical);
  });

  it.each([
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    ':1:2:3:4:5:6:7',
    '12345::',
    '::ffff:1.2.3',
    '::1.2.3.04',
    'g::',
  ])('reads %j as no address', (text) => {
    expect(canonicalAddress(text)).toBeUndefined();
  });

  it('agrees with Node on every IPv6 address it accepts', () => {
    for (const text of [
      'fd00:0:0:0:0:0:0:2',
      '1:0:0:2:0:0:0:3',
      '::ffff:1.2.3.4',
      '2001:db8::',
      'a:b:c:d:e:f:1:2',
    ]) {
      expect(isIP(text)).toBe(6);
      const hostname = new URL(`http://[${text}]/`).hostname.slice(1, -1);
      // The URL parser compresses as RFC 5952 does, but leaves mapped addresses in IPv6.
      expect(canonicalAddress(text)).toBe(canonicalAddress(hostname));
    }
  });

  it('reads IPv4 as the system resolver does', async () => {
    for (const text of ['127.1', '0x7f.1', '0177.0.0.1', '2130706433', '10.66051']) {
      const [answer] = await lookup(text, { all: true, family: 4 });
      expect(canonicalAddress(text)).toBe(answer!.address);
    }
  });
});

describe('formatIpAddress', () => {
  it('gives back the text parseIpAddress read, for canonical text', () => {
    for (const text of ['10.0.0.1', 'fd00::2', '2001:db8::1:0:0:1', '::1', 'fe80::fc:ff:fe00:1'])
      expect(formatIpAddress(parseIpAddress(text)!)).toBe(text);
  });
});

describe('isInNetwork', () => {
  it('matches prefixes bit by bit, never across families', () => {
    const network = parseIpNetwork('fe80::/10');
    expect(isInNetwork(parseIpAddress('febf::1')!, network)).toBe(true);
    expect(isInNetwork(parseIpAddress('fec0::1')!, network)).toBe(false);
    expect(isInNetwork(parseIpAddress('169.254.1.1')!, parseIpNetwork('169.254.0.0/16'))).toBe(true);
    expect(isInNetwork(parseIpAddress('::ffff:169.254.1.1')!, parseIpNetwork('169.254.0.0/16'))).toBe(true);
    expect(isInNetwork(parseIpAddress('169.254.1.1')!, parseIpNetwork('::/0'))).toBe(false);
  });

  it('throws for a network written wrong in code', () => {
    expect(() => parseIpNetwork('10.0.0.0')).toThrow(RangeError);
    expect(() => parseIpNetwork('10.0.0.0/33')).toThrow(RangeError);
  });
});

describe('embeddedIpv4', () => {
  it('finds the IPv4 address of NAT64 and IPv4-compatible addresses, not of :: or ::1', () => {
    expect(formatIpAddress(embeddedIpv4(parseIpAddress('64:ff9b::7f00:1')!)!)).toBe('127.0.0.1');
    expect(formatIpAddress(embeddedIpv4(parseIpAddress('::10.0.0.1')!)!)).toBe('10.0.0.1');
    expect(embeddedIpv4(parseIpAddress('::1')!)).toBeUndefined();
    expect(embeddedIpv4(parseIpAddress('::')!)).toBeUndefined();
    expect(embeddedIpv4(parseIpAddress('2001:db8::7f00:1')!)).toBeUndefined();
  });
});

describe('parseIpv6Address', () => {
  it('reads the standard forms as written, mapped addresses left mapped', () => {
    expect(parseIpv6Address('::FFFF:10.0.0.1')?.bytes).toEqual([
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 0, 0, 1,
    ]);
    expect(parseIpv6Address('2001:db8::1')?.family).toBe(6);
  });

  it('answers undefined for brackets, zones, IPv4 and loose spellings', () => {
    for (const text of ['[::1]', 'fe80::1%eth0', '10.0.0.1', '1::2::3', '::ffff:010.0.0.1', '12345::']) {
      expect(parseIpv6Address(text)).toBeUndefined();
    }
  });
});
