/**
 * ssl-passthrough and TCP/UDP services with real nginx and real traffic on 127.0.0.1: the
 * passthrough proxy hands a TLS connection to its backend by server name (the client sees the
 * backend's certificate), sends other hosts to nginx with the client's address kept, and closes a
 * malformed or silent client alone; TCP and UDP services echo through nginx's stream block, follow
 * endpoint changes (a reload), and a bad ConfigMap entry is reported while the others serve.
 * The pieces are started directly, as the controller would (L4Services beside NginxDataPlane).
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  connect as connectTcp,
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
} from 'node:net';
import { connect as connectTls, createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import { createRouteTableBuilder, type RouteTableBuilder } from '@ingresskit/route-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewOfObjects, type ClusterView } from '../src/cluster-view.js';
import { NginxDataPlane } from '../src/data-plane.js';
import { listenersOf, sslPassthroughRenderOptions } from '../src/data-plane-render-options.js';
import type { EventReport } from '../src/events.js';
import { L4Services } from '../src/l4-services.js';
import { createLogger } from '../src/logger.js';
import { toClusterObjects } from '../src/manifests.js';
import { findFreePort } from '../src/ports.js';
import { eventually, pickControllerPorts } from './harness.js';

const PREFIX = 'nginx.ingress.kubernetes.io';
let ports: Awaited<ReturnType<typeof pickControllerPorts>>;
let internalPort: number;
let dataPlane: NginxDataPlane;
let builder: RouteTableBuilder;
let l4: L4Services;
const events: EventReport[] = [];
const servers: { close(): void }[] = [];
let httpBackendPort: number;
let tlsBackendPort: number;
let echoPorts: { tcp: number[]; udp: number };
let exposed: { tcp: number; udp: number; bad: number };
let objects: Record<string, unknown>[];
const backendCertificate = createSelfSignedCertificate({ commonName: 'passthrough-backend' });

function service(name: string, port: number, protocol: 'TCP' | 'UDP' = 'TCP'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { ports: [{ name: 'main', port, protocol }] },
  };
}

function slice(
  name: string,
  serviceName: string,
  port: number,
  protocol: 'TCP' | 'UDP' = 'TCP',
): Record<string, unknown> {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'main', port, protocol }],
  };
}

function configMap(name: string, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ingress' }, data };
}

/** A ClusterView of `objects`, ConfigMaps included. */
function viewOf(list: readonly Record<string, unknown>[]): ClusterView {
  const configMaps = list.filter((object) => object.kind === 'ConfigMap') as never[];
  return {
    ...viewOfObjects(toClusterObjects(list)),
    configMap: (key) =>
      configMaps.find(
        (map: { metadata: { namespace: string; name: string } }) =>
          `${map.metadata.namespace}/${map.metadata.name}` === key,
      ),
  };
}

async function sync(): Promise<void> {
  l4.sync(viewOf(objects));
  dataPlane.stage(builder.commit());
  await dataPlane.flush();
}

async function listen(server: Server | HttpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

async function startTcpEcho(name: string): Promise<number> {
  return listen(
    createTcpServer((socket) => socket.on('data', (chunk) => socket.end(`${name}:${String(chunk)}`))),
  );
}

async function startUdpEcho(): Promise<number> {
  const socket = createSocket('udp4');
  socket.on('message', (message, from) => socket.send(`udp:${String(message)}`, from.port, from.address));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  servers.push(socket);
  return socket.address().port;
}

/** What a TCP client reads after sending `text` to `port`, until the server closes. */
function tcpExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: '127.0.0.1', port }, () => socket.write(text));
    let answer = '';
    socket.setTimeout(3000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function udpExchange(port: number, text: string): Promise<string> {
  const socket: UdpSocket = createSocket('udp4');
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no UDP answer')), 1000);
    socket.on('message', (message) => {
      clearTimeout(timer);
      resolve(String(message));
    });
    socket.send(text, port, '127.0.0.1');
  }).finally(() => socket.close());
}

/** A TLS connection through the proxy, from `localAddress`. */
function connectThroughProxy(servername: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connectTls(
      { host: '127.0.0.1', port: ports.httpsPort, servername, rejectUnauthorized: false },
      () => resolve(socket),
    );
    socket.on('error', reject);
  });
}

