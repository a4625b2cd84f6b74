/** Free TCP ports on 127.0.0.1. */
import { createServer } from 'node:net';

/** Whether `port` can be bound on `host` right now. */
export function isPortFree(port: number, host = '0.0.0.0'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port that was free a moment ago (the kernel's pick). */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `preferred` when it is free (0: any), else a free port; never one of `taken`. */
export async function pickPort(preferred: number, taken: ReadonlySet<number> = new Set()): Promise<number> {
  if (preferred !== 0 && !taken.has(preferred) && (await isPortFree(preferred))) return preferred;
  for (;;) {
    const port = await findFreePort();
    if (!taken.has(port)) return port;
  }
}
