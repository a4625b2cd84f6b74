/**
 * Reliability: two replicas, each its own process with its own nginx; the leader is killed
 * (SIGKILL to the controller and its nginx, the Lease not released) while a steady request loop
 * runs through the other replica. The survivor never fails a request, takes the Lease once it
 * expires, publishes its address into the Ingresses' status, and serves what is created afterwards.
 */
import { CoordinationV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe } from '../../src/http-probe.js';
import { eventually, ingressManifest } from '../harness.js';
import { DOMAIN, startCluster, type ReliabilityCluster } from './cluster.js';
import { startReplica, type ReplicaProcess } from './replica-process.js';
import { formatTrafficReport, startTraffic } from './traffic.js';

const TTL_SECONDS = 2;
const ADDRESSES: Record<string, string> = { 'replica-a': '10.0.0.1', 'replica-b': '10.0.0.2' };
let cluster: ReliabilityCluster;
const replicas: ReplicaProcess[] = [];

async function publishedAddresses(name: string): Promise<string[]> {
  const networking = cluster.server.kubeConfig().makeApiClient(NetworkingV1Api);
  const ingress = await networking.readNamespacedIngress({ name, namespace: 'default' });
  return (ingress.status?.loadBalancer?.ingress ?? []).map((entry) => entry.ip ?? entry.hostname ?? '');
}

async function leaseHolder(): Promise<string | undefined> {
  const coordination = cluster.server.kubeConfig().makeApiClient(CoordinationV1Api);
  const lease = await coordination.readNamespacedLease({
    name: 'ingresskit-leader',
    namespace: 'ingresskit',
  });
  return lease.spec?.holderIdentity;
}

beforeAll(async () => {
  cluster = await startCluster();
  for (const name of Object.keys(ADDRESSES)) {
    replicas.push(
      await startReplica({
        name,
        kubeconfigPath: cluster.kubeconfigPath,
        prefix: join(cluster.dir, name),
        address: ADDRESSES[name]!,
        electionTtlSeconds: TTL_SECONDS,
      }),
    );
  }
  try {
    await eventually(
      async () => {
        for (const replica of replicas) expect(await replica.isReady()).toBe(true);
      },
      60_000,
      100,
    );
  } catch (error) {
    for (const replica of replicas) console.error(`${replica.name}:\n${replica.recentOutput()}`);
    throw error;
  }
}, 90_000);

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await cluster?.stop();
});

describe('leader killed', () => {
  it('fails no request on the survivor, which takes over the Lease, the status and new Ingresses', async () => {
    const leaders = await eventually(
      async () => {
        const leading: ReplicaProcess[] = [];
        for (const replica of replicas) if (await replica.isLeader()) leading.push(replica);
        expect(leading).toHaveLength(1);
        return leading;
      },
      20_000,
      100,
    );
    const leader = leaders[0]!;
    const survivor = replicas.find((replica) => replica !== leader)!;
    await eventually(async () =>
      expect(await publishedAddresses('steady-1')).toEqual([ADDRESSES[leader.name]]),
    );

    const traffic = startTraffic({
      httpPort: survivor.httpPort,
      httpsPort: survivor.httpsPort,
      routes: cluster.steadyRoutes,
      maxRequests: 3_000,
      maxDurationMs: 60_000,
    });
    await sleep(1_000);
    const killedAt = Date.now();
    await leader.kill();
    expect(await leaseHolder()).toBe(leader.name);

    await eventually(async () => expect(await survivor.isLeader()).toBe(true), 6 * TTL_SECONDS * 1000, 100);
    const takeoverMs = Date.now() - killedAt;
    expect(await leaseHolder()).toBe(survivor.name);
    await eventually(async () => {
      for (const name of ['steady-1', 'steady-2', 'steady-3'])
        expect(await publishedAddresses(name)).toEqual([ADDRESSES[survivor.name]]);
    });

    await cluster.server.apply(
      ingressManifest('after-failover', { host: `failover.${DOMAIN}`, service: 'beta', className: 'nginx' }),
    );
    await eventually(async () => {
      const response = await probe({ port: survivor.httpPort, host: `failover.${DOMAIN}` });
      expect(response.body.split(':')[0]).toBe('beta');
    });
    await eventually(async () =>
      expect(await publishedAddresses('after-failover')).toEqual([ADDRESSES[survivor.name]]),
    );
    // The survivor's model covers every Ingress on the server (nginx may serve a reload a moment
    // before the controller records it as running).
    const networking = cluster.server.kubeConfig().makeApiClient(NetworkingV1Api);
    const keys = (await networking.listIngressForAllNamespaces()).items.map(
      (ingress) => `${ingress.metadata!.namespace}/${ingress.metadata!.name}`,
    );
    expect(keys).toContain('default/after-failover');
    await eventually(async () => {
      for (const key of keys) {
        const explanation = await survivor.explain(key);
        expect(explanation.found, key).toBe(true);
        expect(explanation.owned, key).toBe(true);
        expect(explanation.routes.length, `${key}: ${JSON.stringify(explanation)}`).toBeGreaterThan(0);
      }
    });
    await sleep(1_000);
    const report = await traffic.stopAfter(101);
    console.log(
      formatTrafficReport(`leader killed (survivor leads ${takeoverMs} ms after the kill)`, report),
    );
    expect(report.total).toBeGreaterThan(100);
    expect(report.failures).toEqual([]);
  }, 60_000);
});
