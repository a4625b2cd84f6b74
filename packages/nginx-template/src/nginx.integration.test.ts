/**
 * End to end: real nginx (Debian, with the Lua module) started from a rendered configuration,
 * small backends on 127.0.0.1 and ::1, hand-built route tables pushed to the control socket,
 * real HTTP(S) requests. Route, backend, certificate and policy changes are then served by the
 * same worker processes, without a reload.
 */
import { X509Certificate } from 'node:crypto';
import { connect as connectHttp2 } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compareRoutes,
  diffRouteTables,
  NO_CERTIFICATE,
  type Backend,
  type Certificate,
  type Route,
  type RouteTable,
  type VirtualHost,
} from '@ingresskit/route-model';
import { buildConfiguration, createSelfSignedCertificate, diffConfigurations } from './index.js';
import { startEchoBackend, startHttp2Backend, type Echo, type TestBackend } from './testing/backends.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestOrigin,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';
import type { TestResponse } from './testing/nginx-process.js';

const backendNames = ['a', 'b', 'c', 'ext', 'slow'] as const;
const servers = {} as Record<(typeof backendNames)[number] | 'six' | 'secure' | 'h2', TestBackend>;
let ports: { http: number; https: number };
let plane: DataPlane;
let table: RouteTable;

/** A CORS policy allowing every origin. */
const CORS_ANY = {
  allowOrigins: ['*'],
  allowMethods: 'GET, POST',
  allowHeaders: 'X-Token,Content-Type',
  exposeHeaders: '',
  allowCredentials: true,
  maxAgeSeconds: 900,
};

function forward(backend: string): Route['action'] {
  return { type: 'forward', backends: [{ backend, weight: 1 }] };
}

function route(
  id: string,
  path: Route['match']['path'] | string,
  action: Route['action'],
  extra: Partial<Route> = {},
): Route {
  const match = { path: typeof path === 'string' ? ({ type: 'PathPrefix', value: path } as const) : path };
  return createTestRoute(id, {
    match: { ...match, ...extra.match },
    action,
    policy: extra.policy ?? {},
    ...(extra.listeners ? { listeners: extra.listeners } : {}),
  });
}

function host(
  hostname: string,
  routes: Route[],
  options: { fallback?: Route; match?: VirtualHost['hostnameMatch'] } = {},
): VirtualHost {
  const virtualHost: VirtualHost = {
    hostname,
    hostnameMatch:
      options.match ?? (hostname === '*' ? 'any' : hostname.startsWith('*.') ? 'one-label' : 'exact'),
    routes: [...routes].sort(compareRoutes),
  };
  if (options.fallback) virtualHost.fallbackRoute = options.fallback;
  return virtualHost;
}

function certificate(commonName: string): Certificate {
  const made = createSelfSignedCertificate({ commonName });
  return { id: `cert-${commonName}`, ...made };
}

function backend(id: string, server: TestBackend | undefined): Backend {
  return { id, endpoints: server ? [{ address: server.address, port: server.port }] : [] };
}

