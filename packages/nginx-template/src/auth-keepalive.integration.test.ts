/**
 * auth-keepalive in real nginx: checks of a route with keepalive reuse connections to the auth
 * service (counted where the service accepts them), up to `requests` checks each; a route without
 * it opens one per check. A host name is resolved by nginx first (through a test DNS server here),
 * then its checked address is used for kept connections, over TLS too (with the host as TLS
 * name). Answers with a body, chunked or not, and a service closing a kept connection do not break
 * the checks; an answer from nginx's own port is refused as without keep-alive.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExternalAuthKeepalive, RouteTable } from '@ingresskit/route-model';
import { startEchoBackend, type TestBackend } from './testing/backends.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';
import { createSelfSignedCertificate } from './self-signed-certificate.js';

let app: TestBackend;
/** The auth service: 401 for /deny*, a chunked 200 for /chunked*, else 200; counts connections. */
let auth: Server;
let connections = 0;
let lastRequestId = '';
let dns: UdpSocket;
/** The same service over TLS: its connections, and the TLS name of the last check. */
let tlsAuth: TlsServer;
let tlsConnections = 0;
let lastServerName: string | false | null = null;
/** An HTTP/1.0 service that answers each request without keep-alive but leaves the connection open. */
let oldAuth: TcpServer;
let oldConnections = 0;
let plane: DataPlane;

/** A DNS server that answers every A question with 127.0.0.1 and every other with no address. */
function startDns(): Promise<UdpSocket> {
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    let end = 12;
    while (query[end]! !== 0) end += query[end]! + 1;
    const question = query.subarray(12, end + 5);
    const isA = query.readUInt16BE(end + 1) === 1;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(0x8180, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(isA ? 1 : 0, 6);
    const answer = isA
      ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4, 127, 0, 0, 1])
      : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, answer]), peer.port, peer.address);
  });
  return new Promise((resolve) => socket.bind(0, '127.0.0.1', () => resolve(socket)));
}

const KEEP: ExternalAuthKeepalive = { connections: 8, requests: 1000, timeoutSeconds: 60 };

function createTable(ports: { http: number; https: number }): RouteTable {
  const authPort = (auth.address() as AddressInfo).port;
  const tlsPort = (tlsAuth.address() as AddressInfo).port;
  const guarded = (hostname: string, url: string, keepalive?: ExternalAuthKeepalive) => ({
    hostname,
    hostnameMatch: 'exact' as const,
    routes: [
      createTestRoute(hostname, {
        action: { type: 'forward', backends: [{ backend: 'app', weight: 1 }] },
        policy: { externalAuth: keepalive === undefined ? { url } : { url, keepalive } },
      }),
    ],
  });
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      guarded('kept.example.com', `http://127.0.0.1:${authPort}/check`, KEEP),
      guarded('few.example.com', `http://127.0.0.1:${authPort}/check`, { ...KEEP, requests: 2 }),
      guarded('shared.example.com', `http://127.0.0.1:${authPort}/check`, { ...KEEP, shareRequestId: true }),
      guarded('named.example.com', `http://auth.test.:${authPort}/check`, KEEP),
      guarded('each.example.com', `http://127.0.0.1:${authPort}/check`),
      guarded('tls.example.com', `https://auth.test:${tlsPort}/check`, KEEP),
      guarded('old.example.com', `http://127.0.0.1:${(oldAuth.address() as AddressInfo).port}/check`, KEEP),
      guarded('own-port.example.com', `http://127.0.0.1:${ports.http}/check`, KEEP),
    ],
    tls: [],
    certificates: [],
    backends: [{ id: 'app', endpoints: [{ address: app.address, port: app.port }] }],
  };
}

