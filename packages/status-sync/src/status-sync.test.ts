import { createFakeClock } from '@ingresskit/task-queue';
import { describe, expect, it } from 'vitest';
import {
  AddressResolutionError,
  InvalidStatusSyncOptionsError,
  RequestTimeoutError,
  StatusSync,
  StatusWriteError,
  type StatusSyncOptions,
  type StatusSyncResult,
} from './index.js';
import { controllerPod, createFakeCluster, ingress, type FakeCluster } from './testing/fake-cluster.js';
import { apiError } from './testing/fake-lease-server.js';

const self = { namespace: 'ingress', name: 'ctrl-aaaaa' };

function setup(options: Partial<StatusSyncOptions> = {}) {
  const clock = createFakeClock();
  const cluster = createFakeCluster();
  const leadership = { isLeader: true };
  const status = new StatusSync({
    networkingApi: cluster,
    coreApi: cluster,
    addresses: { publishStatusAddress: '192.0.2.20, 192.0.2.10', controllerPod: self },
    isLeader: () => leadership.isLeader,
    listOwnedIngresses: () => [...cluster.ingresses.values()],
    clock,
    ...options,
  });
  const results: StatusSyncResult[] = [];
  const failures: Error[] = [];
  status.on('synced', (result) => results.push(result));
  status.on('sync-failed', (error) => failures.push(error));
  return { clock, cluster, leadership, status, results, failures };
}

const published = [{ ip: '192.0.2.10' }, { ip: '192.0.2.20' }];

function statusOf(cluster: FakeCluster, key: string): unknown {
  return cluster.ingresses.get(key)?.status?.loadBalancer?.ingress;
}

