/**
 * The leader-only role on its own (no nginx): its shutdown never throws, releases the Lease when
 * it can, and logs each failure of an API server that is down exactly once.
 */
import { Writable } from 'node:stream';
import { createStore } from '@ingresskit/store';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ControllerConfig } from '../src/config.js';
import { LeaderRole } from '../src/leader.js';
import { createLogger } from '../src/logger.js';
import { createControllerMetrics } from '../src/metrics.js';
import { createTestConfig, eventually, startLocalApiServer, type LocalApiServer } from './harness.js';

interface LogLine {
  level: string;
  msg: string;
  err?: { type?: string; message?: string };
  [field: string]: unknown;
}

let server: LocalApiServer;

beforeEach(async () => {
  server = await startLocalApiServer({ port: 0 });
  await server.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } }]);
});

afterEach(async () => {
  if (server.faults.isPaused()) await server.faults.resume();
  await server.stop();
});

function startRole(config: ControllerConfig) {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') lines.push(JSON.parse(line) as LogLine);
      callback();
    },
  });
  const kubeConfig = server.kubeConfig();
  const role = new LeaderRole({
    kubeConfig,
    config,
    store: createStore(kubeConfig, { kinds: ['Ingress'] }),
    logger: createLogger({ level: 'debug', destination }),
    metrics: createControllerMetrics(),
    listOwnedIngresses: () => [],
  });
  role.start();
  return { role, lines };
}

async function readLeaseHolder(config: ControllerConfig): Promise<string | undefined> {
  const lease = await server
    .kubeConfig()
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ name: config.electionId, namespace: config.podNamespace });
  return lease.spec?.holderIdentity;
}

describe('LeaderRole', () => {
  it('releases the Lease and says so when it stops', async () => {
    const config = await createTestConfig();
    const { role, lines } = startRole(config);
    await eventually(() => expect(role.isLeader()).toBe(true));

    await role.stop();
    expect(role.isLeader()).toBe(false);
    expect(await readLeaseHolder(config)).toBe('');
    expect(lines.filter((line) => line.msg === 'Lease released')).toHaveLength(1);
    expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
  });

  it('stops without throwing and logs each failure once when the API server is down', async () => {
    // No Pod object for the controller: the last-replica check cannot succeed, as outside a cluster.
    const config = await createTestConfig({ updateStatusOnShutdown: true });
    const { role, lines } = startRole(config);
    await eventually(() => expect(role.isLeader()).toBe(true));
    await server.faults.pause();

    await role.stop();
    const warnings = lines.filter(
      (line) =>
        (line.level === 'warn' || line.level === 'error') && line.msg !== 'leader election attempt failed',
    );
    expect(warnings.map((line) => [line.msg, line.err?.type])).toEqual([
      ['Ingress status sync failed; the published status stays as it is', 'AddressResolutionError'],
      ['cannot release the Lease; another replica leads once it expires', 'LeaseRequestError'],
    ]);
    expect(lines.find((line) => line.msg === 'status sync stopped')).toMatchObject({
      cleared: false,
      reason: 'unknown-replicas',
    });
    expect(lines.some((line) => line.msg === 'Lease released')).toBe(false);

    await server.faults.resume();
    expect(await readLeaseHolder(config)).toBe(config.podName);
  });
});