function createTable(): RouteTable {
  const tlsCertificate = certificate('tls.example.com');
  const wildCertificate = certificate('*.tlswild.example.com');
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      host(
        'routing.example.com',
        [
          route('r-exact', { type: 'Exact', value: '/exact' }, forward('a')),
          route('r-regex', { type: 'RegularExpression', value: '^/re/[0-9]+$' }, forward('b')),
          route('r-regex-i', { type: 'RegularExpression', value: '^/CASE', ignoreCase: true }, forward('c')),
          route('r-foo', '/foo', forward('a')),
          route('r-foobar', '/foo/bar/', forward('b')),
          route('r-method', '/m', forward('b'), {
            match: { path: { type: 'PathPrefix', value: '/m' }, method: 'POST' },
          }),
          route('r-m-any', '/m', forward('a')),
          route('r-header', '/h', forward('b'), {
            match: {
              path: { type: 'PathPrefix', value: '/h' },
              headers: [{ name: 'X-Env', type: 'Exact', value: 'canary,blue' }],
            },
          }),
          route('r-h-any', '/h', forward('a')),
          route('r-query', '/q', forward('b'), {
            match: {
              path: { type: 'PathPrefix', value: '/q' },
              queryParams: [{ name: 'v', type: 'RegularExpression', value: '^2' }],
            },
          }),
          route('r-q-any', '/q', forward('a')),
          route('r-tls-only', '/tls-only', forward('b'), { listeners: ['https'] }),
        ],
        { fallback: route('r-fallback', '/', forward('c')) },
      ),
      host('*.wild.example.com', [route('r-wild', '/', forward('b'))]),
      host('*.deep.example.com', [route('r-deep', '/', forward('c'))], { match: 'suffix' }),
      host('pass.example.com', [route('r-pass-only', '/only', forward('a'))]),
      host('*.example.com', [
        route('r-star-pass', '/pass', { type: 'respond', statusCode: 200, body: 'one-label wildcard' }),
      ]),
      host('*', [route('r-catch-all', '/', { type: 'respond', statusCode: 200, body: 'catch-all' })]),
      host('policy.example.com', [
        route('p-https', '/https', forward('a'), { policy: { redirectToHttps: { statusCode: 308 } } }),
        route('p-https-strip', '/strip-slash', forward('a'), {
          policy: { redirectToHttps: { statusCode: 308, stripTrailingSlash: true } },
        }),
        route('p-https-tls-only', '/https-if-tls', forward('a'), {
          policy: { redirectToHttps: { statusCode: 301, onlyIfHostHasTls: true } },
        }),
        route('p-allow', '/allow', forward('a'), {
          policy: { allowSources: ['10.0.0.0/8', '127.0.0.0/24'] },
        }),
        route('p-deny', '/deny', forward('a'), {
          policy: { allowSources: ['10.0.0.0/8', '::1/128', '127.0.0.2/32'] },
        }),
        route('p-deny-bad', '/deny-bad', forward('a'), { policy: { allowSources: ['127.0.0.1/33', 'all'] } }),
        route('p-cors-any', '/cors-any', forward('a'), { policy: { cors: CORS_ANY } }),
        route('p-cors-list', '/cors-list', forward('a'), {
          policy: {
            cors: {
              ...CORS_ANY,
              allowOrigins: ['https://app.example.com', 'https://*.example.org:8443'],
              allowCredentials: false,
              exposeHeaders: 'X-Total',
            },
          },
        }),
        route('p-denylist', '/denylist', forward('a'), {
          policy: { denySources: ['10.0.0.0/8', '127.0.0.0/24'] },
        }),
        route('p-denylist-other', '/denylist-other', forward('a'), {
          policy: { denySources: ['10.0.0.0/8', '::1/128'], allowSources: ['127.0.0.0/8'] },
        }),
        route('p-denylist-wins', '/denylist-wins', forward('a'), {
          policy: { denySources: ['127.0.0.1'], allowSources: ['127.0.0.0/8'] },
        }),
        route('p-denylist-bad', '/denylist-bad', forward('a'), {
          policy: { denySources: ['10.0.0.0/8', 'nonsense'] },
        }),
        route('p-small', '/small', forward('a'), { policy: { maxBodyBytes: 10 } }),
        route('p-unlimited', '/unlimited', forward('a'), { policy: { maxBodyBytes: 0 } }),
        route('p-full', '/rewrite-full', forward('a'), {
          policy: { rewrite: { type: 'ReplaceFullPath', value: '/new' } },
        }),
        route('p-prefix', '/rewrite-prefix', forward('a'), {
          policy: { rewrite: { type: 'ReplacePrefixMatch', value: '/x' } },
        }),
        route('p-strip', '/strip', forward('a'), {
          policy: { rewrite: { type: 'ReplacePrefixMatch', value: '/' } },
        }),
        route('p-regex', { type: 'RegularExpression', value: '^/re-rewrite(/|$)(.*)' }, forward('a'), {
          policy: { rewrite: { type: 'RegexReplace', pattern: '^/re-rewrite(/|$)(.*)', replacement: '/$2' } },
        }),
        route('p-headers', '/headers', forward('a'), {
          policy: {
            requestHeaders: {
              set: [{ name: 'X-Set', value: 'one' }],
              add: [{ name: 'X-Add', value: 'two' }],
              remove: ['X-Remove'],
            },
            responseHeaders: {
              set: [{ name: 'X-Resp', value: 'yes' }],
              add: [{ name: 'X-Multi', value: 'b' }],
              remove: ['X-Backend'],
            },
          },
        }),
        route('p-vhost', '/vhost', forward('a'), { policy: { upstreamHost: 'internal.example.com' } }),
        route('p-timeout', '/timeout', forward('slow'), { policy: { timeouts: { readMs: 200 } } }),
        route('p-weighted', '/weighted', {
          type: 'forward',
          backends: [
            { backend: 'a', weight: 1 },
            { backend: 'b', weight: 0 },
          ],
        }),
        route('p-split', '/split', {
          type: 'forward',
          backends: [
            { backend: 'a', weight: 1 },
            { backend: 'b', weight: 1 },
          ],
        }),
        route('p-zero', '/zero', { type: 'forward', backends: [{ backend: 'a', weight: 0 }] }),
        route('p-invalid-member', '/invalid-member', { type: 'forward', backends: [{ weight: 1 }] }),
        route('p-invalid-member-status', '/invalid-member-status', {
          type: 'forward',
          backends: [{ weight: 1, statusCode: 502 }],
        }),
        route('p-unknown', '/unknown-backend', forward('nope')),
        route('p-empty', '/empty-backend', forward('empty')),
        route(
          'p-respond',
          '/respond',
          { type: 'respond', statusCode: 201, body: 'made here' },
          {
            policy: { responseHeaders: { set: [{ name: 'X-Made', value: 'yes' }] } },
          },
        ),
        route('p-respond-empty', '/respond-empty', { type: 'respond', statusCode: 204 }),
        route('p-redirect-keep', '/redirect-keep', {
          type: 'redirect',
          redirect: { statusCode: 302, hostname: 'elsewhere.example.com' },
        }),
        route('p-redirect-scheme', '/redirect-scheme', {
          type: 'redirect',
          redirect: { statusCode: 301, scheme: 'https' },
        }),
        route('p-redirect-port', '/redirect-port', {
          type: 'redirect',
          redirect: { statusCode: 307, scheme: 'http', port: 80 },
        }),
        route('p-redirect-port2', '/redirect-port2', {
          type: 'redirect',
          redirect: { statusCode: 308, port: 8081 },
        }),
        route('p-redirect-path', '/redirect-path', {
          type: 'redirect',
          redirect: { statusCode: 302, path: { type: 'ReplacePrefixMatch', value: '/moved' } },
        }),
        route('p-redirect-full', '/redirect-full', {
          type: 'redirect',
          redirect: { statusCode: 303, path: { type: 'ReplaceFullPath', value: '/a b' } },
        }),
        route('p-redirect-query', '/redirect-query', {
          type: 'redirect',
          redirect: { statusCode: 301, path: { type: 'ReplaceFullPath', value: '/q' }, query: 'a=1&b=%2F' },
        }),
        route('p-redirect-noquery', '/redirect-noquery', {
          type: 'redirect',
          redirect: { statusCode: 302, path: { type: 'ReplaceFullPath', value: '/plain' }, query: '' },
        }),
      ]),
      host('tls.example.com', [
        route('t-root', '/', forward('a'), {
          policy: { redirectToHttps: { statusCode: 301, onlyIfHostHasTls: true } },
        }),
      ]),
      host('*.tlswild.example.com', [route('t-wild', '/', forward('b'))]),
      // Another tenant's name under the wildcard: bound to NO_CERTIFICATE, it gets none of the wildcard's.
      host('shielded.tlswild.example.com', [
        route('t-shielded', '/', forward('a'), {
          policy: { redirectToHttps: { statusCode: 301, onlyIfHostHasTls: true } },
        }),
      ]),
      host('ext.example.com', [route('x-root', '/', forward('external'))]),
      host('pinned.example.com', [route('p-root', '/', forward('pinned'))]),
      host('pinned-secure.example.com', [
        route('ps-root', '/', forward('pinned-secure'), { policy: { backendProtocol: 'HTTPS' } }),
      ]),
      host('v6.example.com', [route('v6-root', '/', forward('six'))]),
      host('secure-backend.example.com', [
        route('s-root', '/', forward('secure'), { policy: { backendProtocol: 'HTTPS' } }),
      ]),
      host('grpc.example.com', [
        route('g-root', '/', forward('h2'), { policy: { backendProtocol: 'GRPC' } }),
      ]),
      host('body.example.com', [
        route('body-big', '/big', forward('a'), { policy: { maxBodyBytes: 2 * 1024 * 1024 } }),
        route('body-default', '/', forward('a')),
      ]),
    ].sort((x, y) => (x.hostname < y.hostname ? -1 : 1)),
    tls: [
      {
        hostname: '*.tlswild.example.com',
        certificate: wildCertificate.id,
        origin: createTestOrigin('wild'),
      },
      {
        hostname: 'shielded.tlswild.example.com',
        certificate: NO_CERTIFICATE,
        origin: createTestOrigin('shielded'),
      },
      { hostname: 'tls.example.com', certificate: tlsCertificate.id, origin: createTestOrigin('tls') },
    ],
    certificates: [wildCertificate, tlsCertificate],
    backends: [
      backend('a', servers.a),
      backend('b', servers.b),
      backend('c', servers.c),
      backend('empty', undefined),
      { id: 'external', endpoints: [], externalName: { hostname: '127.0.0.1', port: servers.ext.port } },
      // Names nobody can resolve: nginx reaches them only through the addresses pinned to them.
      {
        id: 'pinned',
        endpoints: [{ address: '127.0.0.1', port: servers.ext.port }],
        externalName: { hostname: 'app.pinned.invalid', port: servers.ext.port },
      },
      {
        id: 'pinned-secure',
        endpoints: [{ address: '127.0.0.1', port: servers.secure.port }],
        externalName: { hostname: 'api.pinned.invalid', port: servers.secure.port },
      },
      backend('h2', servers.h2),
      backend('secure', servers.secure),
      backend('six', servers.six),
      backend('slow', servers.slow),
    ],
  };
}

