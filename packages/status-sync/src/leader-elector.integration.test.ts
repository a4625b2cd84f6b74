import { ApiException, CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LeaderElector,
  LeaseRequestError,
  type LeaderElectorOptions,
  type StoppedLeadingReason,
} from './index.js';

// Short real-clock timing keeps these tests fast; the bounds below are the protocol's, plus a margin.
const fast = { leaseDurationMs: 2_000, renewDeadlineMs: 1_000, retryPeriodMs: 250 };
const longestCandidateWait = fast.retryPeriodMs * 2.2;
const margin = 1_500;

type Server = Awaited<ReturnType<typeof startLocalApiServer>>;

interface Replica {
  identity: string;
  elector: LeaderElector;
  stopped: StoppedLeadingReason[];
}

let server: Server;
let kubeConfig: KubeConfig;
let replicas: Replica[];

beforeEach(async () => {
  server = await startLocalApiServer({ port: 0 });
  kubeConfig = server.kubeConfig();
  replicas = [];
});

afterEach(async () => {
  if (server.faults.isPaused()) await server.faults.resume();
  await Promise.all(replicas.map((replica) => replica.elector.stop({ release: false })));
  await server.stop();
});

function startReplica(identity: string, timing: Partial<LeaderElectorOptions> = fast): Replica {
  const elector = new LeaderElector({
    coordinationApi: kubeConfig.makeApiClient(CoordinationV1Api),
    namespace: 'default',
    electionId: 'ingresskit-leader',
    identity,
    ...timing,
  });
  const replica: Replica = { identity, elector, stopped: [] };
  elector.on('stopped-leading', (reason) => replica.stopped.push(reason));
  elector.start();
  replicas.push(replica);
  return replica;
}

function leaders(): Replica[] {
  return replicas.filter((replica) => replica.elector.isLeader());
}

// Polls with the real clock: integration tests talk to a real server in real time.
async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function readLease() {
  return kubeConfig
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ name: 'ingresskit-leader', namespace: 'default' });
}

describe('LeaderElector', () => {
  it('lets exactly one of three racing replicas lead and records it in the Lease', async () => {
    for (const identity of ['pod-a', 'pod-b', 'pod-c']) startReplica(identity);

    const winner = await waitFor(() => leaders()[0], fast.leaseDurationMs + margin);
    const watchUntil = Date.now() + 2 * fast.leaseDurationMs;
    while (Date.now() < watchUntil) {
      expect(leaders().map((replica) => replica.identity)).toEqual([winner.identity]);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    const lease = await readLease();
    expect(lease.spec?.holderIdentity).toBe(winner.identity);
    expect(lease.spec?.leaseDurationSeconds).toBe(2);
    expect(String(lease.spec?.renewTime)).toMatch(/\.\d{6}Z$/);
    for (const replica of replicas) expect(replica.elector.leader()).toBe(winner.identity);
  });

  it('hands over within the lease duration plus retries when the leader dies without releasing', async () => {
    const first = startReplica('pod-a');
    await waitFor(() => (first.elector.isLeader() ? true : undefined), margin);
    startReplica('pod-b');
    startReplica('pod-c');
    await new Promise((resolve) => setTimeout(resolve, 2 * longestCandidateWait));

    const killedAt = Date.now();
    await first.elector.stop({ release: false });
    replicas = replicas.filter((replica) => replica !== first);
    const next = await waitFor(() => leaders()[0], fast.leaseDurationMs + 2 * longestCandidateWait + margin);

    expect(Date.now() - killedAt).toBeLessThan(fast.leaseDurationMs + 2 * longestCandidateWait + margin);
    expect(next.identity).not.toBe('pod-a');
    expect(leaders()).toHaveLength(1);
    expect((await readLease()).spec).toMatchObject({ holderIdentity: next.identity, leaseTransitions: 1 });
  });

  it('hands over at the next attempt, well before the lease expires, on a graceful stop', async () => {
    // A longer lease makes the difference between release and expiry plain.
    const timing = { leaseDurationMs: 5_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 };
    const first = startReplica('pod-a', timing);
    await waitFor(() => (first.elector.isLeader() ? true : undefined), margin);
    startReplica('pod-b', timing);
    await new Promise((resolve) => setTimeout(resolve, 2 * longestCandidateWait));

    const stoppedAt = Date.now();
    await first.elector.stop();
    replicas = replicas.filter((replica) => replica !== first);
    expect(first.stopped).toEqual(['stopped']);
    const next = await waitFor(() => leaders()[0], timing.leaseDurationMs);

    expect(next.identity).toBe('pod-b');
    expect(Date.now() - stoppedAt).toBeLessThan(timing.leaseDurationMs);
  });

  it('resolves with the error and leaves the Lease to expire when the API server is down on a graceful stop', async () => {
    const leader = startReplica('pod-a');
    await waitFor(() => (leader.elector.isLeader() ? true : undefined), margin);
    const failures: Error[] = [];
    leader.elector.on('release-failed', (error) => failures.push(error));

    await server.faults.pause();
    const result = await leader.elector.stop();
    replicas = replicas.filter((replica) => replica !== leader);
    expect(result).toEqual({ released: false, error: expect.any(LeaseRequestError) });
    expect(failures).toEqual([result.error]);
    expect(leader.stopped).toEqual(['stopped']);

    await server.faults.resume();
    expect((await readLease()).spec?.holderIdentity).toBe('pod-a');
  });

  it('steps down after the renew deadline when the API server is down, and leads again after it returns', async () => {
    const leader = startReplica('pod-a');
    await waitFor(() => (leader.elector.isLeader() ? true : undefined), margin);

    const downAt = Date.now();
    await server.faults.pause();
    await waitFor(() => (leader.stopped.length > 0 ? true : undefined), fast.renewDeadlineMs + margin);
    expect(Date.now() - downAt).toBeLessThan(fast.renewDeadlineMs + margin);
    expect(leader.stopped).toEqual(['renew-deadline']);
    expect(leader.elector.isLeader()).toBe(false);

    await server.faults.resume();
    await waitFor(() => (leader.elector.isLeader() ? true : undefined), fast.leaseDurationMs + margin);
  });

  it('writes MicroTimes the server accepts, where a Date with three digits is rejected', async () => {
    const api = kubeConfig.makeApiClient(CoordinationV1Api);
    const withDate = api.createNamespacedLease({
      namespace: 'default',
      body: {
        metadata: { name: 'plain-date' },
        // The typings accept a plain Date, which serializes with three fractional digits.
        spec: { holderIdentity: 'x', renewTime: new Date('2024-05-06T07:08:09.123Z') },
      },
    });
    const rejection = await withDate.catch((error: unknown) => error);
    expect(rejection).toBeInstanceOf(ApiException);
    expect((rejection as ApiException<string>).code).toBe(400);

    const leader = startReplica('pod-a');
    await waitFor(() => (leader.elector.isLeader() ? true : undefined), margin);
    const lease = await readLease();
    expect(String(lease.spec?.acquireTime)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });
});
