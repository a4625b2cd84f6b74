/**
 * Custom error pages and the no-endpoints backend in real nginx: an answer of the backend with an
 * intercepted status is replaced by the error backend's answer (with ingress-nginx's X-* headers),
 * other answers pass untouched, a backend without endpoints gives way to the route's
 * no-endpoints backend, and without an error backend that has endpoints the answer is 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomErrors, Route, RouteTable } from '@ingresskit/route-model';
import { startEchoBackend, type Echo, type TestBackend } from './testing/backends.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';

let app: TestBackend;
let errors: TestBackend;
let plane: DataPlane;

const HEADERS: CustomErrors['headers'] = [
  { name: 'X-Namespace', value: 'shop' },
  { name: 'X-Ingress-Name', value: 'cart' },
  { name: 'X-Service-Name', value: 'app' },
  { name: 'X-Service-Port', value: '80' },
];

function host(hostname: string, route: Partial<Route>) {
  return {
    hostname,
    hostnameMatch: 'exact' as const,
    routes: [
      createTestRoute(hostname, {
        action: { type: 'forward', backends: [{ backend: 'app', weight: 1 }] },
        ...route,
      }),
    ],
  };
}

function createTable(ports: { http: number; https: number }): RouteTable {
  const toEmpty = { type: 'forward' as const, backends: [{ backend: 'empty', weight: 1 }] };
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      host('errors.example.com', {
        policy: { customErrors: { statuses: [404, 503], backends: ['errors'], headers: HEADERS } },
      }),
      // The first error backend without endpoints gives way to the next.
      host('second.example.com', {
        policy: { customErrors: { statuses: [404], backends: ['empty', 'errors'] } },
      }),
      host('nobody.example.com', { policy: { customErrors: { statuses: [404], backends: ['empty'] } } }),
      host('fallback.example.com', { action: toEmpty, policy: { noEndpointsBackend: 'errors' } }),
      host('down.example.com', {
        action: toEmpty,
        policy: { customErrors: { statuses: [503], backends: ['errors'], headers: HEADERS } },
      }),
      host('plain.example.com', {}),
      // disable-proxy-intercept-errors: only nginx's own answers of the statuses are replaced.
      host('own.example.com', {
        policy: { customErrors: { statuses: [404, 502], backends: ['errors'], passBackendErrors: true } },
      }),
      host('owndown.example.com', {
        action: { type: 'forward', backends: [{ backend: 'closed', weight: 1 }] },
        policy: { customErrors: { statuses: [404, 502], backends: ['errors'], passBackendErrors: true } },
      }),
      host('buffered.example.com', {
        policy: {
          customErrors: { statuses: [404], backends: ['errors'] },
          upstreamSettings: { responseBuffering: false, bufferSizeBytes: 65536 },
        },
      }),
    ],
    tls: [],
    certificates: [],
    backends: [
      { id: 'app', endpoints: [{ address: app.address, port: app.port }] },
      { id: 'empty', endpoints: [] },
      { id: 'errors', endpoints: [{ address: errors.address, port: errors.port }] },
      // Nothing listens on port 1.
      { id: 'closed', endpoints: [{ address: '127.0.0.1', port: 1 }] },
    ],
  };
}

beforeAll(async () => {
  app = await startEchoBackend('app');
  errors = await startEchoBackend('errors');
  const ports = await allocateListenerPorts();
  const table = createTable(ports);
  plane = await startDataPlane({ table, ports });
  expect((await plane.push(table)).status).toBe(201);
});

afterAll(async () => {
  await plane?.stop();
  await app?.close();
  await errors?.close();
});

describe('custom error pages in nginx', () => {
  it("replaces an intercepted answer by the error backend's, with the X-* headers", async () => {
    const response = await plane.request({
      host: 'errors.example.com',
      path: '/missing/page?status=404',
      headers: { accept: 'application/json', 'x-request-id': 'req-1' },
    });
    expect(response.headers['x-backend']).toBe('errors');
    // The error backend's own answer, status included (the echo answers ?status=404 with 404).
    expect(response.status).toBe(404);
    const echo = JSON.parse(response.body) as Echo;
    expect(echo.url).toBe('/?status=404');
    expect(echo.headers).toMatchObject({
      'x-code': '404',
      'x-format': 'application/json',
      'x-original-uri': '/missing/page?status=404',
      'x-namespace': 'shop',
      'x-ingress-name': 'cart',
      'x-service-name': 'app',
      'x-service-port': '80',
      'x-request-id': 'req-1',
      host: 'errors.example.com',
    });
  });

  it('intercepts every listed status, and sends a request id of its own when the client has none', async () => {
    const response = await plane.request({ host: 'errors.example.com', path: '/?status=503' });
    expect(response.headers['x-backend']).toBe('errors');
    const echo = JSON.parse(response.body) as Echo;
    expect(echo.headers['x-code']).toBe('503');
    expect(echo.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('passes an answer with an unlisted status through untouched', async () => {
    const before = errors.count();
    const response = await plane.request({ host: 'errors.example.com', path: '/x?status=500' });
    expect(response.status).toBe(500);
    expect(response.headers['x-backend']).toBe('app');
    expect((JSON.parse(response.body) as Echo).url).toBe('/x?status=500');
    const ok = await plane.request({ host: 'errors.example.com', path: '/ok' });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-backend']).toBe('app');
    expect(errors.count()).toBe(before);
  });

  it('asks the first error backend that has endpoints, and answers 404 when none has', async () => {
    const second = await plane.request({ host: 'second.example.com', path: '/?status=404' });
    expect(second.headers['x-backend']).toBe('errors');
    const nobody = await plane.request({ host: 'nobody.example.com', path: '/?status=404' });
    expect(nobody.status).toBe(404);
    expect(nobody.headers['x-backend']).toBeUndefined();
  });

  it("sends a request whose backend has no endpoints to the route's no-endpoints backend", async () => {
    const response = await plane.request({ host: 'fallback.example.com', path: '/some/page?q=1' });
    expect(response.status).toBe(200);
    expect(response.headers['x-backend']).toBe('errors');
    expect((JSON.parse(response.body) as Echo).url).toBe('/some/page?q=1');
  });

  it('intercepts the 503 of a backend without endpoints when 503 is listed', async () => {
    const response = await plane.request({ host: 'down.example.com', path: '/page' });
    expect(response.headers['x-backend']).toBe('errors');
    const echo = JSON.parse(response.body) as Echo;
    expect(echo.headers).toMatchObject({
      'x-code': '503',
      'x-original-uri': '/page',
      'x-service-name': 'app',
    });
  });

  it('leaves routes without custom errors alone', async () => {
    const response = await plane.request({ host: 'plain.example.com', path: '/?status=404' });
    expect(response.status).toBe(404);
    expect(response.headers['x-backend']).toBe('app');
  });

  it('sends the request through the hop as the client sent it, and no hop header reaches the backend', async () => {
    const response = await plane.request({
      host: 'errors.example.com',
      path: '/upload?x=1',
      method: 'POST',
      body: 'y'.repeat(100_000),
      headers: { 'x-ingresskit-route': 'forged', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(response.status).toBe(200);
    const echo = JSON.parse(response.body) as Echo;
    expect(echo).toMatchObject({ method: 'POST', url: '/upload?x=1', host: 'errors.example.com' });
    expect(echo.body).toHaveLength(100_000);
    expect(echo.headers).toMatchObject({ 'x-real-ip': '127.0.0.1', 'x-forwarded-for': '127.0.0.1' });
    expect(Object.keys(echo.headers).filter((name) => name.startsWith('x-ingresskit'))).toEqual([]);
  });

  it("takes no status a backend makes up through the hop's own header", async () => {
    const response = await plane.request({
      host: 'errors.example.com',
      path: '/?status=500&answer-header=X-Ingresskit-Status:404',
    });
    expect(response.status).toBe(500);
    expect(response.headers['x-backend']).toBe('app');
    expect(response.headers['x-ingresskit-status']).toBeUndefined();
  });

  it("replaces only nginx's own answers for a route passing its backend's errors through", async () => {
    const own = await plane.request({ host: 'own.example.com', path: '/?status=404' });
    expect(own.status).toBe(404);
    expect(own.headers['x-backend']).toBe('app');
    const down = await plane.request({ host: 'owndown.example.com', path: '/page' });
    expect(down.headers['x-backend']).toBe('errors');
    expect((JSON.parse(down.body) as Echo).headers['x-code']).toBe('502');
  });

  it("keeps the route's own directives behind the hop", async () => {
    const replaced = await plane.request({ host: 'buffered.example.com', path: '/?status=404' });
    expect(replaced.headers['x-backend']).toBe('errors');
    const passed = await plane.request({ host: 'buffered.example.com', path: '/?status=410' });
    expect(passed.status).toBe(410);
    expect(passed.headers['x-backend']).toBe('app');
  });
});