async function send(
  hostname: string,
  path = '/',
  options: Parameters<DataPlane['request']>[0] | object = {},
): Promise<TestResponse> {
  return plane.request({ host: hostname, path, ...options });
}

function echoOf(response: TestResponse): Echo | undefined {
  return response.headers['content-type'] === 'application/json'
    ? (JSON.parse(response.body) as Echo)
    : undefined;
}

/** Which backend answered, the body of a fixed response, or the status. */
async function answer(hostname: string, path = '/', options: object = {}): Promise<string> {
  const response = await send(hostname, path, options);
  if (response.status !== 200) return `status ${response.status}`;
  return echoOf(response)?.backend ?? response.body;
}

/** One HTTP/2 request over TLS; the body is sent without a Content-Length, as HTTP/2 allows. */
function sendHttp2(
  hostname: string,
  path: string,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const session = connectHttp2(`https://127.0.0.1:${ports.https}`, {
      servername: hostname,
      rejectUnauthorized: false,
    });
    session.on('error', reject);
    const stream = session.request({ ':method': method, ':path': path, ':authority': hostname });
    let status = 0;
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => {
      session.close();
      resolve({ status, body: text });
    });
    stream.on('error', reject);
    stream.end(body);
  });
}

async function pushTable(next: RouteTable): Promise<void> {
  const response = await plane.push(diffRouteTables(table, next));
  expect(response.status, JSON.stringify(response.json)).toBe(201);
  table = next;
}

