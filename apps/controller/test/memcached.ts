/**
 * A memcached of a test's own on a free 127.0.0.1 port (never the system service), for the
 * global rate limit: started, stopped and started again on the same port to play an outage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { eventually } from './harness.js';

/** A running memcached; `stop` and `start` keep its port. */
export interface TestMemcached {
  readonly port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function accepts(port: number): Promise<void> {
  const socket = createConnection({ host: '127.0.0.1', port });
  try {
    await once(socket, 'connect');
  } finally {
    socket.destroy();
  }
}

/** Starts memcached on a free port; throws when it is not installed (scripts/setup.sh installs it). */
export async function startMemcached(): Promise<TestMemcached> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const memcached: TestMemcached = {
    port,
    async start() {
      // -U 0: no UDP, which the limiter never uses. As root memcached insists on a user to be.
      const user = process.getuid?.() === 0 ? ['-u', 'root'] : [];
      child = spawn('memcached', ['-l', '127.0.0.1', '-p', String(port), '-U', '0', ...user], {
        stdio: 'ignore',
      });
      const failed = once(child, 'error').then(([error]) => {
        throw error as Error;
      });
      try {
        await Promise.race([eventually(() => accepts(port), 10_000), failed]);
      } finally {
        failed.catch(() => {});
      }
    },
    async stop() {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null) return;
      const exited = once(running, 'exit');
      running.kill('SIGTERM');
      await exited;
    },
  };
  await memcached.start();
  return memcached;
}