beforeAll(async () => {
  app = await startEchoBackend('app');
  const answer: RequestListener = (incoming, response) => {
    lastRequestId = String(incoming.headers['x-request-id'] ?? '');
    const uri = String(incoming.headers['x-original-uri'] ?? '');
    if (uri.startsWith('/deny')) {
      response.statusCode = 401;
      response.end('denied, with a body to skip');
    } else if (uri.startsWith('/chunked')) {
      response.write('part one, ');
      response.end('part two');
    } else {
      response.end('ok');
    }
  };
  auth = createServer(answer);
  auth.on('connection', () => (connections += 1));
  const certificate = createSelfSignedCertificate({ commonName: 'auth.test' });
  tlsAuth = createTlsServer(
    { cert: certificate.certificatePem, key: certificate.privateKeyPem },
    (incoming, response) => {
      lastServerName = (incoming.socket as TLSSocket).servername;
      answer(incoming, response);
    },
  );
  tlsAuth.on('secureConnection', () => (tlsConnections += 1));
  await new Promise<void>((resolve) => tlsAuth.listen(0, '127.0.0.1', resolve));
  oldAuth = createTcpServer((socket) => {
    oldConnections += 1;
    socket.on('data', (data) => {
      if (data.includes('\r\n\r\n')) socket.write('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
  });
  await new Promise<void>((resolve) => oldAuth.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => auth.listen(0, '127.0.0.1', resolve));
  dns = await startDns();
  const ports = await allocateListenerPorts();
  const table = createTable(ports);
  const resolver = `127.0.0.1:${dns.address().port}`;
  // One worker: each worker has its own pools.
  plane = await startDataPlane({
    table,
    ports,
    workers: 1,
    render: { localAuthPeers: true, resolvers: [resolver] },
  });
  expect((await plane.push(table)).status).toBe(201);
});

afterAll(async () => {
  await plane?.stop();
  await app?.close();
  auth?.closeAllConnections();
  await new Promise((resolve) => auth?.close(resolve));
  tlsAuth?.closeAllConnections();
  oldAuth?.close();
  await new Promise((resolve) => tlsAuth?.close(resolve));
  dns?.close();
});

/** The statuses of `count` requests one after another, and the connections the service accepted meanwhile. */
async function ask(host: string, count: number, path = '/'): Promise<{ statuses: number[]; opened: number }> {
  const before = connections;
  const statuses: number[] = [];
  for (let index = 0; index < count; index += 1) statuses.push((await plane.request({ host, path })).status);
  return { statuses, opened: connections - before };
}

describe('auth-keepalive in nginx', () => {
  it('reuses one connection to the auth service across checks', async () => {
    const { statuses, opened } = await ask('kept.example.com', 10);
    expect(statuses).toEqual(Array(10).fill(200));
    expect(opened).toBeLessThanOrEqual(1);
  });

  it('opens a connection per check without it', async () => {
    const { statuses, opened } = await ask('each.example.com', 5);
    expect(statuses).toEqual(Array(5).fill(200));
    expect(opened).toBe(5);
  });

  it('keeps a connection for auth-keepalive-requests checks only', async () => {
    const { statuses, opened } = await ask('few.example.com', 6);
    expect(statuses).toEqual(Array(6).fill(200));
    expect(opened).toBe(3);
  });

  it('reads answers with a body, chunked or not, and keeps their connection', async () => {
    const denied = await ask('kept.example.com', 3, '/deny');
    expect(denied.statuses).toEqual([401, 401, 401]);
    const chunked = await ask('kept.example.com', 3, '/chunked');
    expect(chunked.statuses).toEqual([200, 200, 200]);
    expect(denied.opened + chunked.opened).toBe(0);
  });

  it('opens a new connection when the service closed the kept one', async () => {
    await ask('kept.example.com', 1);
    auth.closeAllConnections();
    const { statuses, opened } = await ask('kept.example.com', 3);
    expect(statuses).toEqual([200, 200, 200]);
    expect(opened).toBe(1);
  });

  it('keeps connections to the address nginx resolved for a host name', async () => {
    // The first check goes through nginx, which resolves the name; later ones reuse a connection.
    const { statuses, opened } = await ask('named.example.com', 6);
    expect(statuses).toEqual(Array(6).fill(200));
    expect(opened).toBe(2);
  });

  it('keeps TLS connections, with the host as TLS name', async () => {
    const before = tlsConnections;
    const { statuses } = await ask('tls.example.com', 6);
    expect(statuses).toEqual(Array(6).fill(200));
    // The first check through nginx, then one kept connection.
    expect(tlsConnections - before).toBe(2);
    expect(lastServerName).toBe('auth.test');
  });

  it('keeps no connection after an HTTP/1.0 answer without keep-alive', async () => {
    const before = oldConnections;
    const { statuses } = await ask('old.example.com', 3);
    expect(statuses).toEqual([200, 200, 200]);
    expect(oldConnections - before).toBe(3);
  });

  it("refuses an answer from nginx's own port, as without keep-alive", async () => {
    expect((await plane.request({ host: 'own-port.example.com' })).status).toBe(500);
  });

  it("sends the backend's X-Request-ID with auth-keepalive-share-vars", async () => {
    await plane.request({ host: 'shared.example.com', headers: { 'x-request-id': 'client-id' } });
    expect(lastRequestId).toBe('client-id');
    await plane.request({ host: 'kept.example.com', headers: { 'x-request-id': 'client-id' } });
    expect(lastRequestId).not.toBe('client-id');
  });
});
