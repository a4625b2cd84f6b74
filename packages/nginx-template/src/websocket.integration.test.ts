/**
 * Long-lived connections through route pushes: a WebSocket proxied to an echo backend and a
 * keep-alive client connection both keep working, on the same sockets and the same workers,
 * while 100 pushes change the routes they use.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffRouteTables, type RouteTable } from '@ingresskit/route-model';
import { startEchoBackend, type TestBackend } from './testing/backends.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';

let echo: TestBackend;
let plane: DataPlane;
let ports: { http: number; https: number };

function createTable(generation: number): RouteTable {
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      {
        hostname: '*',
        hostnameMatch: 'any',
        routes: [
          createTestRoute('ws', {
            match: { path: { type: 'PathPrefix', value: '/ws' } },
            action: { type: 'forward', backends: [{ backend: 'echo', weight: 1 }] },
          }),
        ],
      },
      {
        hostname: 'keepalive.example.com',
        hostnameMatch: 'exact',
        routes: [
          createTestRoute(`generation-${generation}`, {
            match: { path: { type: 'PathPrefix', value: generation % 2 === 0 ? '/' : '/odd' } },
            action: { type: 'respond', statusCode: 200, body: `generation ${generation}` },
          }),
        ],
        fallbackRoute: createTestRoute(`fallback-${generation}`, {
          action: { type: 'respond', statusCode: 200, body: `fallback ${generation}` },
        }),
      },
    ],
    tls: [],
    certificates: [],
    backends: [{ id: 'echo', endpoints: [{ address: echo.address, port: echo.port }] }],
  };
}

/** A plain HTTP/1.1 client on one TCP connection, for responses with a Content-Length. */
function createKeepAliveClient(port: number): {
  get(host: string, path: string): Promise<{ status: number; body: string }>;
  socket: Socket;
  closed: () => boolean;
} {
  const socket = connect(port, '127.0.0.1');
  let buffer = Buffer.alloc(0);
  let waiting: ((response: { status: number; body: string }) => void) | undefined;
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    const end = buffer.indexOf('\r\n\r\n');
    if (end === -1 || waiting === undefined) return;
    const head = buffer.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (buffer.length < end + 4 + length) return;
    const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    buffer = buffer.subarray(end + 4 + length);
    const resolve = waiting;
    waiting = undefined;
    resolve({ status: Number(head.split(' ')[1]), body });
  });
  return {
    socket,
    closed: () => closed,
    get: (host, path) =>
      new Promise((resolve) => {
        waiting = resolve;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      }),
  };
}

function openWebSocket(url: string): Promise<{ socket: WebSocket; next(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const messages: string[] = [];
    const waiters: ((message: string) => void)[] = [];
    socket.addEventListener('message', (event: MessageEvent) => {
      const waiter = waiters.shift();
      if (waiter) waiter(String(event.data));
      else messages.push(String(event.data));
    });
    socket.addEventListener('error', () => reject(new Error('WebSocket failed')));
    socket.addEventListener('open', () =>
      resolve({
        socket,
        next: () =>
          new Promise((done) => (messages.length > 0 ? done(messages.shift()!) : waiters.push(done))),
      }),
    );
  });
}

beforeAll(async () => {
  echo = await startEchoBackend('echo');
  ports = await allocateListenerPorts();
  plane = await startDataPlane({ table: createTable(0), ports });
});

afterAll(async () => {
  await plane?.stop();
  await echo?.close();
});

describe('long-lived connections through route pushes', () => {
  it('keeps a WebSocket and a keep-alive connection working across 100 pushes, with the same workers', async () => {
    let table = createTable(0);
    expect((await plane.push(table)).status).toBe(201);
    const workers = await plane.nginx.workerPids();
    const loads = (await plane.status()).configurationLoads;
    const ws = await openWebSocket(`ws://127.0.0.1:${ports.http}/ws`);
    ws.socket.send('hello');
    expect(await ws.next()).toBe('echo:hello');
    const client = createKeepAliveClient(ports.http);
    expect(await client.get('keepalive.example.com', '/x')).toEqual({ status: 200, body: 'generation 0' });

    for (let generation = 1; generation <= 100; generation++) {
      const next = createTable(generation);
      const pushed = await plane.push(diffRouteTables(table, next));
      expect(pushed.status).toBe(201);
      table = next;
      const expected = generation % 2 === 0 ? `generation ${generation}` : `fallback ${generation}`;
      expect(await client.get('keepalive.example.com', '/x')).toEqual({ status: 200, body: expected });
      if (generation % 10 === 0) {
        ws.socket.send(`after ${generation}`);
        expect(await ws.next()).toBe(`echo:after ${generation}`);
      }
    }

    expect(client.closed()).toBe(false);
    expect(ws.socket.readyState).toBe(WebSocket.OPEN);
    expect(await plane.nginx.workerPids()).toEqual(workers);
    expect((await plane.status()).configurationLoads).toBe(loads);
    ws.socket.close();
    client.socket.destroy();
  });

  it('proxies ordinary requests without Connection: close, so one upstream connection serves them all', async () => {
    const client = createKeepAliveClient(ports.http);
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const response = await client.get('anything', '/ws/plain');
      answers.push(JSON.parse(response.body) as { headers: Record<string, string>; remotePort: number });
    }
    client.socket.destroy();
    expect(answers[0]!.headers.connection).toBeUndefined();
    expect(answers[0]!.headers.upgrade).toBeUndefined();
    expect(new Set(answers.map((answer) => answer.remotePort)).size).toBe(1);
  });
});
