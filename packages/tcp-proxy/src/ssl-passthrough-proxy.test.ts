import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findPassthroughEndpoints, SslPassthroughProxy } from './ssl-passthrough-proxy.js';

let nginx: Server;
let proxy: SslPassthroughProxy;
/** What the stand-in for nginx received first on each connection. */
let received: Promise<string>;

beforeEach(async () => {
  let deliver: (text: string) => void = () => undefined;
  received = new Promise((resolve) => (deliver = resolve));
  nginx = createServer((socket) =>
    socket.once('data', (data: Buffer) => {
      deliver(data.toString('latin1'));
      socket.destroy();
    }),
  );
  nginx.listen(0, '127.0.0.1');
  await once(nginx, 'listening');
  proxy = new SslPassthroughProxy({
    port: 0,
    host: '127.0.0.1',
    nginxPort: (nginx.address() as AddressInfo).port,
  });
  await proxy.start();
});

afterEach(async () => {
  await proxy.stop();
  nginx.close();
});

/** Opens a connection to the proxy, writes `header`, then starts a TLS handshake for x.test. */
async function handshakeAfter(header: string): Promise<Socket> {
  const socket = connect({ port: proxy.port, host: '127.0.0.1' });
  await once(socket, 'connect');
  socket.write(header);
  connectTls({ socket, servername: 'x.test' }).on('error', () => undefined);
  return socket;
}

describe('SslPassthroughProxy with the PROXY protocol', () => {
  it("hands nginx the header's client when the peer is trusted", async () => {
    proxy.setProxyProtocol({ trustedNetworks: ['127.0.0.0/8'], headerTimeoutMs: 5_000 });
    await handshakeAfter('PROXY TCP4 203.0.113.7 192.0.2.10 40000 443\r\n');
    const text = await received;
    expect(text.startsWith('PROXY TCP4 203.0.113.7 192.0.2.10 40000 443\r\n\x16\x03')).toBe(true);
  });

  it('hands nginx the peer when it is not trusted, without the header it sent', async () => {
    proxy.setProxyProtocol({ trustedNetworks: ['10.0.0.0/8'], headerTimeoutMs: 5_000 });
    const socket = await handshakeAfter('PROXY TCP4 203.0.113.7 192.0.2.10 40000 443\r\n');
    const text = await received;
    expect(text).toMatch(
      new RegExp(
        `^PROXY TCP4 127\\.0\\.0\\.1 127\\.0\\.0\\.1 ${socket.localPort} ${proxy.port}\\r\\n\\x16\\x03`,
      ),
    );
    expect(text).not.toContain('203.0.113.7');
  });

  it('closes a connection without a header, or whose header is late', async () => {
    proxy.setProxyProtocol({ trustedNetworks: ['0.0.0.0/0'], headerTimeoutMs: 50 });
    const direct = await handshakeAfter('');
    await once(direct, 'close');
    const silent = connect({ port: proxy.port, host: '127.0.0.1' });
    await once(silent, 'close');
    expect(proxy.counters).toMatchObject({ refused: 2, toNginx: 0 });
  });

  it('takes TLS at once again when turned off', async () => {
    proxy.setProxyProtocol({ trustedNetworks: ['0.0.0.0/0'], headerTimeoutMs: 50 });
    proxy.setProxyProtocol(undefined);
    await handshakeAfter('');
    const text = await received;
    expect(text).toMatch(/^PROXY TCP4 127\.0\.0\.1 127\.0\.0\.1 \d+ \d+\r\n/);
    // The ClientHello follows the line: a TLS handshake record.
    expect(text.charCodeAt(text.indexOf('\n') + 1)).toBe(0x16);
  });
});

describe('findPassthroughEndpoints', () => {
  const exact = [{ address: '10.0.0.1', port: 443 }];
  const wild = [{ address: '10.0.0.2', port: 443 }];
  const hosts = new Map([
    ['pass.apps.test', exact],
    ['*.apps.test', wild],
  ]);

  it('takes the most specific match across the passthrough hosts and the names nginx serves', () => {
    const servedByNginx = (hostname: string) =>
      hostname === 'shop.apps.test' || hostname === 'pass.apps.test';
    expect(findPassthroughEndpoints(hosts, 'pass.apps.test', servedByNginx)).toBe(exact);
    expect(findPassthroughEndpoints(hosts, 'shop.apps.test', servedByNginx)).toBeUndefined();
    expect(findPassthroughEndpoints(hosts, 'other.apps.test', servedByNginx)).toBe(wild);
    expect(findPassthroughEndpoints(hosts, 'a.b.apps.test', servedByNginx)).toBeUndefined();
    expect(findPassthroughEndpoints(hosts, 'shop.apps.test')).toBe(wild);
    expect(findPassthroughEndpoints(hosts, undefined, servedByNginx)).toBeUndefined();
  });
});
