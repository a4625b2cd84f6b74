// The README's proxy on free ports, with a TLS backend behind a passthrough host and a stand-in
// for nginx; then the TLS relay, whose worker thread runs the package's own built file.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, createServer as createTlsServer } from 'node:tls';
import { createSelfSignedCertificate, relaySocketName } from '@ingresskit/nginx-template';
import { relayDirectoryOf, SslPassthroughProxy, TlsRelay } from '@ingresskit/tcp-proxy';

const certificate = createSelfSignedCertificate({ commonName: 'db.example.com' });
const backend = createTlsServer(
  { cert: certificate.certificatePem, key: certificate.privateKeyPem },
  (socket) => socket.end(`backend ${String(socket.servername)}`),
);
backend.listen(0, '127.0.0.1');
await once(backend, 'listening');
const backendPort = (backend.address() as AddressInfo).port;
let nginxSaw = '';
const nginx = createServer((socket) =>
  socket.once('data', (data: Buffer) => {
    nginxSaw = data.toString('latin1');
    socket.destroy();
  }),
);
nginx.listen(0, '127.0.0.1');
await once(nginx, 'listening');

const proxy = new SslPassthroughProxy({
  port: 0,
  host: '127.0.0.1',
  nginxPort: (nginx.address() as AddressInfo).port,
});
proxy.setHosts(new Map([['db.example.com', [{ address: '127.0.0.1', port: backendPort }]]]));
await proxy.start();

/** What a TLS client for `servername` reads through the proxy. */
function readThroughProxy(servername: string): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const client = connectTls({ port: proxy.port, host: '127.0.0.1', servername, rejectUnauthorized: false });
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    client.on('error', () => undefined);
    client.on('close', () => resolve(Buffer.concat(chunks).toString()));
    setTimeout(() => client.destroy(), 2_000).unref();
  });
}

try {
  assert.equal(await readThroughProxy('db.example.com'), 'backend db.example.com');
  await readThroughProxy('www.example.com');
  // The PROXY line, then the ClientHello's TLS record header (handshake, version 3.x).
  const [line, hello] = nginxSaw.split('\r\n', 2);
  assert.match(line ?? '', /^PROXY TCP4 127\.0\.0\.1 127\.0\.0\.1 \d+ \d+$/);
  assert.equal(hello?.slice(0, 2), '\x16\x03');
  assert.deepEqual(proxy.counters, { passedThrough: 1, toNginx: 1, refused: 0 });

  const prefix = await mkdtemp(join(tmpdir(), 'tcp-proxy-smoke-'));
  const relay = new TlsRelay();
  try {
    await relay.start(prefix);
    const id = '00000000000000000001';
    const name = relaySocketName(id, '127.0.0.1', backendPort);
    const settings = {
      id,
      verify: false,
      depth: 1,
      protocols: ['TLSv1.3' as const],
      ciphers: 'DEFAULT',
      serverName: 'db.example.com',
      sendServerName: true,
    };
    await relay.open(
      new Map([[name, { name, relay: settings, address: '127.0.0.1', port: backendPort }]]),
      5_000,
    );
    const plain = connect({ path: join(relayDirectoryOf(prefix), name) });
    const chunks: Buffer[] = [];
    plain.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(plain, 'close');
    assert.equal(Buffer.concat(chunks).toString(), 'backend db.example.com');
  } finally {
    await relay.stop();
    await rm(prefix, { recursive: true, force: true });
  }
} finally {
  await proxy.stop();
  backend.close();
  nginx.close();
}
