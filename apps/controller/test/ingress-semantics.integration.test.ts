/**
 * Ingress semantics through the whole stack: Ingresses in the local API server, the controller,
 * ingress-routes and the route model, nginx's Lua router, real HTTP to small echo backends. The
 * scenarios of the old nginx-template end-to-end test, with two deliberate changes: an
 * ImplementationSpecific path matches element-wise like Prefix (ingress-nginx converts it to
 * Prefix), and a TLS name without a certificate gets the default certificate instead of a refused
 * handshake.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import { probe } from '../src/http-probe.js';
import {
  ingressClassManifest,
  presentedCertificate,
  startController,
  startLocalApiServer,
  tlsSecretManifest,
  type LocalApiServer,
} from './harness.js';

const A = 'nginx.ingress.kubernetes.io/';

interface Echo {
  backend: string;
  url: string;
  host: string;
  forwardedProto?: string;
  forwardedPrefix?: string;
}

interface EchoBackend {
  name: string;
  address: string;
  port: number;
  server: Server;
}

async function startEcho(name: string, address = '127.0.0.1'): Promise<EchoBackend> {
  const server = createServer((request, response) => {
    const echo: Echo = { backend: name, url: request.url ?? '', host: request.headers.host ?? '' };
    const proto = request.headers['x-forwarded-proto'];
    if (typeof proto === 'string') echo.forwardedProto = proto;
    const prefix = request.headers['x-forwarded-prefix'];
    if (typeof prefix === 'string') echo.forwardedPrefix = prefix;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(echo));
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  return { name, address, port: (server.address() as AddressInfo).port, server };
}

let server: LocalApiServer;
let controller: Controller;
const echoes = new Map<string, EchoBackend>();

type PathSpec = [path: string, pathType: string, service: string, port?: number];

function ingress(
  name: string,
  rules: Record<string, PathSpec[]>,
  extra: { annotations?: Record<string, string>; tls?: { hosts: string[]; secretName: string }[] } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: 'default',
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec: {
      ingressClassName: 'nginx',
      ...(extra.tls ? { tls: extra.tls } : {}),
      rules: Object.entries(rules).map(([host, paths]) => ({
        host,
        http: {
          paths: paths.map(([path, pathType, service, port = 80]) => ({
            path,
            pathType,
            backend: { service: { name: service, port: { number: port } } },
          })),
        },
      })),
    },
  };
}

/** A Service `name` on port 80 and one EndpointSlice pointing at the echo backend `target`. */
function service(name: string, target?: EchoBackend): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'default' },
      spec: { ports: [{ name: 'http', port: 80 }] },
    },
  ];
  if (target !== undefined) {
    objects.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${name}-1`, namespace: 'default', labels: { 'kubernetes.io/service-name': name } },
      addressType: target.address.includes(':') ? 'IPv6' : 'IPv4',
      endpoints: [{ addresses: [target.address], conditions: { ready: true } }],
      ports: [{ name: 'http', port: target.port }],
    });
  }
  return objects;
}

async function get(
  host: string,
  path = '/',
  tls = false,
): Promise<{ status: number; echo?: Echo; location?: string }> {
  const response = await probe({
    port: tls ? controller.config.httpsPort : controller.config.httpPort,
    host,
    path,
    tls,
  });
  const result: { status: number; echo?: Echo; location?: string } = { status: response.status };
  if (response.headers['content-type'] === 'application/json')
    result.echo = JSON.parse(response.body) as Echo;
  if (typeof response.headers.location === 'string') result.location = response.headers.location;
  return result;
}

/** A plain-HTTP request with a method and an Origin, for CORS; the status, headers and whether a backend answered. */
function sendWithOrigin(
  host: string,
  method: string,
  origin: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; echoed: boolean }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: controller.config.httpPort,
        path: '/x',
        method,
        headers: { host, origin, connection: 'close' },
        agent: false,
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            echoed: response.headers['content-type'] === 'application/json',
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function backendOf(host: string, path = '/'): Promise<string> {
  const response = await get(host, path);
  return response.echo?.backend ?? `status ${response.status}`;
}

/** The subject CN of the certificate nginx presents for `serverName`. */
async function servedCommonName(serverName: string): Promise<string> {
  return String((await presentedCertificate(controller, serverName)).subject.CN);
}

beforeAll(async () => {
  for (const name of ['a', 'b', 'fallback', 'external']) echoes.set(name, await startEcho(name));
  echoes.set('six', await startEcho('six', '::1'));
  const echo = (name: string) => echoes.get(name)!;
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...service('a', echo('a')),
    ...service('b', echo('b')),
    ...service('fallback', echo('fallback')),
    ...service('nobody'),
    ...service('v6', echo('six')),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ext', namespace: 'default' },
      spec: { type: 'ExternalName', externalName: '127.0.0.1', ports: [{ port: echo('external').port }] },
    },
    tlsSecretManifest('secure-tls', 'secure.example.com'),
    tlsSecretManifest('wild-tls', '*.wild.example.com'),
    ingress('routing', {
      'routing.example.com': [
        ['/foo', 'Prefix', 'a'],
        ['/foo/bar', 'Prefix', 'b'],
        ['/exact', 'Exact', 'b'],
        ['/trail/', 'Exact', 'b'],
        ['/impl', 'ImplementationSpecific', 'b'],
      ],
    }),
    ingress(
      'secure',
      { 'secure.example.com': [['/', 'Prefix', 'a']] },
      { tls: [{ hosts: ['secure.example.com'], secretName: 'secure-tls' }] },
    ),
    ingress(
      'wild',
      { '*.wild.example.com': [['/', 'Prefix', 'b']] },
      {
        tls: [{ hosts: ['*.wild.example.com'], secretName: 'wild-tls' }],
        annotations: { [`${A}ssl-redirect`]: 'false' },
      },
    ),
    ingress(
      'regex',
      { 'rewrite.example.com': [['/something(/|$)(.*)', 'ImplementationSpecific', 'a']] },
      { annotations: { [`${A}use-regex`]: 'true', [`${A}rewrite-target`]: '/$2' } },
    ),
    ingress(
      'strip',
      { 'strip.example.com': [['/app', 'Prefix', 'a']] },
      { annotations: { [`${A}rewrite-target`]: '/' } },
    ),
    ingress(
      'allowed',
      { 'allow.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}whitelist-source-range`]: '127.0.0.1/32, 10.0.0.0/8' } },
    ),
    ingress(
      'denied',
      { 'deny.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}whitelist-source-range`]: '10.0.0.0/8' } },
    ),
    ingress(
      'vhost',
      { 'vhost.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}upstream-vhost`]: 'internal.example.com' } },
    ),
    tlsSecretManifest('moved-tls', 'moved.example.com'),
    ingress(
      'moved',
      { 'moved.example.com': [['/', 'Prefix', 'a']] },
      {
        tls: [{ hosts: ['moved.example.com'], secretName: 'moved-tls' }],
        annotations: { [`${A}permanent-redirect`]: 'https://new.example.com$request_uri' },
      },
    ),
    ingress(
      'moved-308',
      { 'moved308.example.com': [['/', 'Prefix', 'a']] },
      {
        annotations: {
          [`${A}permanent-redirect`]: 'https://new.example.com/landing',
          [`${A}permanent-redirect-code`]: '308',
        },
      },
    ),
    ingress(
      'temporal',
      { 'temporal.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}temporal-redirect`]: 'http://target.example.com:8080/x?y=1' } },
    ),
    ingress(
      'app-root',
      { 'approot.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}app-root`]: '/app1' } },
    ),
    ingress(
      'forwarded-prefix',
      { 'prefix.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}x-forwarded-prefix`]: '/api' } },
    ),
    ingress(
      'denylisted',
      { 'denylisted.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}denylist-source-range`]: '127.0.0.1, 10.0.0.0/8' } },
    ),
    ingress(
      'denylist-other',
      { 'denylist-other.example.com': [['/', 'Prefix', 'a']] },
      {
        annotations: {
          [`${A}denylist-source-range`]: '10.0.0.0/8',
          [`${A}allowlist-source-range`]: '127.0.0.0/8',
        },
      },
    ),
    ingress(
      'cors-default',
      { 'cors.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}enable-cors`]: 'true' } },
    ),
    ingress(
      'cors-list',
      { 'cors-list.example.com': [['/', 'Prefix', 'a']] },
      {
        annotations: {
          [`${A}enable-cors`]: 'true',
          [`${A}cors-allow-origin`]: 'https://app.example.com, https://*.example.org',
          [`${A}cors-allow-methods`]: 'GET, POST',
          [`${A}cors-allow-headers`]: 'X-Token',
          [`${A}cors-expose-headers`]: 'X-Total',
          [`${A}cors-allow-credentials`]: 'false',
          [`${A}cors-max-age`]: '600',
        },
      },
    ),
    ingress(
      'www',
      { 'bare.example.net': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}from-to-www-redirect`]: 'true' } },
    ),
    ingress(
      'aliased',
      { 'aliased.example.com': [['/', 'Prefix', 'b']] },
      { annotations: { [`${A}server-alias`]: 'other-name.example.com' } },
    ),
    ingress(
      'keep-slash',
      { 'keepslash.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}force-ssl-redirect`]: 'true', [`${A}preserve-trailing-slash`]: 'true' } },
    ),
    ingress(
      'limited',
      { 'limited.example.com': [['/', 'Prefix', 'a']] },
      { annotations: { [`${A}limit-rate`]: '100' } },
    ),
    ingress('external', { 'external.example.com': [['/', 'Prefix', 'ext', echo('external').port]] }),
    ingress('empty', { 'empty.example.com': [['/', 'Prefix', 'nobody']] }),
    ingress('ipv6', { 'v6.example.com': [['/', 'Prefix', 'v6']] }),
  ]);
  controller = await startController(server, {
    podName: 'semantics',
    defaultBackend: { namespace: 'default', name: 'fallback', port: 80 },
  });
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  for (const echo of echoes.values()) await new Promise((resolve) => echo.server.close(resolve));
});

