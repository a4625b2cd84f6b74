/**
 * custom-http-errors and default-backend end to end (local API server, the controller, nginx,
 * real HTTP): a listed status of the backend is replaced by the answer of the Ingress's
 * default-backend (else --default-backend-service) with ingress-nginx's X-* headers, other
 * statuses pass untouched, default-backend answers for a Service without endpoints, and the
 * ConfigMap's custom-http-errors applies to Ingresses without the annotation and follows changes.
 * With disable-proxy-intercept-errors the backend's own error page passes through, while nginx's
 * own 502 for the backend still goes to the error backend.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, serviceManifests } from './harness.js';

const CONFIGMAP = { namespace: 'ingresskit', name: 'ingresskit-controller' };

function configMap(data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: CONFIGMAP, data };
}

/** The app: `/status/<code>` answers that status, anything else 200; the body says who and what. */
const app: RequestListener = (incoming, response) => {
  const code = /^\/status\/([0-9]{3})/.exec(incoming.url ?? '')?.[1];
  response.statusCode = Number(code ?? 200);
  response.end(`app:${response.statusCode}`);
};

/** An error backend: answers with the status in X-Code (200 without) and echoes what it was told. */
function errorPages(name: string): RequestListener {
  return (incoming, response) => {
    const header = (key: string) => String(incoming.headers[key] ?? '');
    response.statusCode = Number(header('x-code') || 200);
    response.end(
      [
        name,
        header('x-code'),
        header('x-original-uri'),
        header('x-namespace'),
        header('x-ingress-name'),
        header('x-service-name'),
        header('x-service-port'),
        incoming.url,
      ].join('|'),
    );
  };
}

const testCase = useAnnotationsCase({
  config: {
    podName: 'custom-errors',
    configMap: `${CONFIGMAP.namespace}/${CONFIGMAP.name}`,
    defaultBackend: { namespace: 'default', name: 'global-errors', port: 80 },
  },
  readyHost: 'errors.test',
  objects: async ({ listen }) => {
    const appPort = await listen(app);
    const pagesPort = await listen(errorPages('pages'));
    const globalPort = await listen(errorPages('global'));
    // A backend that drops every connection: nginx answers 502 itself.
    const deadPort = await listen((incoming) => incoming.socket.destroy());
    const pages = serviceManifests('pages', []);
    // default-backend takes the Service's first port, whatever its number.
    (pages[0]!.spec as { ports: unknown[] }).ports = [
      { name: 'http', port: 8080, targetPort: 'http' },
      { name: 'admin', port: 9090 },
    ];
    return [
      configMap({ 'custom-http-errors': '410' }),
      ...serviceManifests('app', []),
      endpointSliceManifest('app-1', 'app', appPort),
      ...pages,
      endpointSliceManifest('pages-1', 'pages', pagesPort),
      ...serviceManifests('global-errors', []),
      endpointSliceManifest('global-errors-1', 'global-errors', globalPort),
      ...serviceManifests('empty', []),
      ...serviceManifests('dead', []),
      endpointSliceManifest('dead-1', 'dead', deadPort),
      annotatedIngress('errors.test', 'app', {
        [`${A}custom-http-errors`]: '404,503',
        [`${A}default-backend`]: 'pages',
      }),
      annotatedIngress('global.test', 'app', { [`${A}custom-http-errors`]: '404' }),
      annotatedIngress('down.test', 'empty', { [`${A}default-backend`]: 'pages' }),
      annotatedIngress('plain.test', 'app', {}),
      annotatedIngress('passthrough.test', 'app', {
        [`${A}custom-http-errors`]: '404,502',
        [`${A}default-backend`]: 'pages',
        [`${A}disable-proxy-intercept-errors`]: 'true',
      }),
      annotatedIngress('passthrough-dead.test', 'dead', {
        [`${A}custom-http-errors`]: '404,502',
        [`${A}default-backend`]: 'pages',
        [`${A}disable-proxy-intercept-errors`]: 'true',
      }),
    ];
  },
});

const send = (host: string, path: string) => testCase().send(host, { path });

describe('custom-http-errors', () => {
  it("replaces a listed status by the default-backend's answer, with ingress-nginx's headers", async () => {
    const response = await send('errors.test', '/status/404?x=1');
    expect(response.status).toBe(404);
    expect(response.body).toBe('pages|404|/status/404?x=1|default|errors.test|app|80|/?x=1');
    expect((await send('errors.test', '/status/503')).body).toMatch(/^pages\|503\|/);
  });

  it('passes an unlisted status through with its own body', async () => {
    const response = await send('errors.test', '/status/500');
    expect(response.status).toBe(500);
    expect(response.body).toBe('app:500');
    expect((await send('errors.test', '/')).body).toBe('app:200');
  });

  it('sends the errors of an Ingress without default-backend to --default-backend-service', async () => {
    expect((await send('global.test', '/status/404')).body).toMatch(/^global\|404\|\/status\/404\|/);
  });
});

describe('disable-proxy-intercept-errors', () => {
  it("passes the backend's own error page through, status and body", async () => {
    const response = await send('passthrough.test', '/status/404');
    expect(response.status).toBe(404);
    expect(response.body).toBe('app:404');
    // Interception stays on where the annotation is not set.
    expect((await send('errors.test', '/status/404')).body).toMatch(/^pages\|404\|/);
  });

  it("still sends nginx's own 502 for the backend to the error backend", async () => {
    const response = await send('passthrough-dead.test', '/x');
    expect(response.status).toBe(502);
    expect(response.body).toMatch(/^pages\|502\|\/x\|default\|passthrough-dead\.test\|dead\|/);
  });
});

describe('default-backend', () => {
  it('answers the requests of a Service without endpoints', async () => {
    const response = await send('down.test', '/deep/page');
    expect(response.status).toBe(200);
    expect(response.body).toBe('pages|||||||/deep/page');
  });
});

describe('ConfigMap custom-http-errors', () => {
  it('applies to Ingresses without the annotation, and follows a change of the ConfigMap', async () => {
    expect((await send('plain.test', '/status/410')).body).toMatch(/^global\|410\|/);
    expect((await send('plain.test', '/status/404')).body).toBe('app:404');
    // The annotation replaces the ConfigMap's list.
    expect((await send('global.test', '/status/410')).body).toBe('app:410');
    await testCase().server.apply([configMap({ 'custom-http-errors': '404' })]);
    await eventually(async () =>
      expect((await send('plain.test', '/status/404')).body).toMatch(/^global\|404\|/),
    );
    expect((await send('plain.test', '/status/410')).body).toBe('app:410');
  });
});
