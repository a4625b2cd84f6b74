import { describe, expect, it } from 'vitest';
import { createPeerMatcher, parseProxyProtocolHeader } from './proxy-protocol-header.js';

const SIGNATURE = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];

function v2(command: number, family: number, body: number[]): Buffer {
  return Buffer.from([...SIGNATURE, 0x20 | command, family, body.length >> 8, body.length & 0xff, ...body]);
}

describe('parseProxyProtocolHeader', () => {
  it('reads a v1 TCP4 and TCP6 line and says how long it is', () => {
    const line = 'PROXY TCP4 203.0.113.7 192.0.2.10 40000 443\r\n';
    expect(parseProxyProtocolHeader(Buffer.from(`${line}\x16\x03\x01`))).toEqual({
      state: 'complete',
      length: line.length,
      source: { address: '203.0.113.7', port: 40000 },
      destination: { address: '192.0.2.10', port: 443 },
    });
    expect(parseProxyProtocolHeader(Buffer.from('PROXY TCP6 2001:db8::1 ::1 1 65535\r\n'))).toMatchObject({
      source: { address: '2001:db8::1', port: 1 },
      destination: { address: '::1', port: 65535 },
    });
    expect(parseProxyProtocolHeader(Buffer.from('PROXY UNKNOWN\r\n'))).toEqual({
      state: 'complete',
      length: 15,
    });
  });

  it('reads a v2 PROXY header of TCP4 and TCP6, with TLVs after the addresses, and a LOCAL one', () => {
    const tcp4 = v2(1, 0x11, [203, 0, 113, 7, 192, 0, 2, 10, 0x9c, 0x40, 0x01, 0xbb, 0x04, 0x00, 0x01, 0x00]);
    expect(parseProxyProtocolHeader(Buffer.concat([tcp4, Buffer.from('rest')]))).toEqual({
      state: 'complete',
      length: tcp4.length,
      source: { address: '203.0.113.7', port: 40000 },
      destination: { address: '192.0.2.10', port: 443 },
    });
    const address6 = [0x20, 0x01, 0x0d, 0xb8, ...Array<number>(11).fill(0), 1];
    const tcp6 = v2(1, 0x21, [...address6, ...address6, 0, 80, 1, 187]);
    expect(parseProxyProtocolHeader(tcp6)).toMatchObject({
      source: { address: '2001:db8:0:0:0:0:0:1', port: 80 },
      destination: { port: 443 },
    });
    expect(parseProxyProtocolHeader(v2(0, 0x00, []))).toEqual({ state: 'complete', length: 16 });
  });

  it('waits for more at every cut of a header', () => {
    const headers = [
      Buffer.from('PROXY TCP4 203.0.113.7 192.0.2.10 40000 443\r\n'),
      v2(1, 0x11, [203, 0, 113, 7, 192, 0, 2, 10, 0x9c, 0x40, 0x01, 0xbb]),
    ];
    for (const header of headers)
      for (let cut = 0; cut < header.length; cut += 1)
        expect(parseProxyProtocolHeader(header.subarray(0, cut)).state).toBe('incomplete');
  });

  it.each([
    ['TLS without a header', Buffer.from([0x16, 0x03, 0x01, 0x00, 0x10])],
    ['an HTTP request', Buffer.from('GET / HTTP/1.1\r\n')],
    ['a v1 line that never ends', Buffer.from(`PROXY TCP4 ${'1'.repeat(200)}`)],
    ['a v1 address of the wrong family', Buffer.from('PROXY TCP4 ::1 ::1 1 2\r\n')],
    ['a v1 port out of range', Buffer.from('PROXY TCP4 1.2.3.4 1.2.3.4 65536 2\r\n')],
    ['a v1 port with a sign', Buffer.from('PROXY TCP4 1.2.3.4 1.2.3.4 -1 2\r\n')],
    ['a v1 line with more fields', Buffer.from('PROXY TCP4 1.2.3.4 1.2.3.4 1 2 3\r\n')],
    ['a v1 family it does not know', Buffer.from('PROXY UDP4 1.2.3.4 1.2.3.4 1 2\r\n')],
    ['a v2 header of another version', Buffer.from([...SIGNATURE, 0x31, 0x11, 0, 0])],
    ['a v2 header that says it is huge', Buffer.from([...SIGNATURE, 0x21, 0x11, 0xff, 0xff])],
    ['v2 TCP4 addresses cut short', v2(1, 0x11, [1, 2, 3, 4])],
  ])('refuses %s', (_, bytes) => {
    expect(parseProxyProtocolHeader(bytes).state).toBe('invalid');
  });

  it('never throws for random bytes after a signature', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let round = 0; round < 2000; round += 1) {
      const tail = Array.from({ length: random() % 64 }, random);
      const head = round % 2 === 0 ? [...SIGNATURE] : [...Buffer.from('PROXY ')];
      expect(() => parseProxyProtocolHeader(Buffer.from([...head, ...tail]))).not.toThrow();
    }
  });
});

describe('createPeerMatcher', () => {
  it('matches addresses and CIDRs of both families, IPv4-mapped peers as IPv4', () => {
    const isTrusted = createPeerMatcher(['10.0.0.0/8', '192.0.2.1', '2001:db8::/32']);
    expect(isTrusted('10.20.30.40')).toBe(true);
    expect(isTrusted('::ffff:10.1.1.1')).toBe(true);
    expect(isTrusted('192.0.2.1')).toBe(true);
    expect(isTrusted('192.0.2.2')).toBe(false);
    expect(isTrusted('2001:db8::5')).toBe(true);
    expect(isTrusted('2001:db9::5')).toBe(false);
    expect(isTrusted(undefined)).toBe(false);
    expect(createPeerMatcher([])('127.0.0.1')).toBe(false);
  });
});
