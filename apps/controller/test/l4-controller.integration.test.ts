/**
 * The layer-4 features wired into a whole controller: with --enable-ssl-passthrough the proxy owns
 * the HTTPS port, hands a passthrough host's TLS to its backend and every other host to nginx; a
 * TCP services ConfigMap becomes a stream server; a bad entry is an Event on the ConfigMap.
 */
import { createServer as createTcpServer, connect as connectTcp, type AddressInfo } from 'node:net';
import { connect as connectTls, createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import { findFreePort } from '../src/ports.js';
import {
  answerOf,
  endpointSliceManifest,
  eventually,
  ingressClassManifest,
  ingressManifest,
  listEvents,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let controller: Controller;
let tcpPort: number;
let spoofPort: number;
let proxyPort: number;
const certificate = createSelfSignedCertificate({ commonName: 'passthrough-backend' });
const closers: (() => void)[] = [];

function listening(server: { listen(port: number, host: string, done: () => void): unknown }) {
  return new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

beforeAll(async () => {
  const backends = await startBackends('web');
  const tlsBackend = createTlsServer(
    { cert: certificate.certificatePem, key: certificate.privateKeyPem },
    (socket) => socket.end('passed through'),
  );
  await listening(tlsBackend);
  const echo = createTcpServer((socket) => socket.on('data', (data) => socket.end(`echo:${String(data)}`)));
  await listening(echo);
  closers.push(
    () => tlsBackend.close(),
    () => echo.close(),
    () => void backends.get('web')!.stop(),
  );
  tcpPort = await findFreePort();
  spoofPort = await findFreePort();
  proxyPort = await findFreePort();
  server = await startLocalApiServer();
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests('web', [backends.get('web')!]),
    ingressManifest('web', { host: 'web.test', service: 'web', className: 'nginx' }),
    ...serviceManifests('tls-app', []),
    endpointSliceManifest('tls-app-1', 'tls-app', (tlsBackend.address() as AddressInfo).port),
    ingressManifest('passthrough', {
      host: 'passthrough.test',
      service: 'tls-app',
      className: 'nginx',
      annotations: { 'nginx.ingress.kubernetes.io/ssl-passthrough': 'true' },
    }),
    ...serviceManifests('echo', []),
    endpointSliceManifest('echo-1', 'echo', (echo.address() as AddressInfo).port),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'tcp', namespace: 'default' },
      data: {
        [String(tcpPort)]: 'default/echo:80',
        '1': 'default/missing:80',
        // A stream service into nginx's PROXY-protocol listener behind the passthrough proxy,
        // where a client's own PROXY line would be believed.
        [String(spoofPort)]: 'default/loop:80',
      },
    },
    // Backends on the controller's own ports: nginx's listener behind the proxy, a stream service's.
    ...serviceManifests('loop', []),
    endpointSliceManifest('loop-1', 'loop', proxyPort),
    ...serviceManifests('stream-loop', []),
    endpointSliceManifest('stream-loop-1', 'stream-loop', tcpPort),
    ingressManifest('stream-loop', { host: 'stream-loop.test', service: 'stream-loop', className: 'nginx' }),
  ] as never);
  controller = await startController(server, {
    sslPassthrough: true,
    sslPassthroughProxyPort: proxyPort,
    tcpServicesConfigMap: 'default/tcp',
  });
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  for (const close of closers) close();
});

it("passes a passthrough host's TLS to its backend, untouched", async () => {
  const socket = await new Promise<TLSSocket>((resolve, reject) => {
    const client = connectTls(
      {
        host: '127.0.0.1',
        port: controller.config.httpsPort,
        servername: 'passthrough.test',
        rejectUnauthorized: false,
      },
      () => resolve(client),
    );
    client.on('error', reject);
  });
  expect(socket.getPeerCertificate().subject.CN).toBe('passthrough-backend');
  socket.destroy();
  // The annotation is the proxy's business: the Ingress itself is served, with no error.
  const explanation = controller.explain('default/passthrough');
  expect(explanation.owned).toBe(true);
  expect(explanation.problems).not.toContainEqual(expect.objectContaining({ severity: 'error' }));
});

it('serves every other host through nginx behind the proxy', async () => {
  expect(await answerOf(controller, 'web.test', '/', true)).toBe('web');
});

it('serves a TCP services entry and reports the broken one on the ConfigMap', async () => {
  const answer = await eventually(
    () =>
      new Promise<string>((resolve, reject) => {
        const socket = connectTcp({ host: '127.0.0.1', port: tcpPort }, () => socket.write('hi'));
        let received = '';
        socket.on('data', (data) => (received += String(data)));
        socket.on('close', () => (received === '' ? reject(new Error('no answer')) : resolve(received)));
        socket.on('error', reject);
      }),
    10_000,
  );
  expect(answer).toBe('echo:hi');
  await eventually(async () => {
    await controller.events.flush();
    const events = await listEvents(server.kubeConfig(), 'default');
    expect(
      events.some((event) => event.regarding?.kind === 'ConfigMap' && /"1"/.test(event.note ?? '')),
    ).toBe(true);
  }, 10_000);
});

it("refuses backends on the controller's own ports: the listener behind the proxy, a stream service's", async () => {
  await eventually(async () => {
    await controller.events.flush();
    const notes = (await listEvents(server.kubeConfig(), 'default')).map((event) => event.note ?? '');
    expect(notes).toContainEqual(
      expect.stringContaining(
        `TCP service "${spoofPort}": EndpointSlices of Service default/loop name addresses a backend may not point at, left out: 127.0.0.1:${proxyPort} is a port of the gateway itself`,
      ),
    );
    expect(notes).toContainEqual(
      expect.stringContaining(`127.0.0.1:${tcpPort} is a port of the gateway itself`),
    );
  }, 10_000);
  expect(await answerOf(controller, 'stream-loop.test')).toBe('503');
});
