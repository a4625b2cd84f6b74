import { createServer, type AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_CLIENT_HELLO_BYTES, parseClientHello } from './client-hello.js';
import { formatProxyProtocolV1, findPassthroughEndpoints } from './ssl-passthrough-proxy.js';

/** The first bytes Node's TLS client sends for `servername` (undefined: no SNI), as a server sees them. */
async function captureClientHello(servername: string | undefined): Promise<Buffer> {
  const server = createServer();
  const captured = new Promise<Buffer>((resolve) => {
    server.on('connection', (socket) => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        const all = Buffer.concat(chunks);
        if (all.length >= 5 && all.length >= 5 + all.readUInt16BE(3)) {
          resolve(all);
          socket.destroy();
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect({
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    ...(servername === undefined ? {} : { servername }),
    rejectUnauthorized: false,
  });
  client.on('error', () => undefined);
  const hello = await captured;
  client.destroy();
  server.close();
  return hello;
}

/** `hello`'s handshake split into TLS records of at most `size` bytes. */
function splitIntoRecords(hello: Buffer, size: number): Buffer {
  const body = hello.subarray(5);
  const records: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const part = body.subarray(at, at + size);
    const header = Buffer.from([0x16, 0x03, 0x01, 0, 0]);
    header.writeUInt16BE(part.length, 3);
    records.push(header, part);
  }
  return Buffer.concat(records);
}

/** A small deterministic generator, so a failure reproduces. */
function createRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

let hello: Buffer;
let helloWithoutSni: Buffer;

beforeAll(async () => {
  hello = await captureClientHello('Secure.Example.com');
  helloWithoutSni = await captureClientHello(undefined);
});

describe('parseClientHello', () => {
  it('reads the server name of a real ClientHello, in lower case', () => {
    expect(parseClientHello(hello)).toEqual({ state: 'complete', serverName: 'secure.example.com' });
  });

  it('answers no server name when the client sent none', () => {
    expect(parseClientHello(helloWithoutSni)).toEqual({ state: 'complete', serverName: undefined });
  });

  it('reads a ClientHello split over several records', () => {
    expect(parseClientHello(splitIntoRecords(hello, 7))).toEqual({
      state: 'complete',
      serverName: 'secure.example.com',
    });
  });

  it('waits for more at every cut of a ClientHello, and never completes early', () => {
    for (const bytes of [hello, splitIntoRecords(hello, 100)]) {
      for (let length = 0; length < bytes.length; length++) {
        const parsed = parseClientHello(bytes.subarray(0, length));
        expect(parsed.state).toBe('incomplete');
        // Waiting for `needed` bytes never waits past the end of the hello.
        if (parsed.state === 'incomplete') expect(parsed.needed).toBeGreaterThan(length);
        if (parsed.state === 'incomplete') expect(parsed.needed).toBeLessThanOrEqual(bytes.length);
      }
    }
  });

  it('refuses what is not TLS at once', () => {
    expect(parseClientHello(Buffer.from('GET / HTTP/1.1\r\n')).state).toBe('invalid');
    expect(parseClientHello(Buffer.from([0x47])).state).toBe('invalid');
    expect(parseClientHello(Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n')).state).toBe('invalid');
  });

  it('refuses a handshake that is not a ClientHello, or a record of length 0', () => {
    const serverHello = Buffer.from(hello);
    serverHello[5] = 0x02;
    expect(parseClientHello(serverHello).state).toBe('invalid');
    expect(parseClientHello(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x00])).state).toBe('invalid');
  });

  it('refuses a ClientHello that says it is longer than the limit, before it arrives', () => {
    const header = Buffer.from([0x16, 0x03, 0x01, 0x40, 0x00, 0x01, 0x01, 0x00, 0x00]);
    expect(parseClientHello(header)).toEqual({
      state: 'invalid',
      reason: `ClientHello longer than ${MAX_CLIENT_HELLO_BYTES} bytes`,
    });
  });

  it('refuses a stream of tiny records that never completes within the limit', () => {
    const handshake = Buffer.alloc(Math.ceil(MAX_CLIENT_HELLO_BYTES / 6) + 100);
    handshake[0] = 0x01;
    handshake.writeUIntBE(MAX_CLIENT_HELLO_BYTES - 4, 1, 3);
    const records = splitIntoRecords(Buffer.concat([Buffer.alloc(5), handshake]), 1);
    expect(records.length).toBeGreaterThan(MAX_CLIENT_HELLO_BYTES + 20);
    expect(parseClientHello(records).state).toBe('invalid');
  });

  it('refuses a server name that is not a host name', () => {
    const index = hello.indexOf('Secure.Example.com');
    const bad = Buffer.from(hello);
    bad.write('Secure.Examp/e.com', index);
    expect(parseClientHello(bad)).toEqual({ state: 'invalid', reason: 'server name is not a DNS host name' });
  });

  it('never throws and never reads past the end for corrupted ClientHellos', () => {
    const random = createRandom(42);
    const outcomes = new Set<string>();
    for (let round = 0; round < 5000; round++) {
      const bytes = Buffer.from(hello);
      const flips = 1 + Math.floor(random() * 4);
      for (let i = 0; i < flips; i++) {
        // Mostly past the record header, where the lengths are.
        const at = 5 + Math.floor(random() * (bytes.length - 5));
        bytes[at] = Math.floor(random() * 256);
      }
      const cut = random() < 0.3 ? bytes.subarray(0, Math.floor(random() * bytes.length)) : bytes;
      const parsed = parseClientHello(cut);
      outcomes.add(parsed.state);
      if (parsed.state === 'complete' && parsed.serverName !== undefined)
        expect(parsed.serverName).toMatch(/^[a-z0-9.-]+$/);
    }
    expect(outcomes).toEqual(new Set(['complete', 'incomplete', 'invalid']));
  });

  it('never throws for random bytes after a valid record header', () => {
    const random = createRandom(7);
    for (let round = 0; round < 2000; round++) {
      const length = Math.floor(random() * 600);
      const body = Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
      body[0] = 0x01;
      const header = Buffer.from([0x16, 0x03, 0x01, 0, 0]);
      header.writeUInt16BE(Math.max(1, length), 3);
      expect(() => parseClientHello(Buffer.concat([header, body]))).not.toThrow();
    }
  });
});

describe('formatProxyProtocolV1', () => {
  it('writes IPv4 (also IPv4-mapped) and IPv6 connections, and UNKNOWN without addresses', () => {
    expect(
      formatProxyProtocolV1({ address: '::ffff:10.0.0.1', port: 5000 }, { address: '127.0.0.1', port: 443 }),
    ).toBe('PROXY TCP4 10.0.0.1 127.0.0.1 5000 443\r\n');
    expect(
      formatProxyProtocolV1({ address: '2001:db8::1', port: 5000 }, { address: '10.0.0.2', port: 443 }),
    ).toBe('PROXY TCP6 2001:db8::1 ::ffff:10.0.0.2 5000 443\r\n');
    expect(
      formatProxyProtocolV1({ address: undefined, port: undefined }, { address: '::1', port: 443 }),
    ).toBe('PROXY UNKNOWN\r\n');
  });
});

describe('findPassthroughEndpoints', () => {
  it('matches exact names first, then a wildcard for one more label', () => {
    const exact = [{ address: '10.0.0.1', port: 443 }];
    const wildcard = [{ address: '10.0.0.2', port: 443 }];
    const hosts = new Map([
      ['a.example.com', exact],
      ['*.example.com', wildcard],
    ]);
    expect(findPassthroughEndpoints(hosts, 'a.example.com')).toBe(exact);
    expect(findPassthroughEndpoints(hosts, 'b.example.com')).toBe(wildcard);
    expect(findPassthroughEndpoints(hosts, 'c.b.example.com')).toBeUndefined();
    expect(findPassthroughEndpoints(hosts, undefined)).toBeUndefined();
  });
});
