/**
 * The TLS relay as this package ships it: its worker thread started from the package's own file
 * (through tsx from source), a real TLS backend and a real unix socket. The controller's
 * apps/controller/test/tls-relay.integration.test.ts goes through every setting on the wire.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSelfSignedCertificate,
  relaySocketName,
  type BackendTlsRelay,
} from '@ingresskit/nginx-template';
import { relayDirectoryOf, TlsRelay } from './tls-relay.js';
import type { RelaySocket } from './tls-relay-plan.js';

const backendCertificate = createSelfSignedCertificate({ commonName: 'backend.internal' });
let prefix: string;
let backend: Server;
let backendPort: number;
const relay = new TlsRelay();

beforeAll(async () => {
  prefix = await mkdtemp(join(tmpdir(), 'tcp-proxy-relay-'));
  await relay.start(prefix);
  // Answers with the server name the relay sent, then closes.
  backend = createServer(
    { cert: backendCertificate.certificatePem, key: backendCertificate.privateKeyPem },
    (socket: TLSSocket) => socket.end(`hello ${String(socket.servername)}`),
  );
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  backendPort = (backend.address() as AddressInfo).port;
});

afterAll(async () => {
  await relay.stop();
  backend?.close();
  await rm(prefix, { recursive: true, force: true });
});

/** The one socket of relay `settings` towards the backend. */
function socketTo(id: string, overrides: Partial<BackendTlsRelay> = {}): Map<string, RelaySocket> {
  const settings: BackendTlsRelay = {
    id,
    verify: false,
    depth: 1,
    protocols: ['TLSv1.3'],
    ciphers: 'DEFAULT',
    serverName: 'backend.internal',
    sendServerName: true,
    ...overrides,
  };
  const name = relaySocketName(id, '127.0.0.1', backendPort);
  return new Map([[name, { name, relay: settings, address: '127.0.0.1', port: backendPort }]]);
}

/** Everything the relay socket `name` answers before it closes. */
function readAll(name: string): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const client = connect({ path: join(relayDirectoryOf(prefix), name) });
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    client.on('error', () => undefined);
    client.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

describe('TlsRelay', () => {
  it('relays plain text to TLS with SNI from its worker thread, and removes a socket no route names', async () => {
    const sockets = socketTo('00000000000000000001');
    await relay.open(sockets, 5_000);
    const [name] = sockets.keys();
    expect(await readAll(name!)).toBe('hello backend.internal');
    await relay.retain(new Map());
    expect(existsSync(join(relayDirectoryOf(prefix), name!))).toBe(false);
  });

  it('verifies a backend whose self-signed certificate is its own CA, with no intermediate', async () => {
    // node:crypto's certificate has no keyCertSign: Node gives it as three certificates, not one.
    const sockets = socketTo('00000000000000000003', {
      verify: true,
      caCertificatesPem: backendCertificate.certificatePem,
    });
    await relay.open(sockets, 5_000);
    expect(await readAll([...sockets.keys()][0]!)).toBe('hello backend.internal');
  });

  it('closes a connection whose backend no trusted CA signed, before a byte', async () => {
    const otherCa = createSelfSignedCertificate({ commonName: 'other-ca' });
    const sockets = socketTo('00000000000000000002', {
      verify: true,
      caCertificatesPem: otherCa.certificatePem,
    });
    await relay.open(sockets, 5_000);
    expect(await readAll([...sockets.keys()][0]!)).toBe('');
  });
});
