/**
 * Test-only backends on 127.0.0.1 (or ::1): an HTTP(S) server that answers every request with
 * JSON describing it, echoes WebSocket messages, and an HTTP/2 cleartext server for grpc_pass.
 */
import { createHash } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { createSelfSignedCertificate } from '../self-signed-certificate.js';

/** What an echo backend answers. */
export interface Echo {
  backend: string;
  method: string;
  url: string;
  host: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The SNI name a TLS backend received. */
  servername?: string;
  /** HTTP version as the backend saw it. */
  httpVersion: string;
  /** The client port of the connection the request came on (equal for reused connections). */
  remotePort?: number;
}

/** A running test backend. */
export interface TestBackend {
  name: string;
  address: string;
  port: number;
  /** Requests answered so far. */
  count(): number;
  close(): Promise<void>;
}

function answer(name: string, request: IncomingMessage, response: ServerResponse, onDone: () => void): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const echo: Echo = {
      backend: name,
      method: request.method ?? '',
      url: request.url ?? '',
      host: request.headers.host ?? '',
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      httpVersion: request.httpVersion,
    };
    if (request.socket.remotePort !== undefined) echo.remotePort = request.socket.remotePort;
    const servername = (request.socket as Partial<TLSSocket>).servername;
    if (typeof servername === 'string') echo.servername = servername;
    onDone();
    response.setHeader('content-type', 'application/json');
    response.setHeader('x-backend', name);
    // `?status=<code>` answers with that status, for custom error tests.
    response.statusCode = Number(/[?&]status=([1-5][0-9]{2})/.exec(echo.url)?.[1] ?? 200);
    // `?answer-header=<name>:<value>` adds that header to the answer (what a backend may say).
    const extra = /[?&]answer-header=([^&:]+):([^&]*)/.exec(echo.url);
    if (extra !== null) response.setHeader(decodeURIComponent(extra[1]!), decodeURIComponent(extra[2]!));
    // `?delay=<ms>` answers late, for timeout tests.
    const delay = Number(/[?&]delay=(\d+)/.exec(echo.url)?.[1] ?? 0);
    const timer = setTimeout(() => response.end(JSON.stringify(echo)), delay);
    response.on('close', () => clearTimeout(timer));
  });
}

/** Encodes one unmasked server frame (text or close). */
function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff]);
  return Buffer.concat([header, payload]);
}

/** A minimal RFC 6455 echo: text frames (up to 64 KiB) come back prefixed with the backend name. */
function acceptWebSocket(name: string, request: IncomingMessage, socket: Duplex): void {
  const key = request.headers['sec-websocket-key'];
  if (typeof key !== 'string') {
    socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    return;
  }
  const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 2) return;
      const opcode = buffer[0]! & 0x0f;
      let length = buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      }
      const masked = (buffer[1]! & 0x80) !== 0;
      const mask = masked ? buffer.subarray(offset, offset + 4) : undefined;
      if (masked) offset += 4;
      if (buffer.length < offset + length) return;
      const payload = Buffer.from(buffer.subarray(offset, offset + length));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
      buffer = buffer.subarray(offset + length);
      if (opcode === 0x8) {
        socket.end(encodeFrame(0x8, Buffer.alloc(0)));
        return;
      }
      if (opcode === 0x1) socket.write(encodeFrame(0x1, Buffer.from(`${name}:${payload.toString('utf8')}`)));
    }
  });
  socket.on('error', () => socket.destroy());
}

function listen(server: Server | Http2Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

/**
 * Starts an echo backend: every HTTP request gets `Echo` JSON (and `x-backend: <name>`; with
 * `?delay=<ms>` in the URL, that much later; with `?status=<code>`, with that status), every WebSocket upgrade an echo of its text
 * messages. `tls`: HTTPS with a self-signed certificate.
 */
export async function startEchoBackend(
  name: string,
  options: { host?: string; tls?: boolean } = {},
): Promise<TestBackend> {
  const host = options.host ?? '127.0.0.1';
  let served = 0;
  const handler = (request: IncomingMessage, response: ServerResponse) =>
    answer(name, request, response, () => served++);
  let server: Server;
  if (options.tls === true) {
    const certificate = createSelfSignedCertificate({ commonName: `${name}.backend` });
    server = createHttpsServer({ cert: certificate.certificatePem, key: certificate.privateKeyPem }, handler);
  } else {
    server = createHttpServer(handler);
  }
  server.on('upgrade', (request: IncomingMessage, socket: Duplex) => acceptWebSocket(name, request, socket));
  const sockets = new Set<Duplex>();
  server.on('connection', (socket: Duplex) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server, host);
  return {
    name,
    address: host,
    port,
    count: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Starts an HTTP/2 cleartext backend (what grpc_pass speaks) answering Echo JSON. */
export async function startHttp2Backend(name: string): Promise<TestBackend> {
  let served = 0;
  const server = createHttp2Server((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      served++;
      const echo: Echo = {
        backend: name,
        method: request.method,
        url: request.url,
        host: request.headers[':authority'] ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        httpVersion: request.httpVersion,
      };
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(echo));
    });
  });
  const sessions = new Set<{ destroy(): void }>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  const port = await listen(server, '127.0.0.1');
  return {
    name,
    address: '127.0.0.1',
    port,
    count: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}