describe('StatusSync', () => {
  it('writes only the Ingresses whose sorted addresses differ', async () => {
    const { cluster, status } = setup();
    cluster.put(ingress('fresh'));
    cluster.put(ingress('stale', [{ ip: '192.0.2.10' }]));
    cluster.put(ingress('same', published));
    cluster.put(ingress('same-reordered', [{ ip: '192.0.2.20' }, { ip: '192.0.2.10' }]));
    cluster.put(
      ingress('with-ports', [
        { ip: '192.0.2.10', ports: [{ port: 80, protocol: 'TCP' }] } as never,
        { ip: '192.0.2.20' },
      ]),
    );

    const result = await status.sync();

    expect(result).toEqual({
      outcome: 'synced',
      addresses: published,
      written: ['default/fresh', 'default/stale', 'default/with-ports'],
      unchanged: 2,
      failed: [],
    });
    expect(cluster.statusWrites.sort()).toEqual(['default/fresh', 'default/stale', 'default/with-ports']);
    expect(statusOf(cluster, 'default/fresh')).toEqual(published);
    expect(statusOf(cluster, 'default/with-ports')).toEqual(published);
  });

  it('writes nothing when the addresses are already published', async () => {
    const { cluster, status } = setup();
    cluster.put(ingress('a'));
    await status.sync();
    const writes = cluster.statusWrites.length;

    const second = await status.sync();
    expect(second.written).toEqual([]);
    expect(second.unchanged).toBe(1);
    expect(cluster.statusWrites).toHaveLength(writes);
  });

  it('writes nothing and resolves no addresses when it is not the leader', async () => {
    const { cluster, leadership, status } = setup({ addresses: { publishService: 'ingress/missing' } });
    leadership.isLeader = false;
    cluster.put(ingress('a'));

    expect(await status.sync()).toMatchObject({ outcome: 'not-leader', written: [] });
    expect(cluster.statusWrites).toEqual([]);
  });

  it('stops writing mid-sync when leadership is lost', async () => {
    const { cluster, leadership, status } = setup({ concurrency: 1 });
    for (const name of ['a', 'b', 'c']) cluster.put(ingress(name));
    cluster.beforeStatusWrite.set('default/a', () => {
      leadership.isLeader = false;
    });

    const result = await status.sync();
    expect(result.written).toEqual(['default/a']);
    expect(cluster.statusWrites).toEqual(['default/a']);
  });

  it('keeps at most `concurrency` status writes in flight', async () => {
    const { cluster, status } = setup({ concurrency: 3 });
    for (let index = 0; index < 10; index++) cluster.put(ingress(`ing-${index}`));
    let open!: () => void;
    cluster.gate = new Promise<void>((resolve) => {
      open = resolve;
    });

    const syncing = status.sync();
    await new Promise((resolve) => setImmediate(resolve));
    expect(cluster.inFlight.now).toBe(3);
    open();
    const result = await syncing;

    expect(result.written).toHaveLength(10);
    expect(cluster.inFlight.max).toBe(3);
  });

  it('re-reads and retries when a write conflicts, keeping the other writer’s change', async () => {
    const { cluster, status } = setup();
    cluster.put(ingress('a'));
    cluster.beforeStatusWrite.set('default/a', () => {
      const current = cluster.ingresses.get('default/a')!;
      cluster.put({ ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } });
    });

    const result = await status.sync();
    expect(result.written).toEqual(['default/a']);
    expect(cluster.ingresses.get('default/a')?.metadata?.labels).toEqual({ touched: 'yes' });
    expect(statusOf(cluster, 'default/a')).toEqual(published);
  });

  it('skips the write when the re-read after a conflict already has the addresses', async () => {
    const { cluster, status } = setup();
    cluster.put(ingress('a'));
    cluster.beforeStatusWrite.set('default/a', () => {
      cluster.put(ingress('a', published));
    });

    const result = await status.sync();
    expect(result).toMatchObject({ written: [], unchanged: 1, failed: [] });
    expect(cluster.statusWrites).toEqual([]);
  });

  it('reports an Ingress that conflicts on every retry and still writes the others', async () => {
    const { cluster, status } = setup({ maxConflictRetries: 2 });
    cluster.put(ingress('busy'));
    cluster.put(ingress('calm'));
    let conflicts = 0;
    const conflict = (): void => {
      conflicts += 1;
      const current = cluster.ingresses.get('default/busy')!;
      cluster.put({ ...current, metadata: { ...current.metadata, annotations: { n: String(conflicts) } } });
      cluster.beforeStatusWrite.set('default/busy', conflict);
    };
    cluster.beforeStatusWrite.set('default/busy', conflict);

    const result = await status.sync();
    expect(conflicts).toBe(3);
    expect(result.written).toEqual(['default/calm']);
    expect(result.failed).toEqual([{ key: 'default/busy', error: expect.any(StatusWriteError) }]);
  });

  it('skips Ingresses deleted since they were listed', async () => {
    const { cluster, status } = setup({
      listOwnedIngresses: () => [ingress('gone'), ...cluster.ingresses.values()],
    });
    cluster.put(ingress('here'));

    const result = await status.sync();
    expect(result).toMatchObject({ written: ['default/here'], failed: [] });
  });

  it('syncs on start, every interval, and once more when asked during a sync', async () => {
    const { clock, cluster, status, results } = setup({ intervalMs: 60_000 });
    status.start();
    await clock.advanceAsync(0);
    expect(results).toHaveLength(1);

    await clock.advanceAsync(59_999);
    expect(results).toHaveLength(1);
    await clock.advanceAsync(1);
    expect(results).toHaveLength(2);

    cluster.put(ingress('new'));
    const first = status.sync();
    const second = status.sync();
    const third = status.sync();
    expect(second).toBe(third);
    await Promise.all([first, second]);
    expect(results).toHaveLength(4);
    expect(cluster.statusWrites).toEqual(['default/new']);

    await status.stop();
    await clock.advanceAsync(120_000);
    expect(results).toHaveLength(4);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('emits sync-failed and keeps the published status when the addresses cannot be resolved', async () => {
    const { cluster, status, failures, clock } = setup({ addresses: { publishService: 'ingress/missing' } });
    cluster.put(ingress('a', published));

    status.start();
    await clock.advanceAsync(0);
    expect(failures).toEqual([expect.any(AddressResolutionError)]);
    await expect(status.sync()).rejects.toThrow(AddressResolutionError);
    expect(cluster.statusWrites).toEqual([]);
    expect(statusOf(cluster, 'default/a')).toEqual(published);
    await status.stop();
  });

  describe('stop', () => {
    it('leaves the status alone unless updateStatusOnShutdown is set', async () => {
      const { cluster, status } = setup();
      cluster.pods.push(controllerPod('ctrl-aaaaa', 'n1'));
      cluster.put(ingress('a', published));
      status.start();

      expect(await status.stop()).toMatchObject({ cleared: false, reason: 'not-requested' });
      expect(statusOf(cluster, 'default/a')).toEqual(published);
    });

    it('leaves the status to the next leader when another live replica exists', async () => {
      const { cluster, status } = setup({ updateStatusOnShutdown: true });
      cluster.pods.push(
        controllerPod('ctrl-aaaaa', 'n1'),
        controllerPod('ctrl-bbbbb', 'n2', { phase: 'Pending', conditions: [] }),
      );
      cluster.put(ingress('a', published));
      status.start();

      expect(await status.stop()).toMatchObject({
        cleared: false,
        reason: 'other-replicas',
        otherReplicas: ['ctrl-bbbbb'],
      });
      expect(statusOf(cluster, 'default/a')).toEqual(published);
    });

    it('clears the status when it is the last replica, ignoring replicas being deleted or finished', async () => {
      const { cluster, leadership, status } = setup({ updateStatusOnShutdown: true });
      const terminating = controllerPod('ctrl-bbbbb', 'n2');
      terminating.metadata!.deletionTimestamp = new Date();
      cluster.pods.push(
        controllerPod('ctrl-aaaaa', 'n1'),
        terminating,
        controllerPod('ctrl-ccccc', 'n2', { phase: 'Failed' }),
      );
      cluster.put(ingress('a', published));
      cluster.put(ingress('b'));
      status.start();
      // The elector usually stops first; the last replica clears without the lease.
      leadership.isLeader = false;

      expect(await status.stop()).toEqual({
        cleared: true,
        reason: 'last-replica',
        otherReplicas: [],
        written: ['default/a'],
        failed: [],
      });
      expect(statusOf(cluster, 'default/a')).toBeUndefined();
      expect(cluster.statusWrites).toEqual(['default/a']);
    });

    it('keeps the status when it cannot tell whether other replicas exist', async () => {
      const { cluster, status } = setup({
        updateStatusOnShutdown: true,
        addresses: { publishStatusAddress: '192.0.2.10' },
      });
      cluster.put(ingress('a', [{ ip: '192.0.2.10' }]));
      status.start();

      expect(await status.stop()).toMatchObject({ cleared: false, reason: 'unknown-replicas' });
      expect(statusOf(cluster, 'default/a')).toEqual([{ ip: '192.0.2.10' }]);
    });

    const unreadable: [string, (cluster: FakeCluster) => void, string][] = [
      ['the controller pod does not exist', () => {}, 'reading the controller pod ingress/ctrl-aaaaa failed'],
      [
        'reading the controller pod is forbidden',
        (cluster) => {
          cluster.readNamespacedPod = () => Promise.reject(apiError(403, 'Forbidden', 'pods is forbidden'));
        },
        'reading the controller pod ingress/ctrl-aaaaa failed',
      ],
      [
        'listing the replicas is forbidden',
        (cluster) => {
          cluster.pods.push(controllerPod('ctrl-aaaaa', 'n1'));
          cluster.listNamespacedPod = () => Promise.reject(apiError(403, 'Forbidden', 'pods is forbidden'));
        },
        'listing pods app.kubernetes.io/name=ingresskit in ingress failed',
      ],
      [
        'the API server is down',
        (cluster) => {
          cluster.readNamespacedPod = () => Promise.reject(new TypeError('fetch failed'));
        },
        'reading the controller pod ingress/ctrl-aaaaa failed',
      ],
    ];
    it.each(unreadable)(
      'resolves, keeps the status and reports the error when %s',
      async (_what, breakCluster, message) => {
        const { cluster, status, failures } = setup({ updateStatusOnShutdown: true });
        cluster.put(ingress('a', published));
        breakCluster(cluster);
        status.start();

        const result = await status.stop();
        expect(result).toEqual({
          cleared: false,
          reason: 'unknown-replicas',
          otherReplicas: [],
          written: [],
          failed: [],
          error: expect.any(AddressResolutionError),
        });
        expect(result.error?.message).toBe(message);
        expect(failures).toEqual([result.error]);
        expect(cluster.statusWrites).toEqual([]);
        expect(statusOf(cluster, 'default/a')).toEqual(published);
      },
    );

    it('resolves with the timeout as the error when the replica check hangs', async () => {
      const { clock, cluster, status, failures } = setup({
        updateStatusOnShutdown: true,
        requestTimeoutMs: 5_000,
      });
      cluster.put(ingress('a', published));
      cluster.readNamespacedPod = () => new Promise(() => {});
      status.start();
      await clock.advanceAsync(0);

      const stopping = status.stop();
      await clock.advanceAsync(5_000);
      const result = await stopping;
      expect(result).toMatchObject({ cleared: false, reason: 'unknown-replicas', written: [] });
      expect(result.error).toBeInstanceOf(RequestTimeoutError);
      expect(failures).toEqual([result.error]);
      expect(statusOf(cluster, 'default/a')).toEqual(published);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('resolves, keeps the status and reports the error when the last replica cannot list its Ingresses', async () => {
      const listing = { fails: false };
      const { cluster, status, failures } = setup({
        updateStatusOnShutdown: true,
        listOwnedIngresses: () => {
          if (listing.fails) throw new Error('the cache is gone');
          return [...cluster.ingresses.values()];
        },
      });
      cluster.pods.push(controllerPod('ctrl-aaaaa', 'n1'));
      cluster.put(ingress('a', published));
      status.start();
      await status.sync();
      listing.fails = true;

      const result = await status.stop();
      expect(result).toEqual({
        cleared: false,
        reason: 'last-replica',
        otherReplicas: [],
        written: [],
        failed: [],
        error: new Error('the cache is gone'),
      });
      expect(failures).toEqual([result.error]);
      expect(statusOf(cluster, 'default/a')).toEqual(published);
    });
  });

  it('rejects a concurrency below 1', () => {
    const cluster = createFakeCluster();
    expect(
      () =>
        new StatusSync({
          networkingApi: cluster,
          coreApi: cluster,
          addresses: {},
          isLeader: () => true,
          listOwnedIngresses: () => [],
          concurrency: 0,
        }),
    ).toThrow(InvalidStatusSyncOptionsError);
  });
});
