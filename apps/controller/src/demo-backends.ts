/** The demo's backends: tiny HTTP servers on 127.0.0.1 that say who they are. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running backend. */
export interface DemoBackend {
  /** The EndpointSlice it stands for, e.g. `web-1`. */
  name: string;
  port: number;
  /** Requests answered so far. */
  requests(): number;
  stop(): Promise<void>;
}

/**
 * Starts a backend on 127.0.0.1 (a free port unless `port` is given) answering every request with
 * `<name>: <method> <host><url>`, so a curl through nginx shows which backend served it.
 */
export async function startDemoBackend(name: string, port = 0): Promise<DemoBackend> {
  let count = 0;
  const server: Server = createServer((request, response) => {
    count += 1;
    const body = `${name}: ${request.method ?? 'GET'} ${request.headers.host ?? ''}${request.url ?? '/'}\n`;
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-demo-backend': name });
    response.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    name,
    port: (server.address() as AddressInfo).port,
    requests: () => count,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
