/**
 * Digest authentication in real nginx with two workers, from the data plane's side: a nonce one
 * worker issues is verified by any other, an nc counts once whichever worker sees it, the signing
 * key outlives a reload (answered nonces stay valid) but not a restart, and the answer covers the
 * request's method.
 */
import { createHash } from 'node:crypto';
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

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const HOST = 'digest.example.com';

let app: TestBackend;
let plane: DataPlane;
let table: RouteTable;

function createTable(ports: { http: number; https: number }): RouteTable {
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      {
        hostname: HOST,
        hostnameMatch: 'exact',
        routes: [
          createTestRoute(HOST, {
            action: { type: 'forward', backends: [{ backend: 'app', weight: 1 }] },
            policy: {
              digestAuth: { realm: 'Staff', users: [{ name: 'ann', ha1: md5('ann:Staff:secret') }] },
            },
          }),
        ],
      },
    ],
    tls: [],
    certificates: [],
    backends: [{ id: 'app', endpoints: [{ address: app.address, port: app.port }] }],
  };
}

/** A fresh challenge's nonce and opaque, each request on a new connection. */
async function challenge(): Promise<{ nonce: string; opaque: string }> {
  const response = await plane.request({ host: HOST });
  expect(response.status).toBe(401);
  const header = String(response.headers['www-authenticate']);
  return { nonce: /nonce="([^"]+)"/.exec(header)![1]!, opaque: /opaque="([^"]+)"/.exec(header)![1]! };
}

function answer(
  { nonce, opaque }: { nonce: string; opaque: string },
  nc: number,
  method = 'GET',
  password = 'secret',
): string {
  const count = nc.toString(16).padStart(8, '0');
  const ha1 = md5(`ann:Staff:${password}`);
  const response = md5(`${ha1}:${nonce}:${count}:c0ffee:auth:${md5(`${method}:/`)}`);
  return `Digest username="ann", realm="Staff", nonce="${nonce}", uri="/", qop=auth, nc=${count}, cnonce="c0ffee", response="${response}", opaque="${opaque}"`;
}

async function statusWith(authorization: string, method = 'GET'): Promise<number> {
  return (await plane.request({ host: HOST, method, headers: { authorization } })).status;
}

beforeAll(async () => {
  app = await startEchoBackend('app');
  const ports = await allocateListenerPorts();
  table = createTable(ports);
  plane = await startDataPlane({ table, ports, workers: 2 });
  expect((await plane.push(table)).status).toBe(201);
});

afterAll(async () => {
  await plane?.stop();
  await app?.close();
});

describe('digest authentication in nginx', () => {
  it('verifies nonces and refuses replays whichever worker answers', async () => {
    for (let round = 0; round < 10; round += 1) {
      const issued = await challenge();
      const first = answer(issued, 1);
      expect(await statusWith(first)).toBe(200);
      expect(await statusWith(first)).toBe(401);
      expect(await statusWith(answer(issued, 2))).toBe(200);
    }
    expect((await plane.nginx.workerPids()).length).toBe(2);
  });

  it("covers the request's method", async () => {
    const issued = await challenge();
    expect(await statusWith(answer(issued, 1, 'GET'), 'HEAD')).toBe(401);
    expect(await statusWith(answer(issued, 2, 'HEAD'), 'HEAD')).toBe(200);
  });

  it('keeps an answered nonce valid over a reload, but not over a restart', async () => {
    const issued = await challenge();
    expect(await statusWith(answer(issued, 1))).toBe(200);
    const workers = await plane.nginx.workerPids();
    await plane.nginx.reload();
    expect(await plane.nginx.workerPids()).not.toEqual(workers);
    expect(await statusWith(answer(issued, 2))).toBe(200);
    await plane.restart();
    expect((await plane.push(table)).status).toBe(201);
    const after = await plane.request({ host: HOST, headers: { authorization: answer(issued, 3) } });
    expect(after.status).toBe(401);
    expect(after.headers['www-authenticate']).not.toContain('stale');
    expect(await statusWith(answer(await challenge(), 1))).toBe(200);
  });
});
