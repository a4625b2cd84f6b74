/**
 * Backend TLS (route-model backendTls) through real nginx: nginx.conf holds nothing of it (the
 * same text whatever the policies), and the Lua router and balancer send each request to the TLS
 * relay's unix socket of the route's relay and the chosen endpoint, named as relaySocketName
 * names it: balanced, ExternalName, IPv6 and gRPC backends, in place, through a profile location
 * and through the hop of custom error pages, with upstream keep-alive per socket. The relay itself
 * is the controller's; here a plain HTTP (or h2c) server stands in for each socket.
 */
import { chmod, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendTlsPolicy, Route, RoutePolicy, RouteTable } from '@ingresskit/route-model';
import { compileBackendTlsRelay, RELAY_SOCKET_DIRECTORY, relaySocketName } from './backend-tls.js';
import { buildConfiguration } from './build-configuration.js';
import { renderNginxConf } from './render.js';
import { createSelfSignedCertificate } from './self-signed-certificate.js';
import { startEchoBackend, type TestBackend } from './testing/backends.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';
import { createTestHost, createTestTable } from './testing/routes.js';

const CA = createSelfSignedCertificate({ commonName: 'Backend CA' }).certificatePem;
const OTHER_CA = createSelfSignedCertificate({ commonName: 'Other CA' }).certificatePem;

function policy(overrides: Partial<BackendTlsPolicy> = {}): BackendTlsPolicy {
  return {
    caCertificatesPem: CA,
    verify: true,
    depth: 1,
    protocols: ['TLSv1.2'],
    ciphers: 'DEFAULT',
    serverName: 'backend.internal',
    sendServerName: true,
    ...overrides,
  };
}

function tlsRoute(
  id: string,
  path: string,
  backend: string,
  backendTls: BackendTlsPolicy,
  backendProtocol: RoutePolicy['backendProtocol'] = 'HTTPS',
  more: RoutePolicy = {},
): Route {
  return createTestRoute(id, {
    match: { path: { type: 'PathPrefix', value: path } },
    action: { type: 'forward', backends: [{ backend, weight: 1 }] },
    policy: { backendProtocol, backendTls, ...more },
  });
}

// Custom error pages: the route goes through the hop server, which proxies it to the relay.
const WITH_ERRORS: RoutePolicy = { customErrors: { statuses: [404], backends: ['errors'] } };

const HOST = 'relay.test';

function createTable(ports: { http: number; https: number }, backendTls: BackendTlsPolicy): RouteTable {
  return createTestTable({
    listeners: createListeners(ports),
    virtualHosts: [
      createTestHost(HOST, [
        tlsRoute('pair', '/pair', 'pair', backendTls),
        tlsRoute('v6', '/v6', 'v6', backendTls),
        tlsRoute('external', '/external', 'external', backendTls),
        tlsRoute('grpc', '/grpc', 'pair', backendTls, 'GRPCS'),
        tlsRoute('grpc-external', '/grpc-external', 'external', backendTls, 'GRPCS'),
        tlsRoute('missing', '/missing', 'missing', backendTls),
        // A profile of its own: proxied in its profile location, not in place.
        tlsRoute('unbuffered', '/unbuffered', 'pair', backendTls, 'HTTPS', {
          upstreamSettings: { responseBuffering: false },
        }),
        tlsRoute('hop', '/hop', 'pair', backendTls, 'HTTPS', WITH_ERRORS),
        tlsRoute('hop-external', '/hop-external', 'external', backendTls, 'HTTPS', WITH_ERRORS),
      ]),
    ],
    backends: [
      {
        id: 'pair',
        endpoints: [
          { address: '10.0.0.1', port: 8443 },
          { address: '10.0.0.2', port: 8443 },
        ],
      },
      { id: 'v6', endpoints: [{ address: 'fd00::7', port: 443 }] },
      {
        id: 'external',
        endpoints: [{ address: '10.0.0.9', port: 443 }],
        externalName: { hostname: 'api.example.com', port: 443 },
      },
      { id: 'missing', endpoints: [{ address: '10.0.0.99', port: 443 }] },
      { id: 'errors', endpoints: [{ address: errors.address, port: errors.port }] },
    ],
  });
}

