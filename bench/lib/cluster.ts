/**
 * What every system scenario sets up the same way: the backends and certificates of one run, a
 * local-apiserver loaded with N fixture Ingresses, and a controller of either side serving them
 * (started, then waited for until nginx answers the last Ingress from its backend).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLocalApiServer, type LocalApiServer } from '@ingresskit/local-apiserver';
import type { Side } from './baseline.js';
import {
  startControllerProcess,
  waitForAnswer,
  type ControllerProcess,
  type ControllerProcessOptions,
} from './controller-process.js';
import {
  createCertificatePool,
  createClusterObjects,
  initialBackendOf,
  refOf,
  startBackends,
  type Backend,
  type Certificate,
} from './fixture.js';

/** Backends answering with their name, certificates, and a work directory, for one scenario run. */
export interface BenchFixture {
  work: string;
  backends: Backend[];
  certificates: Certificate[];
  /** Stops the backends and removes the work directory. */
  stop: () => Promise<void>;
}

/** Starts 4 backends and makes 20 certificates in a new temporary directory named after `name`. */
export async function createBenchFixture(name: string): Promise<BenchFixture> {
  const work = mkdtempSync(join(tmpdir(), `ingresskit-bench-${name}-`));
  const backends = await startBackends(4);
  const certificates = createCertificatePool(work, 20);
  return {
    work,
    backends,
    certificates,
    stop: async () => {
      for (const backend of backends) await backend.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** A local-apiserver holding `count` fixture Ingresses. */
export interface BenchCluster {
  count: number;
  fixture: BenchFixture;
  server: LocalApiServer;
  kubeconfigPath: string;
  /** The objects loaded (the floors re-use them). */
  objects: Record<string, unknown>[];
  /** How long loading them took, ms (not part of any figure). */
  loadMs: number;
  stop: () => Promise<void>;
}

/**
 * Starts local-apiserver (in this process) and loads `count` fixture Ingresses into it (or
 * `objects`, when a scenario shapes its own).
 */
export async function startBenchCluster(
  fixture: BenchFixture,
  count: number,
  objects = createClusterObjects(
    count,
    fixture.backends.map((backend) => backend.port),
    fixture.certificates,
  ),
): Promise<BenchCluster> {
  const server = await startLocalApiServer({ port: 0 });
  const start = performance.now();
  await server.apply(objects);
  const loadMs = performance.now() - start;
  const kubeconfigPath = await server.writeKubeconfig(join(fixture.work, `kubeconfig-${count}`));
  return { count, fixture, server, kubeconfigPath, objects, loadMs, stop: () => server.stop() };
}

/** The backend name Ingress `index` answers with before any change. */
export function initialAnswerOf(cluster: BenchCluster, index: number): string {
  return cluster.fixture.backends[initialBackendOf(index, cluster.fixture.backends.length)]!.name;
}

/** A controller serving a cluster, with its own nginx prefix directory. */
export interface ServingController extends ControllerProcess {
  /** performance.now() of the first request the last Ingress answered correctly. */
  servedAt: number;
  /** Stops the controller and removes its prefix. */
  stop: () => Promise<void>;
}

/** Options of {@link startServingController}. */
export type ServingOptions = Partial<Omit<ControllerProcessOptions, 'which' | 'kubeconfigPath'>> & {
  /** How long serving may take; 600 s by default. */
  timeoutMs?: number;
  /** Poll interval of the readiness check; 20 ms by default. */
  intervalMs?: number;
  /** What answers once it serves: the last Ingress's `/app` from its backend by default. */
  ready?: { host: string; path: string; expected: string };
};

/**
 * Starts `ingresskit run` of `which` against `cluster` and resolves once nginx answers the last
 * Ingress (HTTP, `/app`) from its backend; on failure prints the controller's last lines, stops
 * it and rejects.
 */
export async function startServingController(
  cluster: BenchCluster,
  which: Side,
  options: ServingOptions = {},
): Promise<ServingController> {
  const prefix =
    options.prefix ?? join(cluster.fixture.work, `prefix-${which}-${cluster.count}-${Date.now()}`);
  mkdirSync(prefix, { recursive: true });
  const controller = await startControllerProcess({
    ...options,
    which,
    kubeconfigPath: cluster.kubeconfigPath,
    prefix,
  });
  const stop = async () => {
    await controller.stop();
    rmSync(prefix, { recursive: true, force: true });
  };
  try {
    const last = refOf(cluster.count - 1);
    const ready = options.ready ?? {
      host: last.host,
      path: '/app',
      expected: initialAnswerOf(cluster, last.index),
    };
    const servedAt = await waitForAnswer(controller.ports.http, ready.host, ready.path, ready.expected, {
      intervalMs: options.intervalMs ?? 20,
      timeoutMs: options.timeoutMs ?? 600_000,
    });
    return { ...controller, servedAt, stop };
  } catch (error) {
    process.stderr.write(`${which} controller output:\n${controller.recentOutput()}\n`);
    await stop();
    throw error;
  }
}