beforeAll(async () => {
  for (const name of backendNames) servers[name] = await startEchoBackend(name);
  servers.six = await startEchoBackend('six', { host: '::1' });
  servers.secure = await startEchoBackend('secure', { tls: true });
  servers.h2 = await startHttp2Backend('h2');
  ports = await allocateListenerPorts();
  table = createTable();
  plane = await startDataPlane({ table, ports, render: { accessLogPath: 'access.log' } });
});

afterAll(async () => {
  await plane?.stop();
  for (const server of Object.values(servers)) await server?.close();
});

describe('the nginx data plane', () => {
  it('answers 503 to every request before the first push', async () => {
    expect((await plane.status()).version).toBe(0);
    expect((await send('routing.example.com', '/foo')).status).toBe(503);
    expect((await send('anything.example.org')).status).toBe(503);
    const tls = await send('tls.example.com', '/', { tls: true });
    expect(tls.status).toBe(503);
    expect(tls.peerCommonName).toBe(plane.prefix.defaultCommonName);
  });

  it('accepts the whole table and serves it', async () => {
    const response = await plane.push(table);
    expect(response.status, JSON.stringify(response.json)).toBe(201);
    expect(response.json).toMatchObject({ version: 1 });
    expect(await answer('routing.example.com', '/foo')).toBe('a');
  });

  it('routes Exact paths exactly, regexes before prefixes, and prefixes element-wise, longest first', async () => {
    expect(await answer('routing.example.com', '/exact')).toBe('a');
    expect(await answer('routing.example.com', '/exact/')).toBe('c');
    expect(await answer('routing.example.com', '/re/42')).toBe('b');
    expect(await answer('routing.example.com', '/re/42x')).toBe('c');
    expect(await answer('routing.example.com', '/case/x')).toBe('c');
    expect(await answer('routing.example.com', '/foo')).toBe('a');
    expect(await answer('routing.example.com', '/foo/')).toBe('a');
    expect(await answer('routing.example.com', '/foo/x')).toBe('a');
    expect(await answer('routing.example.com', '/foo/bar')).toBe('b');
    expect(await answer('routing.example.com', '/foo/bar/baz')).toBe('b');
    expect(await answer('routing.example.com', '/foobar')).toBe('c');
  });

  it('honours method, header and query conditions and the route listeners', async () => {
    expect(await answer('routing.example.com', '/m', { method: 'POST', body: 'x' })).toBe('b');
    expect(await answer('routing.example.com', '/m')).toBe('a');
    expect(await answer('routing.example.com', '/h', { headers: { 'x-env': ['canary', 'blue'] } })).toBe('b');
    expect(await answer('routing.example.com', '/h', { headers: { 'x-env': 'canary' } })).toBe('a');
    expect(await answer('routing.example.com', '/q?v=23&v=1')).toBe('b');
    expect(await answer('routing.example.com', '/q?v=1&v=2')).toBe('a');
    expect(await answer('routing.example.com', '/tls-only')).toBe('c');
    expect(await answer('routing.example.com', '/tls-only', { tls: true })).toBe('b');
  });

  it('matches wildcard hosts by their kind, passes unmatched requests on, and ends at the catch-all', async () => {
    expect(await answer('x.wild.example.com')).toBe('b');
    expect(await answer('x.y.wild.example.com')).toBe('catch-all');
    expect(await answer('x.deep.example.com')).toBe('c');
    expect(await answer('x.y.deep.example.com')).toBe('c');
    expect(await answer('deep.example.com', '/pass')).toBe('one-label wildcard');
    expect(await answer('pass.example.com', '/only')).toBe('a');
    expect(await answer('pass.example.com', '/pass')).toBe('one-label wildcard');
    expect(await answer('pass.example.com', '/other')).toBe('catch-all');
    expect(await answer('unknown.org')).toBe('catch-all');
    expect(await answer('ROUTING.Example.com', '/exact')).toBe('a');
    expect(await answer('routing.example.com:8080', '/exact')).toBe('a');
  });

  it('passes the path, query, Host and forwarded headers to the backend unchanged', async () => {
    const response = await send('routing.example.com', '/foo/x%20y?q=1&r=%2F');
    expect(response.headers['x-ingresskit-route']).toBe('r-foo');
    expect(echoOf(response)).toMatchObject({
      url: '/foo/x%20y?q=1&r=%2F',
      host: 'routing.example.com',
      headers: {
        'x-forwarded-proto': 'http',
        'x-forwarded-host': 'routing.example.com',
        'x-real-ip': '127.0.0.1',
      },
    });
    expect(echoOf(response)?.headers.connection).toBeUndefined();
  });

  it('redirects plain HTTP to the HTTPS listener, only for hosts with TLS when asked', async () => {
    const redirect = await send('policy.example.com', '/https/a?b=1');
    expect(redirect.status).toBe(308);
    expect(redirect.headers.location).toBe(`https://policy.example.com:${ports.https}/https/a?b=1`);
    expect((await send('policy.example.com', '/https', { tls: true })).status).toBe(200);
    expect(await answer('policy.example.com', '/https-if-tls')).toBe('a');
    const stripped = await send('policy.example.com', '/strip-slash/a/');
    expect(stripped.headers.location).toBe(`https://policy.example.com:${ports.https}/strip-slash/a`);
    const withQuery = await send('policy.example.com', '/strip-slash/a/?q=/');
    expect(withQuery.headers.location).toBe(`https://policy.example.com:${ports.https}/strip-slash/a/?q=`);
    expect((await send('policy.example.com', '/https/a/')).headers.location).toBe(
      `https://policy.example.com:${ports.https}/https/a/`,
    );
    const tlsHost = await send('tls.example.com', '/x');
    expect(tlsHost.status).toBe(301);
    expect(tlsHost.headers.location).toBe(`https://tls.example.com:${ports.https}/x`);
  });

  it('enforces source allowlists and fails closed on entries it cannot parse', async () => {
    expect(await answer('policy.example.com', '/allow')).toBe('a');
    expect((await send('policy.example.com', '/deny')).status).toBe(403);
    expect((await send('policy.example.com', '/deny-bad')).status).toBe(403);
  });

  it('answers CORS preflights with 204 and adds CORS headers to responses of allowed origins', async () => {
    const preflight = await send('policy.example.com', '/cors-any/x', {
      method: 'OPTIONS',
      headers: { origin: 'https://anywhere.example.net' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': CORS_ANY.allowMethods,
      'access-control-allow-headers': CORS_ANY.allowHeaders,
      'access-control-max-age': '900',
    });
    expect(preflight.headers['access-control-expose-headers']).toBeUndefined();
    const simple = await send('policy.example.com', '/cors-any/x');
    expect(echoOf(simple)?.url).toBe('/cors-any/x');
    expect(simple.headers['access-control-allow-origin']).toBe('*');

    const allowed = await send('policy.example.com', '/cors-list', {
      headers: { origin: 'https://API.example.org:8443' },
    });
    expect(echoOf(allowed)).toBeDefined();
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': 'https://API.example.org:8443',
      'access-control-expose-headers': 'X-Total',
    });
    expect(allowed.headers['access-control-allow-credentials']).toBeUndefined();
    const listedPreflight = await send('policy.example.com', '/cors-list', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com' },
    });
    expect(listedPreflight.status).toBe(204);
    expect(listedPreflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
    for (const origin of [
      'https://evil.example.com',
      'https://a.b.example.org:8443',
      'https://app.example.com.evil.net',
    ]) {
      const other = await send('policy.example.com', '/cors-list', {
        method: 'OPTIONS',
        headers: { origin },
      });
      expect(echoOf(other)?.method).toBe('OPTIONS');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('enforces source denylists before allowlists and denies everyone for an entry it cannot parse', async () => {
    expect((await send('policy.example.com', '/denylist')).status).toBe(403);
    expect(await answer('policy.example.com', '/denylist-other')).toBe('a');
    expect((await send('policy.example.com', '/denylist-wins')).status).toBe(403);
    expect((await send('policy.example.com', '/denylist-bad')).status).toBe(403);
  });

  it('refuses bodies over the limit by Content-Length and while reading chunked bodies', async () => {
    const small = { method: 'POST', body: 'x'.repeat(11) };
    expect((await send('policy.example.com', '/small', small)).status).toBe(413);
    expect((await send('policy.example.com', '/small', { ...small, chunked: true })).status).toBe(413);
    const fits = await send('policy.example.com', '/small', {
      method: 'POST',
      body: 'y'.repeat(10),
      chunked: true,
    });
    expect(echoOf(fits)?.body).toBe('y'.repeat(10));
    const overDefault = 'z'.repeat(1024 * 1024 + 1);
    expect((await send('body.example.com', '/', { method: 'POST', body: overDefault })).status).toBe(413);
    expect(
      (await send('body.example.com', '/', { method: 'POST', body: overDefault, chunked: true })).status,
    ).toBe(413);
    const big = await send('body.example.com', '/big', { method: 'POST', body: overDefault, chunked: true });
    expect(echoOf(big)?.body.length).toBe(overDefault.length);
    expect(
      (
        await send('body.example.com', '/big', {
          method: 'POST',
          body: overDefault + 'z'.repeat(1024 * 1024),
        })
      ).status,
    ).toBe(413);
    expect(
      echoOf(
        await send('policy.example.com', '/unlimited', { method: 'POST', body: overDefault, chunked: true }),
      )?.body.length,
    ).toBe(overDefault.length);
  });

  it('applies body limits to HTTP/2 bodies without a Content-Length', async () => {
    expect(await sendHttp2('routing.example.com', '/foo')).toMatchObject({ status: 200 });
    expect((await sendHttp2('policy.example.com', '/small', 'POST', 'x'.repeat(11))).status).toBe(413);
    const fits = await sendHttp2('policy.example.com', '/small', 'POST', 'y'.repeat(10));
    expect(JSON.parse(fits.body)).toMatchObject({ body: 'y'.repeat(10) });
  });

  it('rewrites paths as route-model says: full, prefix and regex', async () => {
    expect(echoOf(await send('policy.example.com', '/rewrite-full/x?k=v'))?.url).toBe('/new?k=v');
    expect(echoOf(await send('policy.example.com', '/rewrite-prefix/x'))?.url).toBe('/x/x');
    expect(echoOf(await send('policy.example.com', '/rewrite-prefix'))?.url).toBe('/x');
    expect(echoOf(await send('policy.example.com', '/strip/users?id=1'))?.url).toBe('/users?id=1');
    expect(echoOf(await send('policy.example.com', '/strip'))?.url).toBe('/');
    expect(echoOf(await send('policy.example.com', '/re-rewrite/a/b'))?.url).toBe('/a/b');
    expect(echoOf(await send('policy.example.com', '/re-rewrite'))?.url).toBe('/');
  });

  it('changes request and response headers and the upstream Host', async () => {
    const response = await send('policy.example.com', '/headers', {
      headers: { 'x-remove': 'gone', 'x-add': 'one', 'x-set': 'old' },
    });
    expect(echoOf(response)?.headers).toMatchObject({ 'x-set': 'one', 'x-add': 'one, two' });
    expect(echoOf(response)?.headers['x-remove']).toBeUndefined();
    expect(response.headers).toMatchObject({ 'x-resp': 'yes', 'x-multi': 'b' });
    expect(response.headers['x-backend']).toBeUndefined();
    const vhost = await send('policy.example.com', '/vhost');
    expect(echoOf(vhost)).toMatchObject({
      host: 'internal.example.com',
      headers: { 'x-forwarded-host': 'policy.example.com' },
    });
  });

  it('applies route timeouts in the balancer', async () => {
    expect((await send('policy.example.com', '/timeout?delay=1000')).status).toBe(504);
    expect(await answer('policy.example.com', '/timeout?delay=10')).toBe('slow');
  });

  it('chooses among weighted backends and answers for members that cannot be served', async () => {
    for (let i = 0; i < 10; i++) expect(await answer('policy.example.com', '/weighted')).toBe('a');
    const seen = new Set<string>();
    for (let i = 0; i < 40 && seen.size < 2; i++) seen.add(await answer('policy.example.com', '/split'));
    expect([...seen].sort()).toEqual(['a', 'b']);
    expect((await send('policy.example.com', '/zero')).status).toBe(500);
    expect((await send('policy.example.com', '/invalid-member')).status).toBe(500);
    expect((await send('policy.example.com', '/invalid-member-status')).status).toBe(502);
    expect((await send('policy.example.com', '/unknown-backend')).status).toBe(503);
    expect((await send('policy.example.com', '/empty-backend')).status).toBe(503);
  });

  it('responds and redirects by itself', async () => {
    const made = await send('policy.example.com', '/respond');
    expect(made).toMatchObject({ status: 201, body: 'made here' });
    expect(made.headers['x-made']).toBe('yes');
    expect(await send('policy.example.com', '/respond-empty')).toMatchObject({ status: 204, body: '' });
    const location = async (path: string, options: object = {}) => {
      const response = await send('policy.example.com', path, options);
      return `${response.status} ${String(response.headers.location)}`;
    };
    expect(await location('/redirect-keep/x?y=1')).toBe(
      `302 http://elsewhere.example.com:${ports.http}/redirect-keep/x?y=1`,
    );
    expect(await location('/redirect-scheme/x')).toBe('301 https://policy.example.com/redirect-scheme/x');
    expect(await location('/redirect-port', { tls: true })).toBe(
      '307 http://policy.example.com/redirect-port',
    );
    expect(await location('/redirect-port2', { tls: true })).toBe(
      '308 https://policy.example.com:8081/redirect-port2',
    );
    expect(await location('/redirect-path/a?b=c')).toBe(
      `302 http://policy.example.com:${ports.http}/moved/a?b=c`,
    );
    expect(await location('/redirect-full/a')).toBe(`303 http://policy.example.com:${ports.http}/a%20b`);
    expect(await location('/redirect-query?x=y')).toBe(
      `301 http://policy.example.com:${ports.http}/q?a=1&b=%2F`,
    );
    expect(await location('/redirect-noquery?x=y')).toBe(`302 http://policy.example.com:${ports.http}/plain`);
  });

  it('serves pushed certificates by SNI and the default certificate otherwise', async () => {
    const exact = await send('tls.example.com', '/', { tls: true });
    expect(exact).toMatchObject({ status: 200, peerCommonName: 'tls.example.com' });
    expect(echoOf(exact)?.headers['x-forwarded-proto']).toBe('https');
    expect((await send('a.tlswild.example.com', '/', { tls: true })).peerCommonName).toBe(
      '*.tlswild.example.com',
    );
    expect((await send('a.b.tlswild.example.com', '/', { tls: true })).peerCommonName).toBe(
      plane.prefix.defaultCommonName,
    );
    // NO_CERTIFICATE: the default certificate, not the wildcard's, and no TLS to redirect to.
    const shielded = await send('shielded.tlswild.example.com', '/', { tls: true });
    expect(shielded).toMatchObject({ status: 200, peerCommonName: plane.prefix.defaultCommonName });
    expect(await answer('shielded.tlswild.example.com', '/')).toBe('a');
    expect((await send('unknown.example.org', '/', { tls: true })).peerCommonName).toBe(
      plane.prefix.defaultCommonName,
    );
    const withoutSni = await send('tls.example.com', '/', { tls: true, servername: null });
    expect(withoutSni.peerCommonName).toBe(plane.prefix.defaultCommonName);
  });

  it('proxies to ExternalName, IPv6, HTTPS and gRPC (HTTP/2) backends', async () => {
    expect(await answer('ext.example.com')).toBe('ext');
    expect(await answer('pinned.example.com')).toBe('ext');
    // Pinned: the address is the one given, the TLS server name is the ExternalName's.
    expect(echoOf(await send('pinned-secure.example.com', '/p'))).toMatchObject({
      backend: 'secure',
      servername: 'api.pinned.invalid',
      host: 'pinned-secure.example.com',
    });
    expect(await answer('v6.example.com')).toBe('six');
    const secure = echoOf(await send('secure-backend.example.com', '/s'));
    expect(secure).toMatchObject({
      backend: 'secure',
      servername: 'secure-backend.example.com',
      host: 'secure-backend.example.com',
    });
    const grpc = echoOf(
      await send('grpc.example.com', '/pkg.Service/Method', { method: 'POST', body: 'payload' }),
    );
    expect(grpc).toMatchObject({
      backend: 'h2',
      httpVersion: '2.0',
      url: '/pkg.Service/Method',
      body: 'payload',
    });
  });

  it('serves host, path, backend, certificate and policy changes with the same workers and no reload', async () => {
    const workers = await plane.nginx.workerPids();
    const before = await plane.status();
    const renewed = certificate('tls.example.com');
    renewed.id = 'cert-tls-renewed';
    const steps: [string, (current: RouteTable) => RouteTable, () => Promise<void>][] = [
      [
        'a new host',
        (current) => ({
          ...current,
          virtualHosts: [
            ...current.virtualHosts,
            host('new.example.com', [route('n-root', '/', forward('a'))]),
          ],
        }),
        async () => expect(await answer('new.example.com')).toBe('a'),
      ],
      [
        'a new path',
        (current) => ({
          ...current,
          virtualHosts: current.virtualHosts.map((entry) =>
            entry.hostname === 'new.example.com'
              ? host(entry.hostname, [...entry.routes, route('n-path', '/path', forward('b'))])
              : entry,
          ),
        }),
        async () => expect(await answer('new.example.com', '/path/x')).toBe('b'),
      ],
      [
        'new endpoints',
        (current) => ({
          ...current,
          backends: current.backends.map((entry) => (entry.id === 'a' ? backend('a', servers.c) : entry)),
        }),
        async () => expect(await answer('new.example.com')).toBe('c'),
      ],
      [
        'a renewed certificate',
        (current) => ({
          ...current,
          tls: current.tls.map((binding) =>
            binding.hostname === 'tls.example.com' ? { ...binding, certificate: renewed.id } : binding,
          ),
          certificates: [
            ...current.certificates.filter((entry) => entry.id !== 'cert-tls.example.com'),
            renewed,
          ],
        }),
        async () => {
          const response = await send('tls.example.com', '/', { tls: true });
          expect(response.status).toBe(200);
          expect(response.peerFingerprint).toBe(new X509Certificate(renewed.certificatePem).fingerprint256);
        },
      ],
      [
        'a policy',
        (current) => ({
          ...current,
          virtualHosts: current.virtualHosts.map((entry) =>
            entry.hostname === 'new.example.com'
              ? host(entry.hostname, [
                  route('n-root', '/', forward('a'), { policy: { allowSources: ['10.0.0.0/8'] } }),
                ])
              : entry,
          ),
        }),
        async () => expect((await send('new.example.com')).status).toBe(403),
      ],
      [
        'endpoints back',
        (current) => ({
          ...current,
          backends: current.backends.map((entry) => (entry.id === 'a' ? backend('a', servers.a) : entry)),
        }),
        async () => expect(await answer('routing.example.com', '/foo')).toBe('a'),
      ],
      [
        'a removed host',
        (current) => ({
          ...current,
          virtualHosts: current.virtualHosts.filter((entry) => entry.hostname !== 'new.example.com'),
        }),
        async () => expect(await answer('new.example.com')).toBe('catch-all'),
      ],
    ];
    for (const [, change, check] of steps) {
      const next = change(table);
      const running = buildConfiguration(table, { controlSocketPath: plane.prefix.socketPath }).configuration;
      const wanted = buildConfiguration(next, { controlSocketPath: plane.prefix.socketPath }).configuration;
      expect(diffConfigurations(running, wanted).reloadRequired).toBe(false);
      await pushTable(next);
      await check();
    }
    const after = await plane.status();
    expect(await plane.nginx.workerPids()).toEqual(workers);
    expect(after.configurationLoads).toBe(before.configurationLoads);
    expect(after.instance).toBe(before.instance);
    expect(after.version).toBe(before.version + steps.length);
    expect(await answer('routing.example.com', '/foo')).toBe('a');
  });

  it('serves a route with directives of its own without a reload, its body limit exact', async () => {
    const before = await plane.status();
    const next: RouteTable = {
      ...table,
      virtualHosts: [
        ...table.virtualHosts,
        host('tuned.example.com', [
          route('tuned-root', '/', forward('a'), {
            policy: {
              maxBodyBytes: 12345,
              upstreamSettings: { bufferSizeBytes: 131072, responseBuffering: false, retryTimeoutSeconds: 3 },
            },
          }),
        ]),
      ],
    };
    const { reloaded } = await plane.reconfigure(next);
    expect(reloaded).toBe(false);
    await pushTable(next);
    expect(await plane.status()).toMatchObject({
      instance: before.instance,
      configurationLoads: before.configurationLoads,
    });
    expect(await answer('tuned.example.com')).toBe('a');
    const body = (size: number, chunked: boolean) =>
      send('tuned.example.com', '/', { method: 'POST', body: 'x'.repeat(size), chunked });
    for (const chunked of [false, true]) {
      expect((await body(12345, chunked)).status).toBe(200);
      expect((await body(12346, chunked)).status).toBe(413);
    }
  });

  it('keeps the error log free of warnings for normal traffic and control requests', async () => {
    const before = await plane.nginx.errorLog();
    await plane.status();
    await plane.push(diffRouteTables(table, table));
    for (const path of ['/foo', '/exact', '/re/1', '/nothing']) await send('routing.example.com', path);
    await send('tls.example.com', '/', { tls: true });
    await send('unknown.example.org', '/', { tls: true, servername: null });
    await send('policy.example.com', '/headers');
    await send('policy.example.com', '/respond');
    await send('policy.example.com', '/redirect-keep');
    await send('policy.example.com', '/deny');
    const after = await plane.nginx.errorLog();
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).not.toMatch(/\[(warn|error|crit|alert|emerg)\]/);
  });

  it('answers 503 after a restart until the data is pushed again, under a new instance id', async () => {
    const before = await plane.status();
    await plane.restart();
    const restarted = await plane.status();
    expect(restarted.instance).not.toBe(before.instance);
    expect(restarted.version).toBe(0);
    expect((await send('routing.example.com', '/foo')).status).toBe(503);
    expect((await plane.push(table)).status).toBe(201);
    expect(await answer('routing.example.com', '/foo')).toBe('a');
  });
});