function relayIdOf(table: RouteTable, routeId: string): string {
  const route = table.virtualHosts[0]!.routes.find((candidate) => candidate.id === routeId)!;
  const relay = compileBackendTlsRelay(route, HOST);
  if (relay === undefined || relay === 'closed') throw new Error(`route ${routeId} has no relay`);
  return relay.id;
}

let plane: DataPlane;
let table: RouteTable;
let errors: TestBackend;
const servers: Server[] = [];
const http2Servers: ReturnType<typeof createHttp2Server>[] = [];
/** Connections each stand-in socket accepted, by socket name. */
const connections = new Map<string, number>();

/**
 * A stand-in for the relay socket `name`: answers with its name and what nginx sent, with status
 * 404 when the query asks for it.
 */
async function standIn(name: string, grpc = false): Promise<void> {
  const path = join(plane.prefix.dir, RELAY_SOCKET_DIRECTORY, name);
  const answer = (url: string | undefined, host: string | undefined) =>
    JSON.stringify({ socket: name, url, host });
  const server = grpc
    ? createHttp2Server((request, response) =>
        response.end(answer(request.url, request.headers[':authority'])),
      )
    : createServer((request, response) => {
        if (request.url?.endsWith('?status=404') === true) response.statusCode = 404;
        response.end(answer(request.url, request.headers.host));
      });
  server.on('connection', () => connections.set(name, (connections.get(name) ?? 0) + 1));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  // nginx's workers run as nobody when the tests run as root.
  await chmod(path, 0o666);
  if (grpc) http2Servers.push(server as ReturnType<typeof createHttp2Server>);
  else servers.push(server as Server);
}

beforeAll(async () => {
  errors = await startEchoBackend('errors');
  const ports = await allocateListenerPorts();
  table = createTable(ports, policy());
  plane = await startDataPlane({ table, ports });
  await mkdir(join(plane.prefix.dir, RELAY_SOCKET_DIRECTORY), { mode: 0o755 });
  const pair = relayIdOf(table, 'pair');
  await standIn(relaySocketName(pair, '10.0.0.1', 8443));
  await standIn(relaySocketName(pair, '10.0.0.2', 8443));
  await standIn(relaySocketName(pair, 'fd00::7', 443));
  await standIn(relaySocketName(pair, '10.0.0.9', 443));
  const grpc = relayIdOf(table, 'grpc');
  await standIn(relaySocketName(grpc, '10.0.0.1', 8443), true);
  await standIn(relaySocketName(grpc, '10.0.0.9', 443), true);
  expect((await plane.push(table)).status).toBe(201);
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(
    [...servers, ...http2Servers].map((server) => new Promise((resolve) => server.close(resolve))),
  );
  await plane?.stop();
  await errors?.close();
});

async function relayed(path: string): Promise<{ socket: string; url: string; host: string }> {
  const response = await plane.request({ path, host: HOST });
  expect(response.status, response.body).toBe(200);
  return JSON.parse(response.body) as { socket: string; url: string; host: string };
}

/** The sockets four requests for `path` reached: round robin over the backend's endpoints. */
async function socketsSeen(path: string): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < 4; i++) seen.add((await relayed(path)).socket);
  return seen;
}

/** The sockets of the `pair` backend's two endpoints. */
function pairSockets(): Set<string> {
  const pair = relayIdOf(table, 'pair');
  return new Set([relaySocketName(pair, '10.0.0.1', 8443), relaySocketName(pair, '10.0.0.2', 8443)]);
}