describe('Ingress semantics through the controller and nginx', () => {
  it('routes Prefix paths element-wise and the longest match first', async () => {
    expect(await backendOf('routing.example.com', '/foo')).toBe('a');
    expect(await backendOf('routing.example.com', '/foo/')).toBe('a');
    expect(await backendOf('routing.example.com', '/foo/x')).toBe('a');
    expect(await backendOf('routing.example.com', '/foo/bar')).toBe('b');
    expect(await backendOf('routing.example.com', '/foo/bar/baz')).toBe('b');
    expect(await backendOf('routing.example.com', '/foobar')).toBe('fallback');
  });

  it('routes Exact paths exactly and ImplementationSpecific paths as Prefix', async () => {
    expect(await backendOf('routing.example.com', '/exact')).toBe('b');
    expect(await backendOf('routing.example.com', '/exact/')).toBe('fallback');
    // The upstream conformance case: no automatic 301 from /trail to /trail/, as nginx's locations make.
    expect(await backendOf('routing.example.com', '/trail/')).toBe('b');
    expect(await backendOf('routing.example.com', '/trail')).toBe('fallback');
    expect(await backendOf('routing.example.com', '/impl')).toBe('b');
    expect(await backendOf('routing.example.com', '/impl/x')).toBe('b');
    expect(await backendOf('routing.example.com', '/implx')).toBe('fallback');
  });

  it('passes the path and query to the backend unchanged without rewrite-target', async () => {
    expect((await get('routing.example.com', '/foo/x?q=1')).echo).toMatchObject({
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

  it('serves TLS with the certificate chosen by SNI, and the default certificate for other names', async () => {
    expect(await servedCommonName('secure.example.com')).toBe('secure.example.com');
    expect(await servedCommonName('x.wild.example.com')).toBe('*.wild.example.com');
    expect(await servedCommonName('unknown.example.com')).toBe('ingresskit default certificate');
    const secure = await get('secure.example.com', '/', true);
    expect(secure.echo).toMatchObject({ backend: 'a', forwardedProto: 'https' });
    expect((await get('x.wild.example.com', '/', true)).echo?.backend).toBe('b');
  });

  it('drops a trailing slash in the HTTPS redirect as ingress-nginx does, unless preserve-trailing-slash', async () => {
    expect((await get('secure.example.com', '/a/')).location).toBe(
      `https://secure.example.com:${controller.config.httpsPort}/a`,
    );
    expect(await get('keepslash.example.com', '/a/')).toMatchObject({
      status: 308,
      location: `https://keepslash.example.com:${controller.config.httpsPort}/a/`,
    });
  });

  it('redirects plain HTTP to HTTPS on TLS hosts, unless ssl-redirect is false', async () => {
    expect(await get('secure.example.com', '/a?b=1')).toMatchObject({
      status: 308,
      location: `https://secure.example.com:${controller.config.httpsPort}/a?b=1`,
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

  it('enforces the source denylist, and the allowlist beside it', async () => {
    expect((await get('denylisted.example.com')).status).toBe(403);
    expect(await backendOf('denylist-other.example.com')).toBe('a');
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

  it('answers permanent-redirect with 301 (or its code) before any HTTPS redirect', async () => {
    expect(await get('moved.example.com', '/a/b?c=1')).toMatchObject({
      status: 301,
      location: 'https://new.example.com/a/b?c=1',
    });
    expect(await get('moved.example.com', '/a', true)).toMatchObject({
      status: 301,
      location: 'https://new.example.com/a',
    });
    expect(await get('moved308.example.com', '/anything?q=1')).toMatchObject({
      status: 308,
      location: 'https://new.example.com/landing',
    });
  });

  it('answers temporal-redirect with 302 to the URL as written', async () => {
    expect(await get('temporal.example.com', '/some/where?z=2')).toMatchObject({
      status: 302,
      location: 'http://target.example.com:8080/x?y=1',
    });
  });

  it('redirects / to the app-root with 302 and serves every other path', async () => {
    expect(await get('approot.example.com', '/?q=1')).toMatchObject({
      status: 302,
      location: `http://approot.example.com:${controller.config.httpPort}/app1`,
    });
    expect((await get('approot.example.com', '/app1')).echo).toMatchObject({ backend: 'a', url: '/app1' });
  });

  it('sends x-forwarded-prefix upstream as X-Forwarded-Prefix', async () => {
    expect((await get('prefix.example.com', '/x')).echo?.forwardedPrefix).toBe('/api');
  });

  it('answers CORS preflights with 204 and ingress-nginx defaults, and adds the headers to responses', async () => {
    const preflight = await sendWithOrigin('cors.example.com', 'OPTIONS', 'https://site.example.net');
    expect(preflight.status).toBe(204);
    expect(preflight.echoed).toBe(false);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, PUT, POST, DELETE, PATCH, OPTIONS',
      'access-control-allow-headers':
        'DNT,X-CustomHeader,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Authorization',
      'access-control-max-age': '1728000',
    });
    const simple = await sendWithOrigin('cors.example.com', 'GET', 'https://site.example.net');
    expect(simple).toMatchObject({ status: 200, echoed: true });
    expect(simple.headers['access-control-allow-origin']).toBe('*');
  });

  it('allows only the listed CORS origins, echoing the one allowed', async () => {
    const listed = await sendWithOrigin('cors-list.example.com', 'OPTIONS', 'https://api.example.org');
    expect(listed.status).toBe(204);
    expect(listed.headers).toMatchObject({
      'access-control-allow-origin': 'https://api.example.org',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'X-Token',
      'access-control-expose-headers': 'X-Total',
      'access-control-max-age': '600',
    });
    expect(listed.headers['access-control-allow-credentials']).toBeUndefined();
    const other = await sendWithOrigin('cors-list.example.com', 'OPTIONS', 'https://evil.example.com');
    expect(other).toMatchObject({ status: 200, echoed: true });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const simple = await sendWithOrigin('cors-list.example.com', 'GET', 'https://app.example.com');
    expect(simple.headers['access-control-allow-origin']).toBe('https://app.example.com');
  });

  it('redirects the www. name to the host with from-to-www-redirect', async () => {
    expect(await get('www.bare.example.net', '/a/b?c=1')).toMatchObject({
      status: 308,
      location: `http://bare.example.net:${controller.config.httpPort}/a/b?c=1`,
    });
    expect(await backendOf('bare.example.net', '/a')).toBe('a');
  });

  it('serves a server-alias like its host', async () => {
    expect(await backendOf('other-name.example.com', '/z')).toBe('b');
    expect(await backendOf('aliased.example.com', '/z')).toBe('b');
  });

  it('keeps an Ingress with limit-rate, which it cannot enforce, closed', async () => {
    expect(await backendOf('limited.example.com')).toBe('fallback');
  });
});
