import { describe, expect, it } from 'vitest';
import type { ListPage, ListRequest, ResourceClient, WatchRequest } from './api-client.js';
import { ApiStatusError, type InformerError } from './errors.js';
import type { KubeObject } from './objects.js';
import { shapeParsedObject } from './normalize.js';
import { Reflector } from './reflector.js';
import { resourceTypes } from './resources.js';
import { createFakeClock, type FakeClock } from '@ingresskit/task-queue';

interface OpenWatch {
  request: WatchRequest;
  emit(type: string, object: unknown): void;
  close(error: unknown): void;
  aborted: boolean;
}

class FakeClient implements ResourceClient {
  lists: ListRequest[] = [];
  watches: OpenWatch[] = [];
  listResults: (ListPage | Error)[] = [];
  watchFailures: unknown[] = [];

  list(request: ListRequest): Promise<ListPage> {
    this.lists.push(request);
    const next = this.listResults.shift() ?? { items: [], resourceVersion: '1', continueToken: undefined };
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  }

  watch(
    request: WatchRequest,
    onEvent: (type: string, object: unknown) => void,
    onDone: (error: unknown) => void,
  ): Promise<{ abort(): void }> {
    const failure = this.watchFailures.shift();
    const open: OpenWatch = {
      request,
      aborted: false,
      emit: (type, object) => onEvent(type, object),
      close: (error) => onDone(error),
    };
    this.watches.push(open);
    if (failure !== undefined) {
      onDone(failure);
    }
    return Promise.resolve({
      abort: () => {
        open.aborted = true;
        // Like client-node: aborting makes the done callback fire with an AbortError.
        onDone(Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }));
      },
    });
  }
}

function configMap(name: string, resourceVersion: string): unknown {
  return { metadata: { name, namespace: 'a', resourceVersion }, data: {} };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function createReflector(client: FakeClient, clock: FakeClock) {
  const applied: string[] = [];
  const errors: InformerError[] = [];
  const reflector = new Reflector({
    type: resourceTypes.ConfigMap,
    client,
    clock,
    random: () => 0,
    backoff: { initialMs: 100, maxMs: 1_000, jitter: 0 },
    pageSize: 2,
    watchTimeoutSeconds: [300, 600],
    healthyWatchMs: 10_000,
    shape: (raw) => shapeParsedObject(raw, resourceTypes.ConfigMap),
    sink: {
      replace: (objects: KubeObject[]) =>
        applied.push(`replace ${objects.map((o) => o.metadata.name).join(',')}`),
      upsert: (object) => applied.push(`upsert ${object.metadata.name}@${object.metadata.resourceVersion}`),
      remove: (object) => applied.push(`remove ${object.metadata.name}`),
    },
    onError: (error) => errors.push(error),
    onProgress: () => undefined,
  });
  return { reflector, applied, errors };
}

describe('Reflector', () => {
  it('lists page by page, then watches from the list resourceVersion', async () => {
    const client = new FakeClient();
    client.listResults = [
      { items: [configMap('x', '5'), configMap('y', '6')], resourceVersion: '10', continueToken: 'next' },
      { items: [configMap('z', '7')], resourceVersion: '10', continueToken: undefined },
    ];
    const clock = createFakeClock();
    const { reflector, applied } = createReflector(client, clock);
    reflector.start();
    await reflector.synced;
    await settle();
    expect(client.lists.map((list) => [list.limit, list.continueToken])).toEqual([
      [2, undefined],
      [2, 'next'],
    ]);
    expect(applied).toEqual(['replace x,y,z']);
    expect(client.watches[0]?.request.resourceVersion).toBe('10');
    client.watches[0]!.emit('MODIFIED', configMap('x', '11'));
    expect(applied.at(-1)).toBe('upsert x@11');
    expect(reflector.resourceVersion).toBe('11');
    await reflector.stop();
  });

  it('retries a failing list with growing delays and reports each failure', async () => {
    const client = new FakeClient();
    client.listResults = [
      new ApiStatusError(500, 'InternalError', 'boom'),
      new ApiStatusError(503, undefined, 'busy'),
    ];
    const clock = createFakeClock();
    const { reflector, errors } = createReflector(client, clock);
    reflector.start();
    await settle();
    expect(errors.map((error) => [error.phase, error.statusCode, error.attempt, error.retryInMs])).toEqual([
      ['list', 500, 1, 100],
    ]);
    expect(reflector.phase).toBe('backoff');
    clock.advance(100);
    await settle();
    expect(errors.map((error) => error.retryInMs)).toEqual([100, 200]);
    clock.advance(200);
    await reflector.synced;
    expect(client.lists).toHaveLength(3);
    await reflector.stop();
  });

  it('relists at once after a 410 ERROR event and resumes the watch without relisting after a 500', async () => {
    const client = new FakeClient();
    const clock = createFakeClock();
    const { reflector, errors } = createReflector(client, clock);
    reflector.start();
    await reflector.synced;
    await settle();
    client.watches[0]!.emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
    await settle();
    expect(client.lists).toHaveLength(2);
    expect(errors).toEqual([]);

    client.watchFailures.push(Object.assign(new Error('Internal Server Error'), { statusCode: 500 }));
    client.watches.at(-1)!.emit('BOOKMARK', { metadata: { resourceVersion: '3' } });
    client.watches.at(-1)!.close(null);
    await settle();
    expect(errors.map((error) => [error.phase, error.statusCode])).toEqual([['watch', 500]]);
    clock.advance(clock.pendingDelays()[0]!);
    await settle();
    expect(client.lists).toHaveLength(2);
    expect(client.watches.at(-1)!.request.resourceVersion).toBe('3');
    await reflector.stop();
  });

  it('does not start a second loop when stop() makes the watch report an AbortError', async () => {
    const client = new FakeClient();
    const clock = createFakeClock();
    const { reflector, errors } = createReflector(client, clock);
    reflector.start();
    reflector.start();
    await reflector.synced;
    await settle();
    expect(client.watches).toHaveLength(1);
    await reflector.stop();
    await settle();
    expect(client.watches[0]!.aborted).toBe(true);
    expect(client.watches).toHaveLength(1);
    expect(client.lists).toHaveLength(1);
    expect(errors).toEqual([]);
    expect(reflector.phase).toBe('stopped');
    reflector.start();
    await settle();
    expect(client.lists).toHaveLength(1);
  });

  it('backs off when a watch keeps closing at once without events', async () => {
    const client = new FakeClient();
    const clock = createFakeClock();
    const { reflector } = createReflector(client, clock);
    reflector.start();
    await reflector.synced;
    await settle();
    client.watches[0]!.close(null);
    await settle();
    expect(clock.pendingDelays()).toEqual([100]);
    clock.advance(100);
    await settle();
    client.watches[1]!.close(null);
    await settle();
    expect(clock.pendingDelays()).toEqual([200]);
    await reflector.stop();
    expect(clock.pendingDelays()).toEqual([]);
  });

  it('reconnects at once after a watch that delivered events closes cleanly', async () => {
    const client = new FakeClient();
    const clock = createFakeClock();
    const { reflector } = createReflector(client, clock);
    reflector.start();
    await reflector.synced;
    await settle();
    client.watches[0]!.emit('BOOKMARK', { metadata: { resourceVersion: '42' } });
    client.watches[0]!.close(null);
    await settle();
    expect(clock.pendingDelays()).toEqual([]);
    expect(client.watches[1]!.request.resourceVersion).toBe('42');
    await reflector.stop();
  });
});
