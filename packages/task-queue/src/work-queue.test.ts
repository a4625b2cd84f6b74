import { describe, expect, it } from 'vitest';
import { WorkQueue } from './index.js';

async function getItem<T>(queue: WorkQueue<T>): Promise<T> {
  const result = await queue.get();
  if (result.shutdown) throw new Error('expected an item, the queue shut down');
  return result.item;
}

// One macrotask turn lets every pending promise callback run.
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  it('hands items out in the order they were added', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.add('b');
    queue.add('c');
    expect([await getItem(queue), await getItem(queue), await getItem(queue)]).toEqual(['a', 'b', 'c']);
  });

  it('stores an item once when it is added again while waiting', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.len()).toBe(2);
    expect(await getItem(queue)).toBe('a');
    expect(await getItem(queue)).toBe('b');
    expect(queue.len()).toBe(0);
  });

  it('queues an item again after done when it was added while being processed', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    const item = await getItem(queue);
    queue.add('a');
    queue.add('a');
    // Not handed out twice at once: it waits for done.
    expect(queue.len()).toBe(0);
    queue.done(item);
    expect(queue.len()).toBe(1);
    expect(await getItem(queue)).toBe('a');
  });

  it('forgets an item after done when it was not added again', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.done(await getItem(queue));
    expect(queue.len()).toBe(0);
    expect(queue.numProcessing()).toBe(0);
    queue.add('a');
    expect(queue.len()).toBe(1);
  });

  it('ignores done for an item it never handed out', () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.done('a');
    queue.done('zzz');
    expect(queue.len()).toBe(1);
  });

  it('resolves a waiting get when an item is added', async () => {
    const queue = new WorkQueue<string>();
    const pending = queue.get();
    await settle();
    queue.add('a');
    expect(await pending).toEqual({ shutdown: false, item: 'a' });
    expect(queue.numProcessing()).toBe(1);
  });

  it('serves waiting gets first come, first served', async () => {
    const queue = new WorkQueue<string>();
    const first = queue.get();
    const second = queue.get();
    queue.add('a');
    queue.add('b');
    expect((await first).item).toBe('a');
    expect((await second).item).toBe('b');
  });

  it('rejects a waiting get with the abort reason when its signal aborts', async () => {
    const queue = new WorkQueue<string>();
    const controller = new AbortController();
    const pending = queue.get({ signal: controller.signal });
    controller.abort(new Error('stop waiting'));
    await expect(pending).rejects.toThrow('stop waiting');
    // The aborted waiter does not swallow the next item.
    queue.add('a');
    expect(queue.len()).toBe(1);
  });

  it('rejects get at once when its signal is already aborted and no item is queued', async () => {
    const queue = new WorkQueue<string>();
    await expect(queue.get({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('resolves every waiting get with a shut-down result when it shuts down', async () => {
    const queue = new WorkQueue<string>();
    const waiting = [queue.get(), queue.get()];
    queue.shutDown();
    expect(await Promise.all(waiting)).toEqual([{ shutdown: true }, { shutdown: true }]);
    expect(queue.isShuttingDown()).toBe(true);
  });

  it('still hands out queued items after shutdown, then reports shut down', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.shutDown();
    queue.add('b');
    expect(await queue.get()).toEqual({ shutdown: false, item: 'a' });
    expect(await queue.get()).toEqual({ shutdown: true });
  });

  it('resolves shutDownWithDrain only after every handed-out item is done', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.add('b');
    const a = await getItem(queue);
    const b = await getItem(queue);
    let isDrained = false;
    const drained = queue.shutDownWithDrain().then(() => {
      isDrained = true;
    });
    queue.done(a);
    await settle();
    expect(isDrained).toBe(false);
    queue.done(b);
    await drained;
    expect(isDrained).toBe(true);
  });

  it('resolves shutDownWithDrain at once when nothing is being processed', async () => {
    const queue = new WorkQueue<string>();
    await expect(queue.shutDownWithDrain()).resolves.toBeUndefined();
  });

  it('releases a pending drain when shutDown is called', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    await getItem(queue);
    const drained = queue.shutDownWithDrain();
    queue.shutDown();
    await expect(drained).resolves.toBeUndefined();
    expect(queue.numProcessing()).toBe(1);
  });

  it('never hands one item to two workers at the same time when it is re-added while processing', async () => {
    const queue = new WorkQueue<number>();
    const inProgress = new Set<number>();
    let overlaps = 0;
    let handled = 0;
    const worker = async () => {
      for (;;) {
        const next = await queue.get();
        if (next.shutdown) return;
        if (inProgress.has(next.item)) overlaps += 1;
        inProgress.add(next.item);
        handled += 1;
        await settle();
        inProgress.delete(next.item);
        queue.done(next.item);
      }
    };
    const workers = [worker(), worker(), worker()];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 10; i++) queue.add(i % 4);
      await settle();
    }
    while (queue.len() > 0 || queue.numProcessing() > 0) await settle();
    queue.shutDown();
    await Promise.all(workers);
    expect(overlaps).toBe(0);
    // 50 adds of 4 distinct items collapse to far fewer runs.
    expect(handled).toBeGreaterThanOrEqual(4);
    expect(handled).toBeLessThanOrEqual(20);
  });
});
