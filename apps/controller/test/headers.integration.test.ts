/**
 * Headers from ConfigMaps end to end (local API server, the controller, nginx, real HTTP to a
 * backend that echoes the request headers it got): custom-headers sets the response headers of
 * its ConfigMap only when the controller ConfigMap's global-allowed-response-headers allows each,
 * else the Ingress answers 503 with an error naming the annotation; the controller ConfigMap's
 * add-headers and proxy-set-headers apply to every route; limit-req-status-code is the status of
 * limit-rpm refusals, limit-conn-status-code of limit-connections ones. Every change of these ConfigMaps applies without a reload: the same nginx
 * workers serve it.
 */
import type { RequestListener } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { A, annotatedIngress, expectNoReload, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, listEvents, serviceManifests } from './harness.js';

const CONTROLLER = { namespace: 'ingresskit', name: 'ingresskit-controller' };

function configMap(namespace: string, name: string, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data };
}

function controllerConfigMap(allowed: string, extra: Record<string, string> = {}): Record<string, unknown> {
  return configMap(CONTROLLER.namespace, CONTROLLER.name, {
    'global-allowed-response-headers': allowed,
    'add-headers': 'ingresskit/response-headers',
    'proxy-set-headers': 'ingresskit/request-headers',
    'limit-req-status-code': '429',
    'limit-conn-status-code': '503',
    ...extra,
  });
}

const ALLOWED = 'X-Frame-Options, Content-Security-Policy';

/** Answers of /hold requests wait until this is called. */
let releaseHeld: () => void = () => {};
let held: Promise<void> = Promise.resolve();

/** Answers with the request headers it got, at once, or for `/hold` once the test lets go. */
const echoHeaders: RequestListener = (request, response) => {
  const answer = () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(request.headers));
  };
  if (request.url === '/hold') void held.then(answer);
  else answer();
};

const testCase = useAnnotationsCase({
  config: { podName: 'headers', configMap: `${CONTROLLER.namespace}/${CONTROLLER.name}` },
  readyHost: 'open.test',
  objects: async ({ listen }) => [
    controllerConfigMap(ALLOWED),
    configMap('ingresskit', 'response-headers', { 'X-Frame-Options': 'SAMEORIGIN', 'X-Served-By': 'edge' }),
    configMap('ingresskit', 'request-headers', { 'X-Team': 'web' }),
    configMap('default', 'secure-headers', {
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'self'",
    }),
    configMap('default', 'powered-headers', { 'X-Powered-By': 'IngressKit' }),
    ...serviceManifests('echo', []),
    endpointSliceManifest('echo-1', 'echo', await listen(echoHeaders)),
    annotatedIngress('open.test', 'echo', {}),
    annotatedIngress('secure.test', 'echo', { [`${A}custom-headers`]: 'default/secure-headers' }),
    annotatedIngress('powered.test', 'echo', { [`${A}custom-headers`]: 'powered-headers' }),
    annotatedIngress('limited.test', 'echo', {
      [`${A}limit-rpm`]: '1',
      [`${A}limit-burst-multiplier`]: '1',
    }),
    annotatedIngress('conn.test', 'echo', { [`${A}limit-connections`]: '1' }),
  ],
});

// Registered after the case, so run before it stops: a held answer must not keep the backend open.
afterAll(() => releaseHeld());

/** Runs `change` and checks that nginx neither reloaded nor changed workers meanwhile. */
function withoutReload(change: () => Promise<void>): Promise<void> {
  return expectNoReload(testCase().controller, change);
}

describe('custom-headers', () => {
  it("sets the ConfigMap's headers on the responses, over the controller ConfigMap's add-headers", async () => {
    const response = await testCase().send('secure.test');
    expect(response.status).toBe(200);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['content-security-policy']).toBe("default-src 'self'");
    expect(response.headers['x-served-by']).toBe('edge');
  });

  it('answers 503 with an error naming the annotation while a header is not allowed, and serves once it is', async () => {
    const { controller, server } = testCase();
    expect((await testCase().send('powered.test')).status).toBe(503);
    await controller.events.flush();
    const notes = (await listEvents(server.kubeConfig(), 'default'))
      .filter((event) => event.regarding?.kind === 'Ingress' && event.regarding.name === 'powered.test')
      .map((event) => event.note ?? '');
    expect(notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /custom-headers.*X-Powered-By, not allowed by .*global-allowed-response-headers/,
        ),
      ]),
    );
    await withoutReload(async () => {
      await server.apply([controllerConfigMap(`${ALLOWED}, X-Powered-By`)]);
      await eventually(async () => {
        const response = await testCase().send('powered.test');
        expect(response.status).toBe(200);
        expect(response.headers['x-powered-by']).toBe('IngressKit');
      });
    });
  });

  it('follows a change of its ConfigMap without a reload', async () => {
    await withoutReload(async () => {
      await testCase().server.apply([
        configMap('default', 'secure-headers', { 'X-Frame-Options': 'SAMEORIGIN' }),
      ]);
      await eventually(async () => {
        const response = await testCase().send('secure.test');
        expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
        expect(response.headers['content-security-policy']).toBeUndefined();
      });
    });
  });
});

describe('add-headers and proxy-set-headers', () => {
  it('set response headers and backend request headers on every route, and follow their ConfigMaps', async () => {
    const response = await testCase().send('open.test');
    expect(response.headers['x-served-by']).toBe('edge');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect((JSON.parse(response.body) as Record<string, string>)['x-team']).toBe('web');
    await withoutReload(async () => {
      await testCase().server.apply([configMap('ingresskit', 'request-headers', { 'X-Team': 'platform' })]);
      await eventually(async () => {
        const body = JSON.parse((await testCase().send('open.test')).body) as Record<string, string>;
        expect(body['x-team']).toBe('platform');
      });
    });
  });
});

describe('limit-req-status-code and limit-conn-status-code', () => {
  it('is the status of limit-rpm refusals', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await testCase().send('limited.test')).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('is the status of limit-connections refusals', async () => {
    held = new Promise((resolve) => (releaseHeld = resolve));
    const first = testCase().send('conn.test', { path: '/hold' });
    await eventually(async () => expect((await testCase().send('conn.test')).status).toBe(503));
    releaseHeld();
    expect((await first).status).toBe(200);
  });
});
