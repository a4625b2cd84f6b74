/**
 * The TLS relay (@ingresskit/tcp-proxy) on its own (its worker thread, real unix sockets, real TLS
 * backends, certificates made by openssl, as the controller's backend TLS tests make them): bytes
 * both ways with half-close and backpressure, the relay's settings on the wire (client
 * certificate, SNI, verification), sockets made before and removed after use, and a relay that
 * serves while the controller's event loop is blocked.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { relaySocketName, type BackendTlsRelay } from '@ingresskit/nginx-template';
import { relayDirectoryOf, TlsRelay, type RelaySocket } from '@ingresskit/tcp-proxy';
import { createLogger } from '../src/logger.js';
import { findFreePort } from '../src/ports.js';
import { createTempDir, eventually } from './harness.js';
import { useCertificateMaker, type CertificatePair } from './openssl-certificates.js';

const certificates = useCertificateMaker();
const backendCa = certificates.selfSigned('backend-ca', '/CN=Backend CA');
const otherCa = certificates.selfSigned('other-ca', '/CN=Other CA');
const clientCa = certificates.selfSigned('client-ca', '/CN=Client CA');
const backendCertificate = certificates.signedBy(backendCa, 'backend', '/CN=backend', ['backend.internal']);
const intermediate = certificates.signedBy(backendCa, 'intermediate', '/CN=Intermediate', [], { ca: true });
const chained = certificates.signedBy(intermediate, 'chained', '/CN=chained', ['backend.internal']);
/** The backend's certificate after one intermediate, as the backend sends them. */
const chainedBackend = { ...chained, cert: chained.cert + intermediate.cert };
const gateway = certificates.signedBy(clientCa, 'gateway', '/CN=gateway');

let prefix: { dir: string; remove: () => Promise<void> };
let relay: TlsRelay;
const backends: Server[] = [];

beforeAll(async () => {
  prefix = await createTempDir();
  relay = new TlsRelay({ logger: createLogger({ level: 'silent' }) });
  await relay.start(prefix.dir);
});

afterEach(async () => {
  await relay.retain(new Map());
});

afterAll(async () => {
  await relay?.stop();
  for (const server of backends) server.close();
  await prefix?.remove();
});

/** A TLS backend asking for client certificates of the client CA; `onSocket` gets each connection. */
async function startBackend(
  certificate: CertificatePair,
  onSocket: (socket: TLSSocket) => void,
  options: { allowHalfOpen?: boolean } = {},
): Promise<number> {
  const server = createTlsServer(
    {
      cert: certificate.cert,
      key: certificate.key,
      ca: clientCa.cert,
      requestCert: true,
      rejectUnauthorized: false,
      allowHalfOpen: options.allowHalfOpen ?? false,
    },
    onSocket,
  );
  backends.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Answers each connection with what it saw of the relay's TLS, then closes it. */
function describeTls(socket: TLSSocket): void {
  socket.end(
    JSON.stringify({
      client: socket.getPeerCertificate().subject?.CN ?? null,
      serverName: (socket as TLSSocket & { servername?: string | false }).servername || null,
      protocol: socket.getProtocol(),
    }),
  );
}

/** Resolves once something accepts connections on `port`; rejects otherwise. */
function isListening(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve();
    });
    socket.on('error', reject);
  });
}

let ids = 0;
function relaySettings(overrides: Partial<BackendTlsRelay> = {}): BackendTlsRelay {
  ids += 1;
  return {
    id: ids.toString(16).padStart(20, '0'),
    verify: true,
    depth: 1,
    caCertificatesPem: backendCa.cert,
    protocols: ['TLSv1.2', 'TLSv1.3'],
    ciphers: 'DEFAULT',
    serverName: 'backend.internal',
    sendServerName: true,
    clientCertificate: { certificatePem: gateway.cert, privateKeyPem: gateway.key },
    ...overrides,
  };
}

function socketsOf(settings: BackendTlsRelay, port: number): Map<string, RelaySocket> {
  const name = relaySocketName(settings.id, '127.0.0.1', port);
  return new Map([[name, { name, relay: settings, address: '127.0.0.1', port }]]);
}

function pathOf(sockets: Map<string, RelaySocket>): string {
  return join(relayDirectoryOf(prefix.dir), [...sockets.keys()][0]!);
}

/**
 * Connects to a relay socket, writes `data` and half-closes; resolves with all it received once
 * the relay closed the connection (a reset too: the relay resets what it refuses).
 */
