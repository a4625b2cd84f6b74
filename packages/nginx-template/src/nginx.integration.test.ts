/**
 * End to end: real nginx (Debian, with the Lua module) started from a rendered config, small
 * HTTP backends on 127.0.0.1, real requests. Then endpoints change through the Lua endpoint and
 * traffic moves with no reload; finally a real reload shows the counters do move when it happens.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BACKENDS_ENDPOINT_PATH,
  backendsPayload,
  buildConfiguration,
  diffConfigurations,
  renderNginxConf,
  STATUS_ENDPOINT_PATH,
  type Configuration,
  type ConfigurationInput,
  type RenderOptions,
} from './index.js';
import { A, endpointSlice, externalService, ingress, path, service, tlsSecret } from './testing/fixtures.js';
import {
  createNginxPrefix,
  findFreePort,
  sendRequest,
  startNginx,
  type NginxPrefix,
  type NginxProcess,
} from './testing/nginx-process.js';

interface Echo {
  backend: string;
  url: string;
  host: string;
  forwardedProto?: string;
}

interface Backend {
  name: string;
  port: number;
  server: HttpServer;
}

async function startBackend(name: string, host = '127.0.0.1'): Promise<Backend> {
  const server = createServer((request, response) => {
    const echo: Echo = { backend: name, url: request.url ?? '', host: request.headers.host ?? '' };
    const proto = request.headers['x-forwarded-proto'];
    if (typeof proto === 'string') echo.forwardedProto = proto;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(echo));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  return { name, port: typeof address === 'object' && address !== null ? address.port : 0, server };
}

const names = ['a', 'b', 'fallback', 'one', 'two', 'external', 'six'] as const;
type BackendName = (typeof names)[number];
const backends = {} as Record<BackendName, Backend>;
let prefix: NginxPrefix;
let nginx: NginxProcess;
let ports: { http: number; https: number; status: number };
let running: Configuration;
let renderOptions: RenderOptions;

function slice(serviceName: string, targets: BackendName[]) {
  // All backends listen on 127.0.0.1 and differ by port, so each target gets a slice of its own.
  return targets.map((target, index) =>
    endpointSlice(serviceName, backends[target].port, ['127.0.0.1'], { name: `${serviceName}-${index}` }),
  );
}

function createInput(dynamicTargets: BackendName[], withDefaultBackend = true): ConfigurationInput {
  const tls = (host: string, secretName: string) => ({ tls: [{ hosts: [host], secretName }] });
  const input: ConfigurationInput = {
    ingresses: [
      ingress('routing', {
        'routing.example.com': [
          path('/foo', 'Prefix', 'a'),
          path('/foo/bar', 'Prefix', 'b'),
          path('/exact', 'Exact', 'b'),
          path('/impl', 'ImplementationSpecific', 'b'),
        ],
      }),
      ingress(
        'secure',
        { 'secure.example.com': [path('/', 'Prefix', 'a')] },
        tls('secure.example.com', 'secure-tls'),
      ),
      ingress(
        'wild',
        { '*.wild.example.com': [path('/', 'Prefix', 'b')] },
        {
          ...tls('*.wild.example.com', 'wild-tls'),
          annotations: { [`${A}ssl-redirect`]: 'false' },
        },
      ),
      ingress(
        'regex',
        { 'rewrite.example.com': [path('/something(/|$)(.*)', 'ImplementationSpecific', 'a')] },
        {
          annotations: { [`${A}use-regex`]: 'true', [`${A}rewrite-target`]: '/$2' },
        },
      ),
      ingress(
        'strip',
        { 'strip.example.com': [path('/app', 'Prefix', 'a')] },
        { annotations: { [`${A}rewrite-target`]: '/' } },
      ),
      ingress(
        'allowed',
        { 'allow.example.com': [path('/', 'Prefix', 'a')] },
        {
          annotations: { [`${A}whitelist-source-range`]: '127.0.0.1/32, 10.0.0.0/8' },
        },
      ),
      ingress(
        'denied',
        { 'deny.example.com': [path('/', 'Prefix', 'a')] },
        { annotations: { [`${A}whitelist-source-range`]: '10.0.0.0/8' } },
      ),
      ingress(
        'vhost',
        { 'vhost.example.com': [path('/', 'Prefix', 'a')] },
        { annotations: { [`${A}upstream-vhost`]: 'internal.example.com' } },
      ),
      ingress('external', { 'external.example.com': [path('/', 'Prefix', 'ext', backends.external.port)] }),
      ingress('empty', { 'empty.example.com': [path('/', 'Prefix', 'nobody')] }),
      ingress('dynamic', { 'dyn.example.com': [path('/', 'Prefix', 'dyn')] }),
      ingress('ipv6', { 'v6.example.com': [path('/', 'Prefix', 'v6')] }),
    ],
    services: [
      service('a'),
      service('b'),
      service('fallback'),
      service('nobody'),
      service('dyn'),
      service('v6'),
      externalService('ext', '127.0.0.1'),
    ],
    endpointSlices: [
      ...slice('a', ['a']),
      ...slice('b', ['b']),
      ...slice('fallback', ['fallback']),
      ...slice('dyn', dynamicTargets),
      endpointSlice('v6', backends.six.port, ['::1'], { name: 'v6-1', addressType: 'IPv6' }),
    ],
    secrets: [tlsSecret('secure-tls', 'secure'), tlsSecret('wild-tls', 'wildcard')],
  };
  if (withDefaultBackend) input.defaultBackend = { namespace: 'default', name: 'fallback', port: 80 };
  return input;
}

function build(input: ConfigurationInput): Configuration {
  const { configuration, problems } = buildConfiguration(input);
  expect(problems).toEqual([]);
  return configuration;
}

async function get(
  host: string,
  path = '/',
  tls = false,
): Promise<{ status: number; echo?: Echo; location?: string; cn?: string }> {
  const response = await sendRequest({ port: tls ? ports.https : ports.http, host, path, tls });
  const result: { status: number; echo?: Echo; location?: string; cn?: string } = { status: response.status };
  if (response.headers['content-type'] === 'application/json')
    result.echo = JSON.parse(response.body) as Echo;
  if (typeof response.headers.location === 'string') result.location = response.headers.location;
  if (response.peerCommonName !== undefined) result.cn = response.peerCommonName;
  return result;
}

async function backendOf(host: string, path = '/'): Promise<string> {
  const response = await get(host, path);
  return response.echo?.backend ?? `status ${response.status}`;
}

async function postBackends(configuration: Configuration): Promise<number> {
  const response = await sendRequest({
    port: ports.status,
    host: '127.0.0.1',
    path: BACKENDS_ENDPOINT_PATH,
    method: 'POST',
    body: backendsPayload(configuration),
    headers: { 'content-type': 'application/json' },
  });
  return response.status;
}

/** Writes `text` to a plain TCP connection and returns everything nginx answers before closing it. */
function sendRaw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    socket.setEncoding('utf8');
    socket.setTimeout(10_000, () => socket.destroy(new Error('raw request timed out')));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

