/**
 * An operator's access log in real nginx: a JSON format with escape=json writes one parseable
 * object per request, with the backend and, when the canary served, the canary backend the router
 * provides; a skipped URI and a route without access log are not logged; routes are served though
 * the format does not name the router's own variables (the router sets them whatever the format).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteTable } from '@ingresskit/route-model';
import { startEchoBackend, type TestBackend } from './testing/backends.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';
import { sendRequest } from './testing/nginx-process.js';

let stable: TestBackend;
let canary: TestBackend;
let plane: DataPlane;
let port: number;

function createTable(ports: { http: number; https: number }): RouteTable {
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      {
        hostname: 'shop.example.com',
        hostnameMatch: 'exact',
        routes: [
          createTestRoute('shop', {
            action: {
              type: 'forward',
              backends: [{ backend: 'stable', weight: 1 }],
              canary: {
                header: { name: 'X-Canary' },
                weight: 0,
                weightTotal: 100,
                backends: [{ backend: 'canary', weight: 1 }],
              },
            },
          }),
        ],
      },
      {
        hostname: 'quiet.example.com',
        hostnameMatch: 'exact',
        routes: [
          createTestRoute('quiet', {
            action: { type: 'forward', backends: [{ backend: 'stable', weight: 1 }] },
            policy: { accessLog: false },
          }),
        ],
      },
      {
        hostname: 'split.example.com',
        hostnameMatch: 'exact',
        routes: [
          createTestRoute('split', {
            action: {
              type: 'forward',
              backends: [
                { backend: 'stable', weight: 1 },
                { backend: 'canary', weight: 1 },
              ],
            },
          }),
        ],
      },
    ],
    tls: [],
    certificates: [],
    backends: [
      { id: 'stable', endpoints: [{ address: stable.address, port: stable.port }] },
      { id: 'canary', endpoints: [{ address: canary.address, port: canary.port }] },
    ],
  };
}

beforeAll(async () => {
  stable = await startEchoBackend('stable');
  canary = await startEchoBackend('canary');
  const ports = await allocateListenerPorts();
  port = ports.http;
  const table = createTable(ports);
  plane = await startDataPlane({
    table,
    ports,
    render: {
      exposeRouteId: false,
      accessLogPath: 'json.log',
      accessLog: {
        format: [
          { text: '{"uri": "' },
          { variable: 'request_uri' },
          { text: '", "agent": "' },
          { variable: 'http_user_agent' },
          { text: '", "backend": "' },
          { field: 'backend' },
          { text: '", "canary": "' },
          { field: 'alternative-backend' },
          { text: '", "id": "' },
          { field: 'request-id' },
          { text: '"}' },
        ],
        escape: 'json',
        skipUris: ['/healthz'],
      },
    },
  });
  expect((await plane.push(table)).status).toBe(201);
});

afterAll(async () => {
  await plane?.stop();
  await stable?.close();
  await canary?.close();
});

async function logged(): Promise<Record<string, string>[]> {
  const text = await readFile(join(plane.prefix.dir, 'json.log'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, string>);
}

async function waitForLine(uri: string): Promise<Record<string, string>> {
  for (let tries = 0; tries < 50; tries += 1) {
    const line = (await logged()).find((entry) => entry.uri === uri);
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${uri} was not logged`);
}

describe('a custom access log', () => {
  it('writes one JSON object per request, values escaped, with the backend that served', async () => {
    const response = await sendRequest({
      port,
      host: 'shop.example.com',
      path: '/cart?q=1',
      headers: { 'user-agent': 'quote " backslash \\', 'x-request-id': 'abc-1' },
    });
    expect(response.status).toBe(200);
    expect(await waitForLine('/cart?q=1')).toEqual({
      uri: '/cart?q=1',
      agent: 'quote " backslash \\',
      backend: 'stable',
      canary: '',
      id: 'abc-1',
    });
  });

  it('names the canary backend when the canary served', async () => {
    const response = await sendRequest({
      port,
      host: 'shop.example.com',
      path: '/to-canary',
      headers: { 'x-canary': 'always' },
    });
    expect(response.status).toBe(200);
    expect(await waitForLine('/to-canary')).toMatchObject({ backend: 'canary', canary: 'canary' });
  });

  it('routes split routes and leaves skipped URIs and routes without access log out', async () => {
    for (const path of ['/healthz', '/quiet'])
      expect((await sendRequest({ port, host: 'quiet.example.com', path })).status).toBe(200);
    for (const path of ['/healthz', '/split-1'])
      expect((await sendRequest({ port, host: 'split.example.com', path })).status).toBe(200);
    expect((await waitForLine('/split-1')).backend).toMatch(/^(stable|canary)$/);
    const uris = (await logged()).map((entry) => entry.uri);
    expect(uris).not.toContain('/healthz');
    expect(uris).not.toContain('/quiet');
  });
});
