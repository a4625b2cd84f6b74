/**
 * The controller ConfigMap's global external authentication end to end (local API server, the
 * controller, nginx, real auth services and a backend on 127.0.0.1): global-auth-url checks every
 * Ingress route without an auth-url of its own (401 stays 401, 2xx is proxied with the
 * global-auth-response-headers copied), an Ingress with enable-global-auth "false" is not checked,
 * one with its own auth-url is checked by its own service only. ConfigMap changes apply without a
 * reload; an invalid global-auth-url keeps the last valid one, and with none the routes it would
 * protect answer 503 (never open); an unreachable service gives 500, as for auth-url.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { probe, type ProbeResponse } from '../src/http-probe.js';
import { findFreePort } from '../src/ports.js';
import { A, annotatedIngress, expectNoReload, useAnnotationsCase } from './annotations.js';
import {
  CONTROLLER_CONFIGMAP,
  controllerConfigMapManifest,
  endpointSliceManifest,
  eventually,
  listConfigMapEvents,
  serviceManifests,
} from './harness.js';

/** The auth services asked, in order. */
const calls: string[] = [];

/**
 * An auth service named `service`: the client's `x-verdict` header decides its answer, and an
 * accepted request gets `X-Auth-Request-User: <service>-user` and an e-mail.
 */
function authService(service: string): RequestListener {
  return (request, response) => {
    calls.push(service);
    const verdict = request.headers['x-verdict'] ?? 'allow';
    if (verdict === 'allow') {
      response.writeHead(200, {
        'X-Auth-Request-User': `${service}-user`,
        'X-Auth-Request-Email': `${service}@example.test`,
      });
    } else response.writeHead(Number(verdict), { 'WWW-Authenticate': `Bearer realm="${service}"` });
    response.end();
  };
}

/** The backend: the request headers it got, as JSON. */
const echo: RequestListener = (request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(request.headers));
};

let globalUrl = '';
let downUrl = '';

const testCase = useAnnotationsCase({
  config: {
    podName: 'global-auth',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
  },
  readyHost: 'opt-out.test',
  objects: async ({ listen }) => {
    globalUrl = `http://127.0.0.1:${await listen(authService('global'))}/check`;
    // A port found free, so nothing answers there.
    downUrl = `http://127.0.0.1:${await findFreePort()}/check`;
    const ownUrl = `http://127.0.0.1:${await listen(authService('own'))}/check`;
    return [
      controllerConfigMapManifest({
        'global-auth-url': globalUrl,
        'global-auth-response-headers': 'X-Auth-Request-User',
      }),
      ...serviceManifests('echo', []),
      endpointSliceManifest('echo-1', 'echo', await listen(echo)),
      annotatedIngress('global.test', 'echo', {}),
      annotatedIngress('opt-out.test', 'echo', { [`${A}enable-global-auth`]: 'false' }),
      annotatedIngress('own.test', 'echo', {
        [`${A}auth-url`]: ownUrl,
        [`${A}auth-response-headers`]: 'X-Auth-Request-Email',
      }),
    ];
  },
});

/** A GET of `host` through the controller's nginx, with the auth service's verdict. */
function send(host: string, verdict = 'allow'): Promise<ProbeResponse> {
  return probe({ port: testCase().controller.config.httpPort, host, headers: { 'x-verdict': verdict } });
}

/** The request headers the backend got. */
function backendHeaders(response: ProbeResponse): Record<string, string> {
  expect(response.status).toBe(200);
  return JSON.parse(response.body) as Record<string, string>;
}

/** Which auth services `run` made nginx ask. */
async function servicesAsked(run: () => Promise<unknown>): Promise<string[]> {
  calls.length = 0;
  await run();
  return [...calls];
}

/** `reason: note` of the Events on the controller ConfigMap. */
function configMapNotes(): Promise<string[]> {
  return listConfigMapEvents(testCase(), CONTROLLER_CONFIGMAP);
}

describe('global-auth-url', () => {
  it('checks a route without auth-url of its own: a 401 stays 401, 2xx is proxied with the named headers', async () => {
    expect(await servicesAsked(() => send('global.test', '401'))).toEqual(['global']);
    const refused = await send('global.test', '401');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="global"');
    expect((await send('global.test', '403')).status).toBe(403);
    const headers = backendHeaders(await send('global.test'));
    expect(headers['x-auth-request-user']).toBe('global-user');
    expect(headers['x-auth-request-email']).toBeUndefined();
  });

  it('does not check an Ingress with enable-global-auth "false"', async () => {
    expect(
      await servicesAsked(async () => expect((await send('opt-out.test', '401')).status).toBe(200)),
    ).toEqual([]);
  });

  it('leaves a route with its own auth-url to its own service and headers', async () => {
    expect(await servicesAsked(async () => expect((await send('own.test', '401')).status).toBe(401))).toEqual(
      ['own'],
    );
    const headers = backendHeaders(await send('own.test'));
    expect(headers['x-auth-request-email']).toBe('own@example.test');
    expect(headers['x-auth-request-user']).toBeUndefined();
  });

  it('follows ConfigMap changes without a reload, and an invalid URL never opens a route', async () => {
    const { server } = testCase();
    await expectNoReload(testCase().controller, async () => {
      await server.apply([
        controllerConfigMapManifest({
          'global-auth-url': globalUrl,
          'global-auth-response-headers': 'X-Auth-Request-Email',
        }),
      ]);
      await eventually(async () =>
        expect(backendHeaders(await send('global.test'))['x-auth-request-email']).toBe('global@example.test'),
      );

      // A bad edit keeps the last valid URL: still checked.
      await server.apply([controllerConfigMapManifest({ 'global-auth-url': 'ftp://auth.example/check' })]);
      await eventually(async () =>
        expect(await configMapNotes()).toEqual(
          expect.arrayContaining([expect.stringMatching(/global-auth-url.*the last valid value/)]),
        ),
      );
      expect((await send('global.test', '401')).status).toBe(401);
      expect(backendHeaders(await send('global.test'))['x-auth-request-user']).toBeUndefined();

      // Without global-auth-url, nothing is checked.
      await server.apply([controllerConfigMapManifest({})]);
      await eventually(async () => expect((await send('global.test', '401')).status).toBe(200));

      // An invalid URL with no valid one before closes what it would protect.
      await server.apply([controllerConfigMapManifest({ 'global-auth-url': 'http://auth.example/$host' })]);
      await eventually(async () => expect((await send('global.test', '401')).status).toBe(503));
      expect((await send('opt-out.test')).status).toBe(200);
      expect((await send('own.test')).status).toBe(200);
      expect(await configMapNotes()).toEqual(
        expect.arrayContaining([expect.stringMatching(/global-auth-url.*answers 503 until it is valid/)]),
      );

      // A service nobody answers at fails closed as auth-url does.
      await server.apply([controllerConfigMapManifest({ 'global-auth-url': downUrl })]);
      await eventually(async () => expect((await send('global.test')).status).toBe(500));

      await server.apply([controllerConfigMapManifest({ 'global-auth-url': globalUrl })]);
      await eventually(async () => expect((await send('global.test', '401')).status).toBe(401));
    });
  });
});
