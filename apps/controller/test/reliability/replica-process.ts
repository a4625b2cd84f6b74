/**
 * A controller replica as its own process (`ingresskit run` from source through tsx), so that it
 * can be killed the way a crashed pod dies: SIGKILL to the controller and to its nginx, with no
 * chance to release the Lease or stop anything.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { listChildPids } from '../../src/nginx-process.js';
import { pickControllerPorts } from '../harness.js';

const controllerRoot = join(import.meta.dirname, '..', '..');

/** A running replica. */
export interface ReplicaProcess {
  name: string;
  pid: number;
  httpPort: number;
  httpsPort: number;
  healthzPort: number;
  /** Whether `/healthz` answers 200. */
  isReady(): Promise<boolean>;
  /** Whether its `/metrics` says it leads. */
  isLeader(): Promise<boolean>;
  /** `/explain` for `namespace/name`. */
  explain(key: string): Promise<{ found: boolean; owned: boolean; routes: unknown[] }>;
  /** SIGKILL to nginx (master and workers) and to the controller, then waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM and waits for a graceful exit (the Lease is released, nginx stopped). */
  stop(): Promise<void>;
  /** The last lines it logged, for failure messages. */
  recentOutput(): string;
}

/** Options of {@link startReplica}. */
export interface ReplicaOptions {
  name: string;
  kubeconfigPath: string;
  /** nginx prefix directory. */
  prefix: string;
  /** `--publish-status-address`. */
  address: string;
  /** `--election-ttl` in seconds. */
  electionTtlSeconds: number;
}

/** Spawns a replica on free ports; does not wait until it is ready. */
export async function startReplica(options: ReplicaOptions): Promise<ReplicaProcess> {
  const ports = await pickControllerPorts();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--conditions=@ingresskit/source',
      '--import',
      'tsx',
      join(controllerRoot, 'src/cli.ts'),
      'run',
      `--kubeconfig=${options.kubeconfigPath}`,
      `--http-port=${ports.httpPort}`,
      `--https-port=${ports.httpsPort}`,
      `--healthz-port=${ports.healthzPort}`,
      `--nginx-prefix=${options.prefix}`,
      `--pod-name=${options.name}`,
      '--pod-namespace=ingresskit',
      `--publish-status-address=${options.address}`,
      `--election-ttl=${options.electionTtlSeconds}`,
      '--sync-rate-limit=0',
      '--allow-local-backend-addresses',
      '--log-level=warn',
    ],
    { cwd: controllerRoot, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const recent: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    recent.push(line);
    if (recent.length > 40) recent.shift();
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  const base = `http://127.0.0.1:${ports.healthzPort}`;
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  return {
    name: options.name,
    pid: child.pid!,
    httpPort: ports.httpPort,
    httpsPort: ports.httpsPort,
    healthzPort: ports.healthzPort,
    isReady: async () => {
      try {
        return (await fetch(`${base}/healthz`)).status === 200;
      } catch {
        return false;
      }
    },
    isLeader: async () => {
      try {
        const text = await (await fetch(`${base}/metrics`)).text();
        return /^ingresskit_leader_election_status\{[^}]*\} 1$/m.test(text);
      } catch {
        return false;
      }
    },
    explain: async (key) =>
      (await (await fetch(`${base}/explain?ingress=${key}`)).json()) as {
        found: boolean;
        owned: boolean;
        routes: unknown[];
      },
    kill: async () => {
      if (!isRunning()) return;
      // nginx is the controller's child; its workers are nginx's children. A dead pod loses all of them.
      const masters = await listChildPids(child.pid!);
      const workers = (await Promise.all(masters.map((pid) => listChildPids(pid)))).flat();
      child.kill('SIGKILL');
      for (const pid of [...masters, ...workers]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      await exited;
    },
    stop: async () => {
      if (!isRunning()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
    recentOutput: () => recent.join('\n'),
  };
}
