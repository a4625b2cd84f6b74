/**
 * Replicas in one process against one API server: every replica serves traffic, only the leader
 * writes Ingress status, a leader that dies without releasing the Lease is replaced once it
 * expires, and a graceful stop releases the Lease at once and stops nginx.
 */
import { CoordinationV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import {
  answerOf,
  eventually,
  ingressClassManifest,
  ingressManifest,
  isProcessAlive,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

const TTL_MS = 2_000;
let server: LocalApiServer;
let backends: Map<string, DemoBackend>;
const replicas = new Map<string, Controller>();

async function publishedAddresses(): Promise<string[]> {
  const networking = server.kubeConfig().makeApiClient(NetworkingV1Api);
  const ingress = await networking.readNamespacedIngress({ name: 'home', namespace: 'default' });
  return (ingress.status?.loadBalancer?.ingress ?? []).map((entry) => entry.ip ?? entry.hostname ?? '');
}

async function readLease() {
  const coordination = server.kubeConfig().makeApiClient(CoordinationV1Api);
  return coordination.readNamespacedLease({ name: 'ingresskit-leader', namespace: 'ingresskit' });
}

async function startReplica(name: string, address: string): Promise<Controller> {
  const controller = await startController(server, {
    podName: name,
    publishStatusAddress: address,
    electionTtlMs: TTL_MS,
  });
  replicas.set(name, controller);
  return controller;
}

function leaders(): string[] {
  return [...replicas.entries()].filter(([, controller]) => controller.isLeader()).map(([name]) => name);
}

beforeAll(async () => {
  backends = await startBackends('alpha');
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
    ingressManifest('home', { host: 'home.test', service: 'alpha', className: 'nginx' }),
  ]);
  await Promise.all([startReplica('replica-a', '10.0.0.1'), startReplica('replica-b', '10.0.0.2')]);
});

afterAll(async () => {
  for (const controller of replicas.values()) await controller.stop();
  await server?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
});

describe('leader election', () => {
  it('elects exactly one leader, and only the leader publishes its address', async () => {
    const [leader] = await eventually(() => {
      const current = leaders();
      expect(current).toHaveLength(1);
      return current;
    });
    const expected = leader === 'replica-a' ? '10.0.0.1' : '10.0.0.2';
    await eventually(async () => expect(await publishedAddresses()).toEqual([expected]));
    for (const controller of replicas.values()) expect(await answerOf(controller, 'home.test')).toBe('alpha');
    expect((await readLease()).spec?.holderIdentity).toBe(leader);
  });

  it('hands over to the other replica when the leader dies without releasing the Lease', async () => {
    const [oldLeader] = leaders();
    const survivor = oldLeader === 'replica-a' ? 'replica-b' : 'replica-a';
    const survivorAddress = survivor === 'replica-a' ? '10.0.0.1' : '10.0.0.2';
    const dying = replicas.get(oldLeader!)!;
    replicas.delete(oldLeader!);
    await dying.stop({ releaseLease: false });
    expect((await readLease()).spec?.holderIdentity).toBe(oldLeader);

    await eventually(() => expect(leaders()).toEqual([survivor]), 4 * TTL_MS);
    await eventually(async () => expect(await publishedAddresses()).toEqual([survivorAddress]));
    expect((await readLease()).spec?.holderIdentity).toBe(survivor);
  });

  it('releases the Lease and stops nginx when the leader stops gracefully', async () => {
    const [leaderName] = leaders();
    const leader = replicas.get(leaderName!)!;
    const next = await startReplica('replica-c', '10.0.0.3');
    expect(next.isLeader()).toBe(false);
    const masterPid = leader.dataPlane.masterPid!;
    expect(isProcessAlive(masterPid)).toBe(true);

    replicas.delete(leaderName!);
    await leader.stop();
    expect(isProcessAlive(masterPid)).toBe(false);
    // Released the way client-go does it: no holder, and a one-second term anyone may take.
    const released = await readLease();
    expect(released.spec?.holderIdentity ?? '').toBe('');
    expect(released.spec?.leaseDurationSeconds).toBe(1);
    expect(await answerOf(leader, 'home.test')).toMatch(/^error/);

    await eventually(() => expect(leaders()).toEqual(['replica-c']), 4 * TTL_MS);
    await eventually(async () => expect(await publishedAddresses()).toEqual(['10.0.0.3']));
  });
});
