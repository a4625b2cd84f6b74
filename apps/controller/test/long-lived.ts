/**
 * Long-lived traffic for the tests that prove route changes leave connections alone: a backend
 * that echoes WebSocket messages and streams a slow response, a minimal WebSocket client that can
 * name any Host, and a keep-alive HTTP client that reports which local port it used.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent, createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** A backend for long-lived requests. */
export interface LongLivedBackend {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts a backend on 127.0.0.1: `GET /stream?lines=N&everyMs=M` answers N lines, one every M ms;
 * a WebSocket upgrade (any path) echoes each text message back with `echo: ` in front.
 */
export async function startLongLivedBackend(): Promise<LongLivedBackend> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((incoming, response) => {
    const url = new URL(incoming.url ?? '/', 'http://backend');
    const lines = Number(url.searchParams.get('lines') ?? '10');
    const everyMs = Number(url.searchParams.get('everyMs') ?? '20');
    response.writeHead(200, { 'content-type': 'text/plain' });
    let sent = 0;
    const timer = setInterval(() => {
      response.write(`line ${sent}\n`);
      sent += 1;
      if (sent === lines) {
        clearInterval(timer);
        response.end();
      }
    }, everyMs);
    response.on('close', () => clearInterval(timer));
  });
  server.on('upgrade', (incoming, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const key = String(incoming.headers['sec-websocket-key'] ?? '');
    const accept = createHash('sha1')
      .update(key + WEBSOCKET_GUID)
      .digest('base64');
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    readFrames(socket, (text) => socket.write(encodeFrame(`echo: ${text}`, false)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An open WebSocket: send a text message and wait for the next one. */
export interface WebSocketClient {
  /** Sends `text` and resolves with the next message received. */
  exchange(text: string, timeoutMs?: number): Promise<string>;
  /** Whether the connection is still open. */
  isOpen(): boolean;
  close(): void;
}

/** Opens a WebSocket through `127.0.0.1:port` to `host` (any Host header, which browsers cannot set). */
export function openWebSocket(port: number, host: string, path = '/'): Promise<WebSocketClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let open = true;
    socket.on('close', () => (open = false));
    socket.once('error', reject);
    const key = randomBytes(16).toString('base64');
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    let head = Buffer.alloc(0);
    const waiting: ((text: string) => void)[] = [];
    const onHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onHead);
      const status = head.subarray(0, head.indexOf('\r\n')).toString();
      if (!status.includes(' 101 ')) {
        socket.destroy();
        reject(new Error(`WebSocket handshake refused: ${status}`));
        return;
      }
      readFrames(socket, (text) => waiting.shift()?.(text), head.subarray(end + 4));
      resolve({
        exchange: (text, timeoutMs = 5_000) =>
          new Promise((answer, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`no WebSocket answer within ${timeoutMs} ms`)),
              timeoutMs,
            );
            waiting.push((message) => {
              clearTimeout(timer);
              answer(message);
            });
            socket.write(encodeFrame(text, true));
          }),
        isOpen: () => open,
        close: () => socket.destroy(),
      });
    };
    socket.on('data', onHead);
  });
}

/** A keep-alive HTTP client on one connection at most, telling which local port served each request. */
export interface KeepAliveClient {
  get(
    port: number,
    host: string,
    path?: string,
  ): Promise<{ status: number; body: string; localPort: number }>;
  close(): void;
}

/** See {@link KeepAliveClient}. */
export function createKeepAliveClient(): KeepAliveClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    get: (port, host, path = '/') =>
      new Promise((resolve, reject) => {
        const outgoing = request({ host: '127.0.0.1', port, path, headers: { host }, agent }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body, localPort: outgoing.socket?.localPort ?? 0 }),
          );
        });
        outgoing.on('error', reject);
        outgoing.end();
      }),
    close: () => agent.destroy(),
  };
}

// RFC 6455 framing, text frames only (enough for an echo test); clients mask, servers do not.
function encodeFrame(text: string, masked: boolean): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const length = payload.length;
  const header =
    length < 126 ? Buffer.from([0x81, length]) : Buffer.from([0x81, 126, length >> 8, length & 0xff]);
  if (!masked) return Buffer.concat([header, payload]);
  header[1] = header[1]! | 0x80;
  const mask = randomBytes(4);
  const body = Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]!));
  return Buffer.concat([header, mask, body]);
}

function readFrames(socket: Socket, onText: (text: string) => void, initial = Buffer.alloc(0)): void {
  let buffer = initial;
  const drain = () => {
    for (;;) {
      if (buffer.length < 2) return;
      const masked = (buffer[1]! & 0x80) !== 0;
      let length = buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      }
      const maskOffset = offset;
      if (masked) offset += 4;
      if (buffer.length < offset + length) return;
      const payload = Buffer.from(buffer.subarray(offset, offset + length));
      if (masked)
        for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ buffer[maskOffset + (i % 4)]!;
      const opcode = buffer[0]! & 0x0f;
      buffer = buffer.subarray(offset + length);
      if (opcode === 0x1) onText(payload.toString('utf8'));
      if (opcode === 0x8) socket.end();
    }
  };
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    drain();
  });
  drain();
}