beforeAll(async () => {
  ports = await pickControllerPorts();
  internalPort = await findFreePort();
  httpBackendPort = await listen(
    createHttpServer((request, response) =>
      response.end(
        JSON.stringify({
          xff: request.headers['x-forwarded-for'],
          realIp: request.headers['x-real-ip'],
          port: request.headers['x-forwarded-port'],
        }),
      ),
    ),
  );
  const tlsBackend = createTlsServer(
    { cert: backendCertificate.certificatePem, key: backendCertificate.privateKeyPem },
    (socket) => socket.end(`passthrough:${(socket as TLSSocket & { servername?: string }).servername ?? ''}`),
  );
  tlsBackendPort = await listen(tlsBackend);
  echoPorts = { tcp: [await startTcpEcho('first'), await startTcpEcho('second')], udp: await startUdpEcho() };
  exposed = { tcp: await findFreePort(), udp: await findFreePort(), bad: await findFreePort() };
  objects = [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: {
        name: 'secure',
        namespace: 'default',
        creationTimestamp: '2024-01-01T00:00:00Z',
        annotations: { [`${PREFIX}/ssl-passthrough`]: 'true', [`${PREFIX}/rewrite-target`]: '/x' },
      },
      spec: {
        rules: [
          {
            host: 'secure.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'tls-app', port: { number: 443 } } },
                },
                {
                  path: '/api',
                  pathType: 'Prefix',
                  backend: { service: { name: 'tls-app', port: { number: 443 } } },
                },
              ],
            },
          },
        ],
      },
    },
    service('tls-app', 443),
    slice('tls-app-1', 'tls-app', tlsBackendPort),
    service('echo', 9000),
    slice('echo-1', 'echo', echoPorts.tcp[0]!),
    service('dns', 53, 'UDP'),
    slice('dns-1', 'dns', echoPorts.udp, 'UDP'),
    configMap('tcp-services', {
      [String(exposed.tcp)]: 'default/echo:9000',
      [String(ports.httpPort)]: 'default/echo:9000',
      [String(exposed.bad)]: 'default/missing:9000',
      'not-a-port': 'default/echo:9000',
    }),
    configMap('udp-services', { [String(exposed.udp)]: 'default/dns:53' }),
  ];

  builder = createRouteTableBuilder({ listeners: listenersOf(ports) });
  builder.setBackend({ id: 'default/web:80', endpoints: [{ address: '127.0.0.1', port: httpBackendPort }] });
  builder.setContribution({
    source: { kind: 'Test', namespace: 'default', name: 'plain' },
    hosts: [
      {
        hostname: 'plain.example.com',
        routes: [
          {
            id: 'Test/default/plain',
            origin: { kind: 'Test', namespace: 'default', name: 'plain', createdAt: 0, index: [] },
            match: { path: { type: 'PathPrefix', value: '/' } },
            action: { type: 'forward', backends: [{ backend: 'default/web:80', weight: 1 }] },
            policy: {},
          },
        ],
      },
    ],
    tls: [],
  });
  const logger = createLogger({ level: process.env.INGRESSKIT_TEST_LOG ?? 'silent' });
  dataPlane = new NginxDataPlane({
    binary: '/usr/sbin/nginx',
    ...ports,
    listenAddresses: ['127.0.0.1'],
    workerProcesses: 1,
    logger,
    readTable: () => builder.table(),
    renderOptions: sslPassthroughRenderOptions(ports.httpsPort, internalPort),
  });
  await dataPlane.prepare();
  l4 = new L4Services(
    {
      sslPassthrough: true,
      httpsPort: ports.httpsPort,
      sslPassthroughProxyPort: internalPort,
      tcpServicesConfigMap: 'ingress/tcp-services',
      udpServicesConfigMap: 'ingress/udp-services',
      reservedPorts: [ports.httpPort, ports.httpsPort, ports.healthzPort, internalPort],
      annotationPrefix: PREFIX,
      allowCrossNamespaceHosts: false,
      backendAddressPolicy: {
        allowExternalName: false,
        allowLocalAddresses: true,
        forbiddenAddresses: new Set(),
      },
      listenHost: '127.0.0.1',
      helloTimeoutMs: 500,
    },
    {
      dataPlane,
      recorder: { record: (event) => events.push(event) },
      logger,
      isLeader: () => true,
      isOwned: () => true,
    },
  );
  await l4.start();
  await sync();
});