describe('renderNginxConf with backend TLS routes', () => {
  it('renders the same nginx.conf whatever the policies, with no TLS setting towards backends', () => {
    const options = { controlSocketPath: plane.prefix.socketPath, listenAddresses: ['127.0.0.1'] };
    const render = (backendTls: BackendTlsPolicy | undefined) => {
      const next = createTable(plane.ports, backendTls ?? policy());
      if (backendTls === undefined) {
        // The same routes to plain HTTP and gRPC backends.
        for (const route of next.virtualHosts[0]!.routes) {
          const protocol = route.policy.backendProtocol === 'GRPCS' ? 'GRPC' : 'HTTP';
          route.policy = { backendProtocol: protocol };
        }
      }
      return renderNginxConf(buildConfiguration(next, options).configuration);
    };
    const conf = render(policy());
    expect(render(policy({ caCertificatesPem: OTHER_CA, ciphers: 'ECDHE+AESGCM', depth: 9 }))).toBe(conf);
    expect(render(policy({ verify: false, serverName: undefined, protocols: ['TLSv1.3'] }))).toBe(conf);
    expect(render(undefined)).toBe(conf);
    expect(conf).not.toMatch(/_ssl_(verify|trusted_certificate|ciphers|protocols|certificate)\b/);
  });
});

describe('routes with a backend TLS policy', () => {
  it("send each request to the relay's socket of the endpoint the balancer chose", async () => {
    expect(await socketsSeen('/pair/x?y=1')).toEqual(pairSockets());
    expect(await relayed('/pair/x?y=1')).toMatchObject({ url: '/pair/x?y=1', host: HOST });
  });

  it('keep connections to each socket alive, as to any peer', async () => {
    const name = relaySocketName(relayIdOf(table, 'pair'), '10.0.0.1', 8443);
    const before = connections.get(name) ?? 0;
    for (let i = 0; i < 10; i++) await relayed('/pair/keepalive');
    // Two workers, each with its own pool: at most one new connection each.
    expect((connections.get(name) ?? 0) - before).toBeLessThanOrEqual(2);
  });

  it('reach IPv6 endpoints and the pinned addresses of an ExternalName', async () => {
    const pair = relayIdOf(table, 'pair');
    expect((await relayed('/v6')).socket).toBe(relaySocketName(pair, 'fd00::7', 443));
    expect(await relayed('/external/a')).toMatchObject({
      socket: relaySocketName(pair, '10.0.0.9', 443),
      url: '/external/a',
    });
  });

  it('speak h2c to the relay of a gRPC backend', async () => {
    expect((await relayed('/grpc')).socket).toBe(relaySocketName(relayIdOf(table, 'grpc'), '10.0.0.1', 8443));
  });

  it('speak h2c to the relay socket of an ExternalName address too (grpc_pass takes no URI)', async () => {
    expect(await relayed('/grpc-external/a')).toMatchObject({
      socket: relaySocketName(relayIdOf(table, 'grpc'), '10.0.0.9', 443),
      url: '/grpc-external/a',
    });
  });

  it('reach the relay from a profile location as in place', async () => {
    expect(await socketsSeen('/unbuffered/x')).toEqual(pairSockets());
  });

  it('reach the relay through the hop of custom error pages, whose statuses the error backend answers', async () => {
    const pair = relayIdOf(table, 'pair');
    expect(await relayed('/hop/a')).toMatchObject({ url: '/hop/a', host: HOST });
    expect(await relayed('/hop-external/a')).toMatchObject({
      socket: relaySocketName(pair, '10.0.0.9', 443),
      url: '/hop-external/a',
    });
    for (const path of ['/hop/a?status=404', '/hop-external/a?status=404']) {
      const response = await plane.request({ path, host: HOST });
      expect(response.status, path).toBe(404);
      expect(response.headers['x-backend'], path).toBe('errors');
    }
  });

  it('answer 502 when the relay has no socket for the endpoint, never reaching it otherwise', async () => {
    expect((await plane.request({ path: '/missing', host: HOST })).status).toBe(502);
  });
});
