/**
 * ingress-nginx's external authentication end to end (local API server, the controller, nginx, a
 * real auth service and backend on 127.0.0.1): auth-url lets 2xx through and answers 401/403 as
 * the service does, and 500 for anything else or no answer (fail closed); auth-method,
 * auth-signin with auth-signin-redirect-param, auth-response-headers, auth-request-redirect and
 * auth-always-set-cookie; auth-proxy-set-headers (the ConfigMap's headers reach the service, a
 * missing ConfigMap closes the routes until it exists, a change applies without touching the
 * Ingress); the check never carries the body; an invalid or forbidden auth-url leaves only its
 * own Ingress out. auth-keepalive, set on a served Ingress, applies without a reload and makes
 * the checks share one connection to the service.
 */
import type { IncomingHttpHeaders, RequestListener } from 'node:http';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { probe, type ProbeResponse } from '../src/http-probe.js';
import { A, annotatedIngress, expectNoReload, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, serviceManifests } from './harness.js';

/** The ConfigMap `name` in `default` with `data`. */
function configMap(name: string, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name }, data };
}

/** One request the auth service received. */
interface AuthCall {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyBytes: number;
  /** The port nginx connected from: one per connection. */
  peerPort: number;
}

const calls: AuthCall[] = [];

/**
 * The auth service: the client's `x-verdict` header (passed on to it, as every client header is)
 * decides the answer, so each test picks its own.
 */
const authService: RequestListener = (request, response) => {
  let bodyBytes = 0;
  request.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
  request.on('end', () => {
    calls.push({
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      bodyBytes,
      peerPort: request.socket.remotePort ?? 0,
    });
    const verdict = request.headers['x-verdict'] ?? 'allow';
    if (verdict === 'allow') {
      response.writeHead(200, {
        'X-Auth-Request-User': 'alice',
        'X-Auth-Request-Email': 'alice@example.test',
        'Set-Cookie': 'session=fresh; Path=/',
      });
    } else if (verdict === 'allow-without-user') {
      response.writeHead(204);
    } else if (verdict === '401') {
      response.writeHead(401, {
        'WWW-Authenticate': 'Bearer realm="test"',
        'Set-Cookie': 'session=gone; Path=/',
      });
    } else if (verdict === '401-plain') {
      response.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="test"' });
    } else if (verdict === '403') {
      response.writeHead(403, { 'Set-Cookie': 'session=gone; Path=/' });
    } else {
      response.writeHead(Number(verdict));
    }
    response.end('auth body is never shown');
  });
};

/** The backend: the request it got, as JSON. */
const echo: RequestListener = (request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => (body += chunk));
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ method: request.method, url: request.url, headers: request.headers, body }),
    );
  });
};

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let authUrl = '';

const testCase = useAnnotationsCase({
  config: { podName: 'external-auth' },
  readyHost: 'open.test',
  objects: async ({ listen }) => {
    authUrl = `http://127.0.0.1:${await listen(authService)}/check?from=nginx`;
    const down = `http://127.0.0.1:${await closedPort()}/check`;
    const guarded = (host: string, annotations: Record<string, string> = {}) =>
      annotatedIngress(host, 'echo', { [`${A}auth-url`]: authUrl, ...annotations });
    return [
      ...serviceManifests('echo', []),
      endpointSliceManifest('echo-1', 'echo', await listen(echo)),
      annotatedIngress('open.test', 'echo', {}),
      guarded('ext.test', { [`${A}auth-response-headers`]: 'X-Auth-Request-User, X-Auth-Request-Email' }),
      guarded('method.test', { [`${A}auth-method`]: 'POST' }),
      guarded('signin.test', { [`${A}auth-signin`]: 'https://login.example/start' }),
      guarded('param.test', {
        [`${A}auth-signin`]: 'https://login.example/start?app=shop',
        [`${A}auth-signin-redirect-param`]: 'return_to',
      }),
      guarded('variables.test', {
        [`${A}auth-signin`]: 'https://$host/oauth2/start?rd=$escaped_request_uri',
      }),
      guarded('redirect.test', { [`${A}auth-request-redirect`]: 'https://app.example/after' }),
      guarded('cookie.test', { [`${A}auth-always-set-cookie`]: 'true' }),
      guarded('any-listed.test', { [`${A}satisfy`]: 'any', [`${A}allowlist-source-range`]: '127.0.0.1/32' }),
      guarded('any-unlisted.test', { [`${A}satisfy`]: 'any', [`${A}allowlist-source-range`]: '10.0.0.0/8' }),
      guarded('all-unlisted.test', { [`${A}allowlist-source-range`]: '10.0.0.0/8' }),
      guarded('cache.test', {
        [`${A}auth-cache-key`]: '$http_x_user',
        [`${A}auth-cache-duration`]: '204 401 1m',
      }),
      guarded('cache-too.test', {
        [`${A}auth-cache-key`]: '$http_x_user',
        [`${A}auth-cache-duration`]: '204 401 1m',
      }),
      configMap('auth-headers', { 'X-Auth-Tenant': 'shop', 'X-Verdict': 'allow' }),
      guarded('headers.test', { [`${A}auth-proxy-set-headers`]: 'auth-headers' }),
      guarded('keepalive.test'),
      guarded('late-headers.test', { [`${A}auth-proxy-set-headers`]: 'late-headers' }),
      annotatedIngress('down.test', 'echo', { [`${A}auth-url`]: down }),
      annotatedIngress('bad-scheme.test', 'echo', { [`${A}auth-url`]: 'ftp://127.0.0.1/check' }),
      annotatedIngress('bad-header.test', 'echo', {
        [`${A}auth-url`]: 'http://auth.example/check',
        [`${A}auth-response-headers`]: 'X-User, Bad Header',
      }),
      annotatedIngress('bad-method.test', 'echo', {
        [`${A}auth-url`]: 'http://auth.example/check',
        [`${A}auth-method`]: 'get',
      }),
      annotatedIngress('metadata.test', 'echo', { [`${A}auth-url`]: 'http://169.254.169.254/latest' }),
    ];
  },
});