afterAll(async () => {
  await l4?.stop();
  await dataPlane?.stop();
  for (const server of servers) server.close();
});

describe('ssl-passthrough', () => {
  it('hands a passthrough host to its backend: the client sees the backend certificate', async () => {
    const socket = await connectThroughProxy('secure.example.com');
    expect(socket.getPeerCertificate().subject.CN).toBe('passthrough-backend');
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => (text += String(chunk)));
      socket.on('end', () => resolve(text));
    });
    expect(answer).toBe('passthrough:secure.example.com');
    socket.destroy();
  });

  it('reports what ingress-nginx ignores for a passthrough Ingress', () => {
    const notes = events.filter((event) => event.regarding.name === 'secure').map((event) => event.note);
    expect(notes).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`metadata.annotations["${PREFIX}/rewrite-target"]: is ignored`),
        expect.stringContaining('spec.rules[0].http.paths[1]: path "/api" is ignored'),
      ]),
    );
  });

  it('sends other hosts to nginx with the client address kept (PROXY protocol)', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const request = httpsRequest(
        {
          host: '127.0.0.1',
          port: ports.httpsPort,
          localAddress: '127.0.0.2',
          servername: 'plain.example.com',
          headers: { host: 'plain.example.com' },
          rejectUnauthorized: false,
          agent: false,
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => (text += String(chunk)));
          response.on('end', () => resolve(text));
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(JSON.parse(body)).toEqual({
      xff: '127.0.0.2',
      realIp: '127.0.0.2',
      port: String(ports.httpsPort),
    });
  });

  it('closes a malformed or silent client alone, while other connections go on', async () => {
    const open = await connectThroughProxy('secure.example.com');
    const garbage = await tcpExchange(ports.httpsPort, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(garbage).toBe('');
    const started = Date.now();
    const silent = await new Promise<number>((resolve) => {
      const socket = connectTcp({ host: '127.0.0.1', port: ports.httpsPort });
      socket.on('close', () => resolve(Date.now() - started));
      socket.on('error', () => undefined);
    });
    expect(silent).toBeGreaterThanOrEqual(400);
    expect(open.destroyed).toBe(false);
    const again = await connectThroughProxy('secure.example.com');
    expect(again.getPeerCertificate().subject.CN).toBe('passthrough-backend');
    open.destroy();
    again.destroy();
    expect(l4.proxy?.counters.refused).toBeGreaterThanOrEqual(2);
  });
});

describe('TCP and UDP services', () => {
  it('echoes TCP and UDP through nginx', async () => {
    expect(await tcpExchange(exposed.tcp, 'hello')).toBe('first:hello');
    expect(await udpExchange(exposed.udp, 'ping')).toBe('udp:ping');
  });

  it('reports bad entries on the ConfigMap, naming the key, while the others serve', () => {
    const notes = events.filter((event) => event.regarding.kind === 'ConfigMap').map((event) => event.note);
    expect(notes).toEqual(
      expect.arrayContaining([
        `TCP service "${ports.httpPort}": port ${ports.httpPort} is one of the controller's own listeners; not served`,
        `TCP service "${exposed.bad}": Service default/missing not found; not served until it exists`,
        'TCP service "not-a-port": the key must be a port from 1 to 65535; not served',
      ]),
    );
    expect(dataPlane.nginxConf).not.toContain(`listen "127.0.0.1:${exposed.bad}"`);
  });

  it('follows an endpoint change with a reload', async () => {
    const reloads = dataPlane.reloadCount;
    objects = objects.map((object) =>
      (object.metadata as { name: string }).name === 'echo-1'
        ? slice('echo-1', 'echo', echoPorts.tcp[1]!)
        : object,
    );
    await sync();
    expect(dataPlane.reloadCount).toBe(reloads + 1);
    await eventually(async () => expect(await tcpExchange(exposed.tcp, 'again')).toBe('second:again'), 5000);
  });
});