function exchange(path: string, data: string | Buffer = ''): Promise<Buffer> {
  return new Promise((resolve) => {
    const client = connect({ path, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    client.on('error', () => undefined);
    client.on('close', () => resolve(Buffer.concat(chunks)));
    client.end(data);
  });
}

describe('TlsRelay', () => {
  it('opens TLS with the client certificate, SNI and verification, only for sockets asked for', async () => {
    const port = await startBackend(backendCertificate, describeTls);
    const settings = relaySettings();
    const sockets = socketsOf(settings, port);
    await relay.open(sockets, 5_000);
    expect(JSON.parse((await exchange(pathOf(sockets))).toString())).toEqual({
      client: 'gateway',
      serverName: 'backend.internal',
      protocol: 'TLSv1.3',
    });
    const mode = (await stat(pathOf(sockets))).mode & 0o777;
    expect(mode & 0o006).toBe(0o006);
    expect(await readdir(relayDirectoryOf(prefix.dir))).toEqual([...sockets.keys()]);
    await relay.retain(new Map());
    expect(existsSync(pathOf(sockets))).toBe(false);
  });

  it('closes the connection before sending a byte when verification fails', async () => {
    let received = 0;
    const port = await startBackend(chainedBackend, (socket) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        socket.end('answer');
      });
    });
    for (const settings of [
      relaySettings({ caCertificatesPem: otherCa.cert }),
      relaySettings({ serverName: 'elsewhere.internal' }),
      relaySettings({ depth: 0 }),
    ]) {
      const sockets = socketsOf(settings, port);
      await relay.open(sockets, 5_000);
      expect((await exchange(pathOf(sockets), 'GET / HTTP/1.1\r\n\r\n')).length).toBe(0);
    }
    expect(received).toBe(0);
    // One intermediate is within nginx's default depth.
    const sockets = socketsOf(relaySettings({ depth: 1 }), port);
    await relay.open(sockets, 5_000);
    expect((await exchange(pathOf(sockets), 'GET / HTTP/1.1\r\n\r\n')).toString()).toBe('answer');
  });

  it('passes a half-close on both ways, and every byte of large bodies', async () => {
    // Echoes everything, and says how much once the relay passed the client's end on.
    const port = await startBackend(
      backendCertificate,
      (socket) => {
        let count = 0;
        socket.on('data', (chunk: Buffer) => {
          count += chunk.length;
          socket.write(chunk);
        });
        socket.on('end', () => socket.end(`|${count}`));
      },
      { allowHalfOpen: true },
    );
    const sockets = socketsOf(relaySettings({ verify: false, caCertificatesPem: undefined }), port);
    await relay.open(sockets, 5_000);
    const body = Buffer.alloc(8 * 1024 * 1024, 'x');
    const answer = await exchange(pathOf(sockets), body);
    expect(answer.length).toBe(body.length + `|${body.length}`.length);
    expect(answer.subarray(body.length).toString()).toBe(`|${body.length}`);
  });

  it('holds a client back while its backend does not read, rather than buffer', async () => {
    const paused: TLSSocket[] = [];
    const port = await startBackend(backendCertificate, (socket) => {
      socket.pause();
      paused.push(socket);
    });
    const sockets = socketsOf(relaySettings(), port);
    await relay.open(sockets, 5_000);
    const client = connect(pathOf(sockets));
    const chunk = Buffer.alloc(64 * 1024);
    let written = 0;
    // Writes until the kernel and the relay stop taking bytes, or 64 MiB went in.
    await new Promise<void>((resolve) => {
      const fill = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!client.write(chunk)) {
            const stalled = setTimeout(resolve, 500);
            client.once('drain', () => {
              clearTimeout(stalled);
              fill();
            });
            return;
          }
        }
        resolve();
      };
      client.on('connect', fill);
    });
    client.destroy();
    for (const socket of paused) socket.destroy();
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it("serves while the controller's event loop is blocked", async () => {
    // The backend runs in a process of its own: this thread is about to block.
    const port = await findFreePort();
    const server: ChildProcess = spawn(
      'openssl',
      [
        's_server',
        '-quiet',
        '-www',
        '-accept',
        `127.0.0.1:${port}`,
        ...['-cert', backendCertificate.certFile],
      ].concat(['-key', backendCertificate.keyFile]),
      { stdio: 'ignore' },
    );
    try {
      const sockets = socketsOf(relaySettings({ clientCertificate: undefined }), port);
      await relay.open(sockets, 5_000);
      await eventually(() => isListening(port));
      const curl = [
        '-s',
        '-m',
        '10',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '--unix-socket',
        pathOf(sockets),
      ];
      // Synchronous: nothing else runs on this thread until curl is done.
      expect(execFileSync('curl', [...curl, 'http://relay/']).toString()).toBe('200');
    } finally {
      server.kill();
    }
  });

  it('makes no socket whose settings OpenSSL refuses, and goes on with the others', async () => {
    const port = await startBackend(backendCertificate, describeTls);
    const refused = socketsOf(relaySettings({ ciphers: 'NO-SUCH-CIPHER' }), port);
    const good = socketsOf(relaySettings(), port);
    await relay.open(new Map([...refused, ...good]), 5_000);
    expect(existsSync(pathOf(refused))).toBe(false);
    expect(JSON.parse((await exchange(pathOf(good))).toString())).toMatchObject({ client: 'gateway' });
  });
});
