import { createFakeClock, type FakeClock } from '@ingresskit/task-queue';
import { describe, expect, it } from 'vitest';
import {
  InvalidStatusSyncOptionsError,
  LeaderElector,
  LeaseRequestError,
  RequestTimeoutError,
} from './index.js';
import { apiError, createFakeLeaseServer, type FakeLeaseConnection } from './testing/fake-lease-server.js';

const lease = 30_000;
const renew = 15_000;
const retry = 7_500;
// Candidates wait retry × [1, 2.2); with random() = 0.999 they wait almost the longest.
const longestCandidateWait = retry * 2.2;

interface Replica {
  identity: string;
  connection: FakeLeaseConnection;
  elector: LeaderElector;
  events: string[];
  /** Clock readings at each `started-leading`. */
  ledAt: number[];
}

function setup(count: number, random: () => number = () => 0) {
  const clock = createFakeClock({ now: Date.UTC(2024, 0, 1) });
  const server = createFakeLeaseServer(clock);
  const replicas: Replica[] = Array.from({ length: count }, (_, index) => {
    const identity = `pod-${String.fromCharCode(97 + index)}`;
    const connection = server.connect();
    const elector = new LeaderElector({
      coordinationApi: connection,
      namespace: 'ingress',
      electionId: 'ingresskit-leader',
      identity,
      clock,
      wallClock: () => clock.now(),
      random,
    });
    const events: string[] = [];
    const ledAt: number[] = [];
    elector.on('started-leading', () => {
      events.push('started-leading');
      ledAt.push(clock.now());
    });
    elector.on('stopped-leading', (reason) => events.push(`stopped-leading:${reason}`));
    elector.on('new-leader', (holder) => events.push(`new-leader:${holder}`));
    elector.on('attempt-failed', (error) => events.push(`attempt-failed:${error.name}`));
    elector.on('release-failed', (error) => events.push(`release-failed:${error.name}`));
    return { identity, connection, elector, events, ledAt };
  });
  return { clock, server, replicas };
}

function leaders(replicas: readonly Replica[]): string[] {
  return replicas.filter((replica) => replica.elector.isLeader()).map((replica) => replica.identity);
}

async function advanceInSteps(
  clock: FakeClock,
  totalMs: number,
  stepMs: number,
  check: () => void,
): Promise<void> {
  for (let elapsed = 0; elapsed < totalMs; elapsed += stepMs) {
    await clock.advanceAsync(stepMs);
    check();
  }
}

