/**
 * The controller ConfigMap's proxy defaults end to end (local API server, the controller, nginx,
 * real HTTP): proxy-buffering off (with proxy-busy-buffers-size) streams and proxy-next-upstream
 * retries on routes without the annotation while an annotation wins over both,
 * http-redirect-code answers the HTTPS redirect, /.well-known/acme-challenge is neither
 * redirected nor asked for credentials, proxy-redirect-from and -to rewrite a backend's Location,
 * and X-Request-ID, X-Original-URI and hide-headers change what backends and clients see; a
 * ConfigMap change applies them again.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { collectStatuses, isTakenWhileClientWaits, writeLargeResponse } from './proxy-probes.js';
import {
  CONTROLLER_CONFIGMAP,
  controllerConfigMapManifest,
  endpointSliceManifest,
  eventually,
  opaqueSecretManifest,
  serviceManifests,
} from './harness.js';

/**
 * A backend: /large sends 32 MiB as fast as it is read; /echo answers the request headers it got
 * (JSON) with headers X-Secret and X-Public; else its status.
 */
function answerWith(status = 200): RequestListener {
  return (incoming, response) => {
    response.statusCode = status;
    if (incoming.url === '/large') writeLargeResponse(incoming, response);
    else if (incoming.url?.startsWith('/echo') === true) {
      response.setHeader('x-secret', 'backend internals');
      response.setHeader('x-public', 'fine');
      response.end(JSON.stringify(incoming.headers));
    } else if (incoming.url === '/moved') {
      response.writeHead(302, { location: 'http://backend.local/new' });
      response.end();
    } else response.end(String(status));
  };
}

const DEFAULTS = {
  'proxy-buffering': 'off',
  'proxy-next-upstream': 'error timeout http_503',
  'http-redirect-code': '301',
  'proxy-add-original-uri-header': 'true',
  'hide-headers': 'X-Secret',
  'proxy-busy-buffers-size': '8k',
  'proxy-redirect-from': 'http://backend.local/',
  'proxy-redirect-to': '/',
};

const ACME_PATH = '/.well-known/acme-challenge';

const testCase = useAnnotationsCase({
  config: {
    podName: 'configmap-proxy',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
  },
  readyHost: 'stream.test',
  objects: async ({ listen }) => {
    const ok = await listen(answerWith());
    const unavailable = await listen(answerWith(503));
    const forceSsl = { [`${A}force-ssl-redirect`]: 'true' };
    const basicAuth = { [`${A}auth-type`]: 'basic', [`${A}auth-secret`]: 'staff' };
    return [
      controllerConfigMapManifest(DEFAULTS),
      ...serviceManifests('ok', []),
      endpointSliceManifest('ok-1', 'ok', ok),
      ...serviceManifests('half', []),
      endpointSliceManifest('half-1', 'half', unavailable),
      endpointSliceManifest('half-2', 'half', ok),
      annotatedIngress('stream.test', 'ok', {}),
      annotatedIngress('buffered.test', 'ok', { [`${A}proxy-buffering`]: 'on' }),
      annotatedIngress('retry.test', 'half', {}),
      annotatedIngress('no-retry.test', 'half', { [`${A}proxy-next-upstream`]: 'error timeout' }),
      annotatedIngress('secure.test', 'ok', forceSsl),
      annotatedIngress('secure.test', 'ok', forceSsl, { name: 'acme-solver', path: ACME_PATH }),
      opaqueSecretManifest('staff', { auth: 'ann:$apr1$xyz$HXgo9gtz4gpj4JWTLYmjB0\n' }),
      annotatedIngress('staff.test', 'ok', basicAuth),
      annotatedIngress('staff.test', 'ok', basicAuth, { name: 'staff-acme', path: ACME_PATH }),
    ];
  },
});

function send(host: string, path = '/', headers: Record<string, string> = {}) {
  return testCase().send(host, { path, headers });
}

/** The request headers the backend got for a GET of /echo?q=1 on stream.test, and the response. */
async function echo(headers: Record<string, string> = {}) {
  const response = await send('stream.test', '/echo?q=1', headers);
  expect(response.status).toBe(200);
  return { response, seen: JSON.parse(response.body) as Record<string, string> };
}

describe('controller ConfigMap proxy defaults', () => {
  it('streams responses of routes without proxy-buffering; the annotation "on" buffers', async () => {
    // nginx took the busy buffers with the default buffers they were checked against.
    expect(testCase().controller.dataPlane.nginxConf).toContain('proxy_busy_buffers_size 8192;');
    expect(await isTakenWhileClientWaits(testCase().controller.config.httpPort, 'stream.test')).toBe(false);
    expect(await isTakenWhileClientWaits(testCase().controller.config.httpPort, 'buffered.test')).toBe(true);
  });

  it("retries a 503 on the next endpoint with the ConfigMap's proxy-next-upstream; the annotation wins", async () => {
    expect(await collectStatuses(() => send('retry.test'))).toEqual(Array(6).fill(200));
    expect(await collectStatuses(() => send('no-retry.test'))).toContain(503);
  });

  it('redirects to HTTPS with http-redirect-code, never on /.well-known/acme-challenge', async () => {
    const redirected = await send('secure.test', '/cart');
    expect(redirected.status).toBe(301);
    expect(redirected.headers.location).toMatch(/^https:\/\/secure\.test(:\d+)?\/cart$/);
    const acme = await send('secure.test', `${ACME_PATH}/token-1`);
    expect(acme.status).toBe(200);
  });

  it('rewrites the Location of backends with proxy-redirect-from and -to, leaving it relative', async () => {
    const moved = await send('stream.test', '/moved');
    expect(moved.status).toBe(302);
    // As ingress-nginx with relative-redirects "true" (nginx's absolute_redirect off).
    expect(moved.headers.location).toBe('/new');
  });

  it('asks for no credentials on /.well-known/acme-challenge (no-auth-locations by default)', async () => {
    expect((await send('staff.test', '/cart')).status).toBe(401);
    expect((await send('staff.test', `${ACME_PATH}/token-1`)).status).toBe(200);
  });

  it("sends X-Request-ID (the client's, else a new one) and X-Original-URI, and hides X-Secret", async () => {
    const { response, seen } = await echo();
    expect(seen['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    expect(seen['x-original-uri']).toBe('/echo?q=1');
    expect(response.headers['x-public']).toBe('fine');
    expect(response.headers['x-secret']).toBeUndefined();
    expect((await echo({ 'x-request-id': 'client-chosen' })).seen['x-request-id']).toBe('client-chosen');
  });

  it('applies a changed ConfigMap: its new redirect code live, generate-request-id "false" with a reload', async () => {
    const { server, controller } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    await server.apply([
      controllerConfigMapManifest({
        ...DEFAULTS,
        'http-redirect-code': '308',
        'generate-request-id': 'false',
      }),
    ]);
    await eventually(async () => {
      expect((await send('secure.test', '/cart')).status).toBe(308);
      const { seen } = await echo();
      expect(seen['x-request-id']).toBeUndefined();
    });
    expect(controller.dataPlane.reloadCount).toBe(reloads + 1);
    expect((await echo({ 'x-request-id': 'client-chosen' })).seen['x-request-id']).toBe('client-chosen');
  });
});