/** A request through the controller's nginx with any method and body. */
function send(
  host: string,
  options: { path?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<ProbeResponse> {
  return probe({ port: testCase().controller.config.httpPort, host, ...options });
}

/** What the backend received. */
function received(response: ProbeResponse): {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
} {
  expect(response.status).toBe(200);
  return JSON.parse(response.body) as never;
}

/** The auth calls made while `action` ran. */
async function callsDuring(action: () => Promise<unknown>): Promise<AuthCall[]> {
  const before = calls.length;
  await action();
  return calls.slice(before);
}

describe('auth-url', () => {
  it('lets a request through when the service answers 2xx', async () => {
    expect(received(await send('ext.test', { path: '/page?q=1' })).url).toBe('/page?q=1');
    expect((await send('ext.test', { headers: { 'x-verdict': 'allow-without-user' } })).status).toBe(200);
  });

  it('answers 401 with the service challenge and 403 as the service does', async () => {
    const unauthorized = await send('ext.test', { headers: { 'x-verdict': '401' } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['www-authenticate']).toBe('Bearer realm="test"');
    expect(unauthorized.body).not.toContain('auth body');
    expect((await send('ext.test', { headers: { 'x-verdict': '403' } })).status).toBe(403);
  });

  it('fails closed with 500 for any other answer of the service or none at all', async () => {
    for (const verdict of ['302', '404', '500', '503']) {
      expect((await send('ext.test', { headers: { 'x-verdict': verdict } })).status, verdict).toBe(500);
    }
    expect((await send('down.test')).status).toBe(500);
  });

  it('sends the original request line, client headers and addresses, but never the body', async () => {
    const [call, ...more] = await callsDuring(() =>
      send('ext.test', {
        path: '/orders/7?full=1',
        method: 'POST',
        headers: { cookie: 'session=abc', 'content-type': 'text/plain' },
        body: 'secret payload',
      }),
    );
    expect(more).toEqual([]);
    expect(call).toMatchObject({ method: 'GET', url: '/check?from=nginx', bodyBytes: 0 });
    expect(call!.headers).toMatchObject({
      host: '127.0.0.1',
      cookie: 'session=abc',
      'x-original-url': 'http://ext.test/orders/7?full=1',
      'x-original-method': 'POST',
      'x-original-uri': '/orders/7?full=1',
      'x-scheme': 'http',
      'x-auth-request-redirect': '/orders/7?full=1',
      'x-real-ip': '127.0.0.1',
      'x-forwarded-for': '127.0.0.1',
    });
    expect(call!.headers['content-length']).toBeUndefined();
    expect(call!.headers['transfer-encoding']).toBeUndefined();
  });

  it('does not send a chunked body either', async () => {
    const [call] = await callsDuring(() =>
      send('ext.test', { method: 'PUT', headers: { 'transfer-encoding': 'chunked' }, body: 'streamed' }),
    );
    expect(call).toMatchObject({ method: 'GET', bodyBytes: 0 });
  });

  it('leaves the request body to the backend', async () => {
    const backend = received(await send('ext.test', { method: 'POST', body: 'payload' }));
    expect(backend).toMatchObject({ method: 'POST', body: 'payload' });
  });
});

describe('auth-response-headers', () => {
  it('sets the named headers of the answer on the request to the backend', async () => {
    const { headers } = received(await send('ext.test'));
    expect(headers['x-auth-request-user']).toBe('alice');
    expect(headers['x-auth-request-email']).toBe('alice@example.test');
  });

  it('removes a named header the answer lacks, so a client cannot send its own', async () => {
    const { headers } = received(
      await send('ext.test', {
        headers: { 'x-verdict': 'allow-without-user', 'x-auth-request-user': 'mallory' },
      }),
    );
    expect(headers['x-auth-request-user']).toBeUndefined();
  });

  it('passes the Set-Cookie of an accepting answer to the client', async () => {
    expect((await send('ext.test')).headers['set-cookie']).toEqual(['session=fresh; Path=/']);
  });
});

describe('auth-method', () => {
  it('asks the service with the method named', async () => {
    const [call] = await callsDuring(() => send('method.test'));
    expect(call).toMatchObject({ method: 'POST', bodyBytes: 0 });
  });
});

describe('auth-signin', () => {
  it('redirects a 401 to the sign-in URL with the original URL in rd', async () => {
    const response = await send('signin.test', { path: '/a%20b/c?x=1', headers: { 'x-verdict': '401' } });
    expect(response.status).toBe(302);
    // As ingress-nginx: the scheme and host as they are, the request URI escaped (again).
    expect(response.headers.location).toBe(
      'https://login.example/start?rd=http://signin.test%2Fa%2520b%2Fc%3Fx%3D1',
    );
    expect(response.headers['set-cookie']).toEqual(['session=gone; Path=/']);
  });

  it('answers 403 itself, without a redirect', async () => {
    const response = await send('signin.test', { headers: { 'x-verdict': '403' } });
    expect(response.status).toBe(403);
    expect(response.headers.location).toBeUndefined();
  });

  it('adds the original URL in auth-signin-redirect-param after the query of the URL', async () => {
    const response = await send('param.test', { path: '/p', headers: { 'x-verdict': '401' } });
    expect(response.headers.location).toBe(
      'https://login.example/start?app=shop&return_to=http://param.test%2Fp',
    );
  });

  it('fills in $host and $escaped_request_uri and adds no rd when the URL sets it', async () => {
    const response = await send('variables.test', { path: '/x?y=1', headers: { 'x-verdict': '401' } });
    expect(response.headers.location).toBe('https://variables.test/oauth2/start?rd=%2Fx%3Fy%3D1');
  });
});

describe('auth-request-redirect', () => {
  it('is the X-Auth-Request-Redirect header sent to the service', async () => {
    const [call] = await callsDuring(() => send('redirect.test', { path: '/deep' }));
    expect(call!.headers['x-auth-request-redirect']).toBe('https://app.example/after');
  });
});

describe('auth-always-set-cookie', () => {
  it('passes the Set-Cookie of a refusing answer only when set', async () => {
    for (const verdict of ['401', '403']) {
      expect(
        (await send('cookie.test', { headers: { 'x-verdict': verdict } })).headers['set-cookie'],
      ).toEqual(['session=gone; Path=/']);
      expect(
        (await send('ext.test', { headers: { 'x-verdict': verdict } })).headers['set-cookie'],
      ).toBeUndefined();
    }
  });
});

describe('auth-cache-key', () => {
  const as = (user: string, verdict: string) => ({ headers: { 'x-user': user, 'x-verdict': verdict } });

  it('reuses an answer of a status auth-cache-duration names for the same key on the same route', async () => {
    const made = await callsDuring(async () => {
      expect((await send('cache.test', as('ann', 'allow-without-user'))).status).toBe(200);
      // The service would refuse now: the kept answer still decides.
      expect((await send('cache.test', as('ann', '403'))).status).toBe(200);
      expect((await send('cache.test', as('bob', '401-plain'))).status).toBe(401);
      const kept = await send('cache.test', as('bob', 'allow-without-user'));
      expect(kept.status).toBe(401);
      expect(kept.headers['www-authenticate']).toBe('Bearer realm="test"');
    });
    expect(made.map((call) => call.headers['x-user'])).toEqual(['ann', 'bob']);
  });

  it('keeps answers per route', async () => {
    const made = await callsDuring(async () => {
      expect((await send('cache-too.test', as('ann', '403'))).status).toBe(403);
    });
    expect(made).toHaveLength(1);
  });

  it('keeps no answer of another status, nor one that sets a cookie', async () => {
    const made = await callsDuring(async () => {
      expect((await send('cache.test', as('cy', '403'))).status).toBe(403);
      expect((await send('cache.test', as('cy', '403'))).status).toBe(403);
      expect((await send('cache.test', as('dee', 'allow'))).status).toBe(200);
      expect((await send('cache.test', as('dee', '403'))).status).toBe(403);
      expect((await send('cache.test', as('eve', '401'))).status).toBe(401);
      expect((await send('cache.test', as('eve', 'allow-without-user'))).status).toBe(200);
    });
    expect(made).toHaveLength(6);
  });
});

describe('satisfy any', () => {
  it('needs no check for a client the source list admits', async () => {
    const made = await callsDuring(() => send('any-listed.test', { headers: { 'x-verdict': '403' } }));
    expect(made).toEqual([]);
  });

  it('lets the service decide for a client the source list refuses', async () => {
    expect((await send('any-unlisted.test')).status).toBe(200);
    expect((await send('any-unlisted.test', { headers: { 'x-verdict': '401' } })).status).toBe(401);
  });

  it('is needed for the service to admit a client the source list refuses', async () => {
    const made = await callsDuring(async () => expect((await send('all-unlisted.test')).status).toBe(403));
    expect(made).toEqual([]);
  });
});

describe('an invalid or forbidden auth-url', () => {
  it('leaves only its own Ingress out, with an error naming the annotation', async () => {
    const cases: [string, string, string][] = [
      ['bad-scheme.test', 'auth-url', 'must be an http or https URL'],
      ['bad-header.test', 'auth-response-headers', '"Bad Header" is not a header name'],
      ['bad-method.test', 'auth-method', 'must be one of GET'],
      ['metadata.test', 'auth-url', '169.254.169.254 is a link-local address'],
    ];
    for (const [host, annotation, message] of cases) {
      expect((await send(host)).status, host).toBe(404);
      const problems = testCase().controller.routing.problemsOf(`default/${host}`);
      expect(problems, host).toContainEqual(
        expect.objectContaining({
          severity: 'error',
          field: `metadata.annotations["${A}${annotation}"]`,
          message: expect.stringContaining(message),
        }),
      );
    }
    expect((await send('open.test')).status).toBe(200);
    expect((await send('ext.test')).status).toBe(200);
  });
});

describe('auth-keepalive', () => {
  /** How many connections the checks of `count` requests to `host` came over. */
  async function connectionsFor(host: string, count: number): Promise<number> {
    const made = await callsDuring(async () => {
      for (let index = 0; index < count; index += 1) expect((await send(host)).status).toBe(200);
    });
    expect(made).toHaveLength(count);
    return new Set(made.map((call) => call.peerPort)).size;
  }

  it('makes the checks reuse one connection to the service, applied without a reload', async () => {
    expect(await connectionsFor('keepalive.test', 3)).toBe(3);
    const { controller, server } = testCase();
    await expectNoReload(controller, async () => {
      await server.apply([
        annotatedIngress('keepalive.test', 'echo', {
          [`${A}auth-url`]: authUrl,
          [`${A}auth-keepalive`]: '4',
          [`${A}auth-keepalive-requests`]: '100',
          [`${A}auth-keepalive-timeout`]: '30',
        }),
      ]);
      await eventually(async () => expect(await connectionsFor('keepalive.test', 2)).toBe(1));
      expect(await connectionsFor('keepalive.test', 10)).toBe(1);
    });
    // Routes without it still connect per check.
    expect(await connectionsFor('ext.test', 3)).toBe(3);
  });
});

describe('auth-proxy-set-headers', () => {
  it("sets the ConfigMap's headers on the check, over the client's of the same name", async () => {
    const [call] = await callsDuring(async () =>
      expect(
        (await send('headers.test', { headers: { 'x-auth-tenant': 'forged', 'x-verdict': '403' } })).status,
      ).toBe(200),
    );
    expect(call!.headers['x-auth-tenant']).toBe('shop');
    expect(call!.headers['x-verdict']).toBe('allow');
  });

  it('keeps the routes closed while the ConfigMap is missing, and follows it once it exists and changes', async () => {
    const before = calls.length;
    expect((await send('late-headers.test')).status).toBe(503);
    expect(calls.length).toBe(before);
    const { server } = testCase();
    await server.apply([configMap('late-headers', { 'X-Auth-Tenant': 'late' })]);
    await eventually(async () => expect((await send('late-headers.test')).status).toBe(200));
    expect(calls.at(-1)!.headers['x-auth-tenant']).toBe('late');
    await server.apply([configMap('late-headers', { 'X-Auth-Tenant': 'changed' })]);
    await eventually(async () => {
      expect((await send('late-headers.test')).status).toBe(200);
      expect(calls.at(-1)!.headers['x-auth-tenant']).toBe('changed');
    });
  });
});
