/** Binding an HTTP or HTTPS server, and stopping it with its open connections. */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A server that listens. */
export interface ListeningServer {
  /** The port it listens on (the chosen one when 0 was asked). */
  readonly port: number;
  /** Stops accepting and closes open connections, keep-alive ones included. */
  stop(): Promise<void>;
}

/** Listens on `port` (`host`: undefined for all interfaces); rejects when it cannot bind. */
export async function listen(
  server: HttpServer | HttpsServer,
  port: number,
  host: string | undefined,
): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
