/**
 * Proxy behaviour seen from backends and clients: whether nginx buffers a response (a backend
 * handler writing 32 MiB as fast as it is read, and a client that reads its head and then nothing
 * for a second), and the statuses of repeated requests (whether a failed endpoint is retried).
 */
import { request, type IncomingMessage, type ServerResponse } from 'node:http';

/** Requests whose 32 MiB response the backend has written in full, by x-probe header. */
const finished = new Set<string>();

/** Answers with 32 MiB, as fast as the connection takes it; notes when all is written. */
export function writeLargeResponse(incoming: IncomingMessage, response: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 120);
  let left = 512;
  const write = () => {
    while (left > 0) {
      left -= 1;
      if (!response.write(chunk)) return void response.once('drain', write);
    }
    response.end(() => finished.add(String(incoming.headers['x-probe'])));
  };
  write();
}

/**
 * Whether the backend wrote all of `path` (answered by writeLargeResponse) while the client,
 * having got the response head, read nothing for a second: with buffering nginx takes it all,
 * without it the backend must wait.
 */
export function isTakenWhileClientWaits(port: number, host: string, path = '/large'): Promise<boolean> {
  const id = `${host}-${Date.now()}`;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, path, headers: { host, 'x-probe': id }, agent: false },
      (response) => {
        response.pause();
        setTimeout(() => {
          resolve(finished.has(id));
          response.destroy();
        }, 1_000);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** The statuses of `count` requests made one after another by `send`. */
export async function collectStatuses(send: () => Promise<{ status: number }>, count = 6): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index += 1) statuses.push((await send()).status);
  return statuses;
}
