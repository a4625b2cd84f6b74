/**
 * External authentication in real nginx, from the data plane's side: the router's subrequest
 * reaches the auth service, over HTTP/1.1 and HTTP/2, and an answer from an address an auth
 * service may not have (loopback unless allowed, nginx's own listener ports, the refused networks
 * and own addresses and ports of authPeerRules) is never used, whatever its status: what protects
 * against a host name that resolves there. The route's request headers (auth-proxy-set-headers)
 * reach the service, replacing the client's.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type ClientHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteTable } from '@ingresskit/route-model';
import type { RenderOptions } from './settings.js';
import { startEchoBackend, type TestBackend } from './testing/backends.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';

let app: TestBackend;
let auth: TestBackend;
let authV6: TestBackend;
/** An auth service on every address, reached at this machine's own address. */
let authAll: TestBackend;
/** An IPv4 address of this machine's, not loopback: what a pod's own address is; none on some machines. */
const machineAddress = Object.values(networkInterfaces())
  .flatMap((entries) => entries ?? [])
  .find((entry) => !entry.internal && entry.family === 'IPv4')?.address;
/** An auth service that lets everything through and keeps the headers of the last check. */
let recorder: Server;
let recorded: IncomingHttpHeaders = {};

function createTable(ports: { http: number; https: number }): RouteTable {
  const guarded = (hostname: string, url: string, requestHeaders?: { name: string; value: string }[]) => ({
    hostname,
    hostnameMatch: 'exact' as const,
    routes: [
      createTestRoute(hostname, {
        action: { type: 'forward', backends: [{ backend: 'app', weight: 1 }] },
        policy: { externalAuth: requestHeaders === undefined ? { url } : { url, requestHeaders } },
      }),
    ],
  });
  const recorderPort = (recorder.address() as AddressInfo).port;
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      guarded('auth.example.com', `http://127.0.0.1:${auth.port}/check`),
      guarded('own-port.example.com', `http://127.0.0.1:${ports.http}/`),
      guarded('v6.example.com', `http://[::1]:${authV6.port}/check`),
      guarded('headers.example.com', `http://127.0.0.1:${recorderPort}/check`, [
        { name: 'X-Auth-Tenant', value: 'shop' },
        { name: 'X-Empty', value: '' },
      ]),
      ...(machineAddress === undefined
        ? []
        : [guarded('own.example.com', `http://${machineAddress}:${authAll.port}/check`)]),
    ],
    tls: [],
    certificates: [],
    backends: [{ id: 'app', endpoints: [{ address: app.address, port: app.port }] }],
  };
}

async function startPlane(
  localAuthPeers: boolean,
  authPeerRules?: RenderOptions['authPeerRules'],
): Promise<DataPlane> {
  const ports = await allocateListenerPorts();
  const table = createTable(ports);
  const render = { localAuthPeers, ...(authPeerRules === undefined ? {} : { authPeerRules }) };
  const plane = await startDataPlane({ table, ports, render });
  expect((await plane.push(table)).status).toBe(201);
  return plane;
}

async function http2Status(port: number, host: string): Promise<number> {
  const session: ClientHttp2Session = connect(`https://127.0.0.1:${port}`, {
    servername: host,
    rejectUnauthorized: false,
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':path': '/', ':authority': host });
      stream.on('response', (headers) => resolve(Number(headers[':status'])));
      stream.on('error', reject);
      stream.resume();
      stream.end();
    });
  } finally {
    session.close();
  }
}

let strict: DataPlane;
let local: DataPlane;
/** Local peers allowed, but ::1 refused as a metadata network would be, this machine's address own, authAll's port own. */
let guarded: DataPlane;

beforeAll(async () => {
  app = await startEchoBackend('app');
  auth = await startEchoBackend('auth');
  authV6 = await startEchoBackend('auth-v6', { host: '::1' });
  authAll = await startEchoBackend('auth-all', { host: '0.0.0.0' });
  recorder = createServer((incoming, response) => {
    recorded = incoming.headers;
    response.end('ok');
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  strict = await startPlane(false);
  local = await startPlane(true);
  guarded = await startPlane(true, {
    refusedNetworks: ['::1/128'],
    ownAddresses: machineAddress === undefined ? [] : [machineAddress],
    ownPorts: [authAll.port],
  });
});

afterAll(async () => {
  await strict?.stop();
  await local?.stop();
  await guarded?.stop();
  await app?.close();
  await authAll?.close();
  await auth?.close();
  await authV6?.close();
  await new Promise((resolve) => recorder?.close(resolve));
});

describe('external authentication in nginx', () => {
  it('lets a request through when the service on an allowed address answers 2xx', async () => {
    const before = auth.count();
    const response = await local.request({ host: 'auth.example.com', path: '/x' });
    expect(response.status).toBe(200);
    expect(response.headers['x-backend']).toBe('app');
    expect(auth.count()).toBe(before + 1);
  });

  it('asks the service over HTTP/2 too', async () => {
    expect((await local.request({ host: 'auth.example.com', tls: true })).status).toBe(200);
    const status = await http2Status(local.ports.https, 'auth.example.com');
    expect(status).toBe(200);
  });

  it('answers 500 when the service answered from loopback and local peers are not allowed', async () => {
    const before = auth.count();
    expect((await strict.request({ host: 'auth.example.com' })).status).toBe(500);
    // nginx asked (a name could have led there), but the answer was not used.
    expect(auth.count()).toBe(before + 1);
  });

  it('reads IPv6 loopback answers as loopback too', async () => {
    expect((await local.request({ host: 'v6.example.com' })).status).toBe(200);
    expect((await strict.request({ host: 'v6.example.com' })).status).toBe(500);
  });

  it("sends the route's request headers to the service, replacing the client's of the same name", async () => {
    const response = await local.request({
      host: 'headers.example.com',
      headers: { 'x-auth-tenant': 'forged', 'x-client': 'kept' },
    });
    expect(response.status).toBe(200);
    expect(recorded['x-auth-tenant']).toBe('shop');
    expect(recorded['x-empty']).toBe('');
    expect(recorded['x-client']).toBe('kept');
  });

  it("answers 500 for a service on nginx's own listener port, even with local peers allowed", async () => {
    expect((await local.request({ host: 'own-port.example.com' })).status).toBe(500);
  });

  it("never uses an answer from a refused network (the clouds' metadata), even with local peers allowed", async () => {
    expect((await local.request({ host: 'v6.example.com' })).status).toBe(200);
    expect((await guarded.request({ host: 'v6.example.com' })).status).toBe(500);
    expect((await guarded.request({ host: 'auth.example.com' })).status).toBe(200);
  });

  it.skipIf(machineAddress === undefined)(
    "takes the pod's own addresses as local: refused on the gateway's own ports",
    async () => {
      // Not local, the own port does not count; own, it does.
      expect((await local.request({ host: 'own.example.com' })).status).toBe(200);
      expect((await guarded.request({ host: 'own.example.com' })).status).toBe(500);
    },
  );
});