async function status(): Promise<{
  checksum: string;
  configurationLoads: number;
  backendsVersion: number;
  workerPid: number;
}> {
  const response = await sendRequest({ port: ports.status, host: '127.0.0.1', path: STATUS_ENDPOINT_PATH });
  return JSON.parse(response.body) as never;
}

beforeAll(async () => {
  for (const name of names) backends[name] = await startBackend(name, name === 'six' ? '::1' : '127.0.0.1');
  ports = { http: await findFreePort(), https: await findFreePort(), status: await findFreePort() };
  renderOptions = {
    httpPort: ports.http,
    httpsPort: ports.https,
    statusPort: ports.status,
    listenAddresses: ['127.0.0.1'],
    workerProcesses: 2,
    workerConnections: 256,
  };
  running = build(createInput(['one']));
  prefix = await createNginxPrefix(renderNginxConf(running, renderOptions), running.certificates);
  nginx = await startNginx(prefix, 2);
  expect(await postBackends(running)).toBe(201);
});

afterAll(async () => {
  await nginx?.stop();
  await prefix?.remove();
  for (const backend of Object.values(backends))
    await new Promise((resolve) => backend.server.close(resolve));
});

describe('nginx with a rendered configuration', () => {
  it('routes Prefix paths element-wise and the longest match first', async () => {
    expect(await backendOf('routing.example.com', '/foo')).toBe('a');
    expect(await backendOf('routing.example.com', '/foo/')).toBe('a');
    expect(await backendOf('routing.example.com', '/foo/x')).toBe('a');
    expect(await backendOf('routing.example.com', '/foo/bar')).toBe('b');
    expect(await backendOf('routing.example.com', '/foo/bar/baz')).toBe('b');
    expect(await backendOf('routing.example.com', '/foobar')).toBe('fallback');
  });

  it('routes Exact paths exactly and ImplementationSpecific paths as plain prefixes', async () => {
    expect(await backendOf('routing.example.com', '/exact')).toBe('b');
    expect(await backendOf('routing.example.com', '/exact/')).toBe('fallback');
    expect(await backendOf('routing.example.com', '/impl')).toBe('b');
    expect(await backendOf('routing.example.com', '/implx')).toBe('b');
  });

  it('passes the path and query to the backend unchanged without rewrite-target', async () => {
    const response = await get('routing.example.com', '/foo/x?q=1');
    expect(response.echo).toMatchObject({
      url: '/foo/x?q=1',
      host: 'routing.example.com',
      forwardedProto: 'http',
    });
  });

  it('sends unknown hosts and unmatched paths to the default backend', async () => {
    expect(await backendOf('unknown.example.com', '/anything')).toBe('fallback');
    expect(await backendOf('routing.example.com', '/')).toBe('fallback');
  });

  it('matches a wildcard host one label deep only', async () => {
    expect(await backendOf('x.wild.example.com')).toBe('b');
    expect(await backendOf('x.y.wild.example.com')).toBe('fallback');
  });

  it('serves TLS with the certificate chosen by SNI', async () => {
    const secure = await get('secure.example.com', '/', true);
    expect(secure).toMatchObject({ status: 200, cn: 'secure.example.com' });
    expect(secure.echo).toMatchObject({ backend: 'a', forwardedProto: 'https' });
    const wild = await get('x.wild.example.com', '/', true);
    expect(wild).toMatchObject({ status: 200, cn: '*.wild.example.com' });
    expect(wild.echo?.backend).toBe('b');
  });

  it('refuses the TLS handshake for a name without a certificate', async () => {
    await expect(get('unknown.example.com', '/', true)).rejects.toThrow();
  });

  it('redirects plain HTTP to HTTPS on TLS hosts, unless ssl-redirect is false', async () => {
    expect(await get('secure.example.com', '/a?b=1')).toMatchObject({
      status: 308,
      location: `https://secure.example.com:${ports.https}/a?b=1`,
    });
    expect((await get('x.wild.example.com')).status).toBe(200);
  });

  it('rewrites with regex captures and strips a Prefix with rewrite-target /', async () => {
    expect((await get('rewrite.example.com', '/something/x/y?q=1')).echo?.url).toBe('/x/y?q=1');
    expect((await get('rewrite.example.com', '/something')).echo?.url).toBe('/');
    expect((await get('strip.example.com', '/app/users')).echo?.url).toBe('/users');
    expect((await get('strip.example.com', '/app')).echo?.url).toBe('/');
  });

  it('enforces the source allowlist', async () => {
    expect((await get('allow.example.com')).status).toBe(200);
    expect((await get('deny.example.com')).status).toBe(403);
  });

  it('sends the upstream-vhost as Host', async () => {
    expect((await get('vhost.example.com')).echo?.host).toBe('internal.example.com');
  });

  it('proxies an ExternalName Service to its target', async () => {
    expect(await backendOf('external.example.com')).toBe('external');
  });

  it('balances to IPv6 endpoints', async () => {
    expect(await backendOf('v6.example.com')).toBe('six');
  });

  it('answers 503 for a backend without endpoints', async () => {
    expect((await get('empty.example.com')).status).toBe(503);
  });

  it('reports the running checksum through the status endpoint', async () => {
    expect((await status()).checksum).toBe(running.checksum);
  });

  it('moves traffic between endpoints without a reload', async () => {
    const masterBefore = nginx.masterPid;
    const workersBefore = await nginx.workerPids();
    const statusBefore = await status();
    expect(await backendOf('dyn.example.com')).toBe('one');

    const next = build(createInput(['two']));
    expect(diffConfigurations(running, next)).toMatchObject({ reloadRequired: false, backendsChanged: true });
    expect(await postBackends(next)).toBe(201);
    for (let i = 0; i < 6; i++) expect(await backendOf('dyn.example.com')).toBe('two');

    const both = build(createInput(['one', 'two']));
    expect(diffConfigurations(next, both).reloadRequired).toBe(false);
    expect(await postBackends(both)).toBe(201);
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) seen.add(await backendOf('dyn.example.com'));
    expect([...seen].sort()).toEqual(['one', 'two']);

    const none = build(createInput([]));
    expect(diffConfigurations(both, none).reloadRequired).toBe(false);
    expect(await postBackends(none)).toBe(201);
    expect((await get('dyn.example.com')).status).toBe(503);

    expect(await postBackends(running)).toBe(201);
    expect(await backendOf('dyn.example.com')).toBe('one');

    const statusAfter = await status();
    expect(nginx.masterPid).toBe(masterBefore);
    expect(await nginx.workerPids()).toEqual(workersBefore);
    expect(statusAfter.configurationLoads).toBe(statusBefore.configurationLoads);
    expect(statusAfter.backendsVersion).toBe(statusBefore.backendsVersion + 4);
    expect(statusAfter.checksum).toBe(statusBefore.checksum);
  });

  it('logs no warning for requests to the configuration server', async () => {
    const logBefore = await nginx.errorLog();
    expect(await postBackends(running)).toBe(201);
    expect((await status()).checksum).toBe(running.checksum);
    const local = (path: string) => sendRequest({ port: ports.status, host: '127.0.0.1', path });
    expect((await local('/healthz')).status).toBe(200);
    expect((await local('/elsewhere')).status).toBe(404);

    const logAfter = await nginx.errorLog();
    expect(logAfter.startsWith(logBefore)).toBe(true);
    expect(logAfter.slice(logBefore.length)).not.toMatch(/\[(warn|error|crit|alert|emerg)\]/);
  });

  it('logs no warning for malformed requests refused before routing', async () => {
    const logBefore = await nginx.errorLog();
    expect(await sendRaw(ports.http, 'NOT-HTTP\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await sendRaw(ports.http, 'GET / HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await sendRaw(ports.https, 'GET / HTTP/1.1\r\nHost: secure.example.com\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400 /,
    );

    const logAfter = await nginx.errorLog();
    expect(logAfter.startsWith(logBefore)).toBe(true);
    expect(logAfter.slice(logBefore.length)).not.toMatch(/\[(warn|error|crit|alert|emerg)\]/);
  });

  it('refuses a malformed backends payload and keeps the last good one', async () => {
    for (const body of [
      'not json',
      '{"backends": 3}',
      '{"backends":[{"name":"x","endpoints":[{"address":"1.2.3.4","port":0}]}]}',
    ]) {
      const response = await sendRequest({
        port: ports.status,
        host: '127.0.0.1',
        path: BACKENDS_ENDPOINT_PATH,
        method: 'POST',
        body,
      });
      expect(response.status).toBe(400);
    }
    expect(await backendOf('dyn.example.com')).toBe('one');
  });

  it('counts a real reload, keeps posted endpoints across it, and serves 404 from the catch-all without a default backend', async () => {
    const before = await status();
    const workersBefore = await nginx.workerPids();
    const next = build(createInput(['one'], false));
    expect(diffConfigurations(running, next).reloadRequired).toBe(true);
    await prefix.writeConf(renderNginxConf(next, renderOptions));
    await nginx.reload();
    running = next;

    const after = await status();
    expect(after.configurationLoads).toBe(before.configurationLoads + 1);
    expect(after.checksum).toBe(next.checksum);
    expect((await nginx.workerPids()).some((pid) => workersBefore.includes(pid))).toBe(false);
    expect(await backendOf('dyn.example.com')).toBe('one');
    expect((await get('unknown.example.com', '/anything')).status).toBe(404);
    expect((await get('routing.example.com', '/')).status).toBe(404);
  });
});
