import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from './api-client.js';
import { createStore } from './store.js';
import { waitFor } from '../test/harness.js';

/** Lists `path` page by page (`limit` items each) and returns how many pages it took. */
async function listAllPages(client: ApiClient, path: string, limit: number): Promise<number> {
  let pages = 0;
  let continueToken: string | undefined;
  do {
    const page = await client.list({ path, limit, continueToken });
    pages += 1;
    continueToken = page.continueToken;
  } while (continueToken !== undefined);
  return pages;
}

const configMaps = Array.from({ length: 10 }, (_, i) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `settings-${i}`, namespace: 'default' },
  data: { index: String(i) },
}));

describe('list pages over plain HTTP (local API server)', () => {
  it('share one TCP connection, and a stopped store closes it', async () => {
    const server = await startLocalApiServer({ manifests: configMaps });
    try {
      const client = createApiClient(server.kubeConfig());
      expect(await listAllPages(client, '/api/v1/configmaps', 3)).toBe(4);
      expect(server.stats().connections).toBe(1);
      await client.close();
      await waitFor(() => server.stats().openConnections === 0, 'the closed client to drop its connection');

      // A store owns the client it makes: after stop() no list connection stays open (the idle
      // pooled one would otherwise live on for the server's keep-alive of 30 s).
      const store = createStore(server.kubeConfig(), { pageSize: 3 });
      await store.start();
      await store.stop();
      await waitFor(
        () => server.stats().openConnections === 0,
        'the stopped store to close its connections',
        3_000,
      );
    } finally {
      await server.stop();
    }
  });
});

describe('list pages over TLS with client certificates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ingresskit-list-dispatcher-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const makeCertificate = (
    name: string,
    subject: string,
    altNames?: string,
  ): { cert: string; key: string } => {
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    args.push(
      '-days',
      '2',
      '-subj',
      subject,
      '-keyout',
      join(dir, `${name}.key`),
      '-out',
      join(dir, `${name}.crt`),
    );
    if (altNames) args.push('-addext', `subjectAltName=${altNames}`);
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    return {
      cert: readFileSync(join(dir, `${name}.crt`), 'utf8'),
      key: readFileSync(join(dir, `${name}.key`), 'utf8'),
    };
  };
  const serverCertificate = makeCertificate('server', '/CN=apiserver', 'DNS:localhost,IP:127.0.0.1');
  const first = makeCertificate('first', '/CN=first-client');
  const second = makeCertificate('second', '/CN=second-client');

  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  /** An HTTPS server answering any list with 10 ConfigMaps in pages, recording sockets and requests. */
  async function startTlsServer() {
    const sockets: { socket: Socket; closed: boolean }[] = [];
    const requests: { connection: number; clientName: string; authorization: string | undefined }[] = [];
    server = createServer(
      {
        cert: serverCertificate.cert,
        key: serverCertificate.key,
        requestCert: true,
        rejectUnauthorized: false,
      },
      (request, response) => {
        const url = new URL(request.url ?? '/', 'https://localhost');
        const limit = Number(url.searchParams.get('limit') ?? 10);
        const start = Number(url.searchParams.get('continue') ?? 0);
        const socket = request.socket as TLSSocket;
        requests.push({
          connection: sockets.findIndex((entry) => entry.socket === socket),
          clientName: String(socket.getPeerCertificate().subject?.CN),
          authorization: request.headers.authorization,
        });
        const end = Math.min(start + limit, configMaps.length);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            kind: 'ConfigMapList',
            apiVersion: 'v1',
            metadata: { resourceVersion: '7', ...(end < configMaps.length ? { continue: String(end) } : {}) },
            items: configMaps.slice(start, end),
          }),
        );
      },
    );
    server.on('secureConnection', (socket: TLSSocket) => {
      const entry = { socket: socket as Socket, closed: false };
      sockets.push(entry);
      socket.on('close', () => (entry.closed = true));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    return { url: `https://127.0.0.1:${port}`, sockets, requests };
  }

  /** kubeconfig contents for the TLS server, the client certificate read from files in `dir`. */
  function kubeConfigOptions(url: string, options: { token: string; tlsServerName?: string }) {
    return {
      clusters: [
        {
          name: 'tls',
          server: url,
          caData: Buffer.from(serverCertificate.cert).toString('base64'),
          tlsServerName: options.tlsServerName,
          skipTLSVerify: false,
        },
      ],
      users: [
        {
          name: 'tls',
          certFile: join(dir, 'client.crt'),
          keyFile: join(dir, 'client.key'),
          token: options.token,
        },
      ],
      contexts: [{ name: 'tls', cluster: 'tls', user: 'tls' }],
      currentContext: 'tls',
    };
  }

  it('reuse one connection until the certificate files, or the cluster, change', async () => {
    const { url, sockets, requests } = await startTlsServer();
    writeFileSync(join(dir, 'client.crt'), first.cert);
    writeFileSync(join(dir, 'client.key'), first.key);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions(kubeConfigOptions(url, { token: 'one' }));
    const client = createApiClient(kubeConfig);

    expect(await listAllPages(client, '/api/v1/configmaps', 3)).toBe(4);
    expect(sockets).toHaveLength(1);
    expect(requests.map((r) => r.clientName)).toEqual(Array(4).fill('first-client'));

    // A new token is a header: it is sent at once, over the same connection.
    kubeConfig.loadFromOptions(kubeConfigOptions(url, { token: 'two' }));
    await listAllPages(client, '/api/v1/configmaps', 5);
    expect(sockets).toHaveLength(1);
    expect(requests.slice(4).map((r) => r.authorization)).toEqual(['Bearer two', 'Bearer two']);

    // Rotated certificate files: the next page presents the new certificate on a new connection,
    // and the connection with the old one is closed.
    writeFileSync(join(dir, 'client.crt'), second.cert);
    writeFileSync(join(dir, 'client.key'), second.key);
    await listAllPages(client, '/api/v1/configmaps', 3);
    expect(sockets).toHaveLength(2);
    expect(requests.slice(6).map((r) => [r.connection, r.clientName])).toEqual(
      Array(4).fill([1, 'second-client']),
    );
    await waitFor(() => sockets[0]!.closed, 'the replaced dispatcher to close its connection');

    // Another TLS server name is another cluster input: a new connection again.
    kubeConfig.loadFromOptions(kubeConfigOptions(url, { token: 'two', tlsServerName: 'localhost' }));
    await listAllPages(client, '/api/v1/configmaps', 5);
    expect(sockets).toHaveLength(3);
    expect(requests.slice(10).map((r) => r.connection)).toEqual([2, 2]);

    await client.close();
    await waitFor(() => sockets.every((entry) => entry.closed), 'the closed client to drop its connections');
  });
});