describe('LeaderElector', () => {
  it('creates the Lease with six-digit MicroTimes and leads when no Lease exists', async () => {
    const { clock, server, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(0);

    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.leader()).toBe('pod-a');
    expect(a.events).toEqual(['new-leader:pod-a', 'started-leading']);
    expect(server.lease()?.spec).toEqual({
      holderIdentity: 'pod-a',
      leaseDurationSeconds: 30,
      acquireTime: '2024-01-01T00:00:00.000000Z',
      renewTime: '2024-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
  });

  it('stamps the Lease from the wall clock when the monotonic clock reads something else', async () => {
    const clock = createFakeClock({ now: 5_000 });
    const server = createFakeLeaseServer(clock);
    const elector = new LeaderElector({
      coordinationApi: server.connect(),
      namespace: 'ingress',
      electionId: 'ingresskit-leader',
      identity: 'pod-a',
      clock,
      wallClock: () => Date.UTC(2025, 5, 1, 12),
    });
    elector.start();
    await clock.advanceAsync(0);

    expect(elector.isLeader()).toBe(true);
    expect(server.lease()?.spec).toMatchObject({
      acquireTime: '2025-06-01T12:00:00.000000Z',
      renewTime: '2025-06-01T12:00:00.000000Z',
    });
  });

  it('renews every retry period and keeps acquireTime and transitions when it leads', async () => {
    const { clock, server, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(3 * retry);

    expect(server.writes).toHaveLength(4);
    expect(server.lease()?.spec).toMatchObject({
      holderIdentity: 'pod-a',
      acquireTime: '2024-01-01T00:00:00.000000Z',
      renewTime: '2024-01-01T00:00:22.500000Z',
      leaseTransitions: 0,
    });
    expect(a.events).toEqual(['new-leader:pod-a', 'started-leading']);
  });

  it('lets exactly one of three candidates lead when they start together', async () => {
    const { clock, replicas } = setup(3, () => 0.5);
    for (const replica of replicas) replica.elector.start();

    await advanceInSteps(clock, 4 * lease, 250, () =>
      expect(leaders(replicas).length).toBeLessThanOrEqual(1),
    );

    const [winner] = leaders(replicas);
    expect(winner).toBeDefined();
    for (const replica of replicas) expect(replica.elector.leader()).toBe(winner);
    expect(
      replicas.flatMap((replica) => replica.events).filter((event) => event === 'started-leading'),
    ).toHaveLength(1);
  });

  it('takes over only after the lease duration from its own observation when the leader dies', async () => {
    const { clock, server, replicas } = setup(2, () => 0.999);
    const [a, b] = replicas as [Replica, Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    b.elector.start();
    await clock.advanceAsync(0);
    const observedByB = clock.now();

    await a.elector.stop({ release: false });
    // b saw a's record at observedByB, and it never changes again.
    await clock.advanceAsync(lease - 1);
    expect(b.elector.isLeader()).toBe(false);
    await clock.advanceAsync(1 + longestCandidateWait);

    expect(b.elector.isLeader()).toBe(true);
    const takeover = b.ledAt[0]! - observedByB;
    expect(takeover).toBeGreaterThanOrEqual(lease);
    expect(takeover).toBeLessThanOrEqual(lease + longestCandidateWait);
    expect(server.lease()?.spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
    expect(b.events).toEqual(['new-leader:pod-a', 'new-leader:pod-b', 'started-leading']);
  });

  it('releases the Lease on a graceful stop so a candidate takes over at its next attempt', async () => {
    const { clock, server, replicas } = setup(2, () => 0.999);
    const [a, b] = replicas as [Replica, Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    b.elector.start();
    await clock.advanceAsync(1000);

    const stopping = a.elector.stop();
    await clock.advanceAsync(0);
    expect(await stopping).toEqual({ released: true });
    expect(a.events).toEqual(['new-leader:pod-a', 'started-leading', 'stopped-leading:stopped']);
    expect(server.lease()?.spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });
    const releasedAt = clock.now();

    await clock.advanceAsync(longestCandidateWait);
    expect(b.elector.isLeader()).toBe(true);
    expect(b.ledAt[0]! - releasedAt).toBeLessThanOrEqual(longestCandidateWait);
    expect(server.lease()?.spec).toMatchObject({ holderIdentity: 'pod-b', leaseTransitions: 1 });
  });

  it('steps down exactly at the renew deadline when the API server stops answering', async () => {
    const { clock, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    const lastSuccessStart = clock.now();
    a.connection.mode = 'hang';

    await clock.advanceAsync(renew - 1);
    expect(a.elector.isLeader()).toBe(true);
    await clock.advanceAsync(1);
    expect(a.elector.isLeader()).toBe(false);
    expect(clock.now() - lastSuccessStart).toBe(renew);
    expect(a.events.at(-1)).toBe('stopped-leading:renew-deadline');
  });

  it('reports failed attempts and steps down at the renew deadline when requests are refused', async () => {
    const { clock, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(retry);
    const lastSuccessStart = clock.now();
    a.connection.mode = 'refuse';

    await clock.advanceAsync(renew - 1);
    expect(a.elector.isLeader()).toBe(true);
    await clock.advanceAsync(1);
    expect(a.elector.isLeader()).toBe(false);
    expect(clock.now() - lastSuccessStart).toBe(renew);
    const stepDown = a.events.indexOf('stopped-leading:renew-deadline');
    expect(stepDown).toBeGreaterThan(a.events.indexOf('attempt-failed:LeaseRequestError'));
    expect(a.events.filter((event) => event.startsWith('stopped-leading'))).toHaveLength(1);
  });

  it('leads again when the API server comes back and nobody else took the Lease', async () => {
    const { clock, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    a.connection.mode = 'refuse';
    await clock.advanceAsync(renew + retry);
    expect(a.elector.isLeader()).toBe(false);

    a.connection.mode = 'ok';
    await clock.advanceAsync(longestCandidateWait);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events.filter((event) => event === 'started-leading')).toHaveLength(2);
  });

  it('steps down at once when the Lease names another holder', async () => {
    const { clock, server, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    server.overwrite({
      holderIdentity: 'intruder',
      leaseDurationSeconds: 30,
      renewTime: '2024-01-01T00:00:01.000000Z' as never,
      leaseTransitions: 1,
    });

    await clock.advanceAsync(retry);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.elector.leader()).toBe('intruder');
    expect(a.events.slice(-2)).toEqual(['new-leader:intruder', 'stopped-leading:lost']);
  });

  it('leaves the Lease alone on stop when it never held it', async () => {
    const { clock, server, replicas } = setup(2);
    const [a, b] = replicas as [Replica, Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    b.elector.start();
    await clock.advanceAsync(0);
    const writes = server.writes.length;

    expect(await b.elector.stop()).toEqual({ released: false });
    expect(server.writes).toHaveLength(writes);
    expect(server.lease()?.spec?.holderIdentity).toBe('pod-a');
  });

  it('resolves with the error, emits release-failed and leaves the Lease to expire when the API server is down', async () => {
    const { clock, server, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    a.connection.mode = 'refuse';

    const result = await a.elector.stop();
    expect(result).toEqual({ released: false, error: expect.any(LeaseRequestError) });
    expect(result.error?.message).toBe('reading Lease ingress/ingresskit-leader to release it failed');
    expect(result.error?.cause).toEqual(new TypeError('fetch failed'));
    expect(a.events.slice(-2)).toEqual(['stopped-leading:stopped', 'release-failed:LeaseRequestError']);
    expect(server.lease()?.spec?.holderIdentity).toBe('pod-a');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('resolves with the timeout as the error after the renew deadline when the release hangs', async () => {
    const { clock, server, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    a.connection.mode = 'hang';
    const failures: Error[] = [];
    a.elector.on('release-failed', (error) => failures.push(error));

    const stopping = a.elector.stop();
    await clock.advanceAsync(renew - 1);
    expect(failures).toEqual([]);
    await clock.advanceAsync(1);
    const result = await stopping;
    expect(result.released).toBe(false);
    expect(result.error).toBeInstanceOf(LeaseRequestError);
    expect(result.error?.cause).toBeInstanceOf(RequestTimeoutError);
    expect(failures).toEqual([result.error]);
    expect(server.lease()?.spec?.holderIdentity).toBe('pod-a');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('resolves with the error when every try to release the Lease meets a conflict', async () => {
    const { clock, server, replicas } = setup(1);
    const [a] = replicas as [Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    let conflicts = 0;
    a.connection.replaceNamespacedLease = () => {
      conflicts += 1;
      return Promise.reject(apiError(409, 'Conflict', 'the object has been modified'));
    };

    const stopping = a.elector.stop();
    await clock.advanceAsync(0);
    const result = await stopping;
    expect(result).toEqual({ released: false, error: expect.any(LeaseRequestError) });
    expect(result.error?.message).toBe(
      'releasing Lease ingress/ingresskit-leader failed: 3 conflicts in a row',
    );
    expect(conflicts).toBe(3);
    expect(a.events.at(-1)).toBe('release-failed:LeaseRequestError');
    expect(server.lease()?.spec?.holderIdentity).toBe('pod-a');
  });

  it('lets a candidate take over once the Lease expires after a failed release', async () => {
    const { clock, server, replicas } = setup(2, () => 0.999);
    const [a, b] = replicas as [Replica, Replica];
    a.elector.start();
    await clock.advanceAsync(0);
    b.elector.start();
    await clock.advanceAsync(0);
    const observedByB = clock.now();
    a.connection.mode = 'refuse';

    expect((await a.elector.stop()).error).toBeInstanceOf(LeaseRequestError);
    await clock.advanceAsync(lease - 1);
    expect(b.elector.isLeader()).toBe(false);
    await clock.advanceAsync(1 + longestCandidateWait);
    expect(b.elector.isLeader()).toBe(true);
    expect(b.ledAt[0]! - observedByB).toBeGreaterThanOrEqual(lease);
    expect(server.lease()?.spec?.holderIdentity).toBe('pod-b');
  });

  it('never lets two replicas lead at once under random latency, outages and restarts', async () => {
    let seed = 42;
    const random = (): number => {
      // A small LCG keeps the scenario reproducible.
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const { clock, replicas } = setup(3, random);
    for (const replica of replicas) {
      replica.connection.latencyMs = () => random() * 2_000;
      replica.elector.start();
    }
    let leaderChanges = 0;
    let previous: string | undefined;

    for (let step = 0; step < 2_000; step++) {
      await clock.advanceAsync(500);
      const current = leaders(replicas);
      expect(current.length).toBeLessThanOrEqual(1);
      if (current[0] !== undefined && current[0] !== previous) leaderChanges += 1;
      previous = current[0] ?? previous;

      const replica = replicas[Math.floor(random() * replicas.length)]!;
      const dice = random();
      if (dice < 0.01) replica.connection.mode = random() < 0.5 ? 'hang' : 'refuse';
      else if (dice < 0.04) replica.connection.mode = 'ok';
      else if (dice < 0.045) {
        // stop() never rejects, so a floating call cannot go unhandled.
        void replica.elector.stop({ release: random() < 0.5 });
        replica.elector.start();
      }
    }
    expect(leaderChanges).toBeGreaterThan(1);
  });

  it('rejects timing that could let two replicas lead at once', () => {
    const { server } = setup(0);
    const base = { coordinationApi: server.connect(), namespace: 'ns', electionId: 'id', identity: 'me' };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(
      InvalidStatusSyncOptionsError,
    );
    expect(() => new LeaderElector({ ...base, renewDeadlineMs: 5_000, retryPeriodMs: 5_000 })).toThrow(
      InvalidStatusSyncOptionsError,
    );
    expect(() => new LeaderElector({ ...base, identity: '' })).toThrow(InvalidStatusSyncOptionsError);
  });
});
