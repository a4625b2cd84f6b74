import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.js';

/** A task that runs until the test ends it. */
function createTasks() {
  const started: string[] = [];
  const endings = new Map<string, () => void>();
  const task = (id: string) => () =>
    new Promise<void>((resolve) => {
      started.push(id);
      endings.set(id, resolve);
    });
  const end = async (id: string) => {
    endings.get(id)!();
    // Let the queue see the task end and start the next.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, task, end };
}

describe('FairQueue', () => {
  it('runs at most perTenant of a tenant at once, and other tenants meanwhile', async () => {
    const queue = new FairQueue({ perTenant: 2, total: 10 });
    const { started, task, end } = createTasks();
    for (const id of ['m1', 'm2', 'm3', 'm4']) queue.push('mallory', id, task(id));
    queue.push('shop', 's1', task('s1'));
    expect(started).toEqual(['m1', 'm2', 's1']);
    expect(queue.running).toBe(3);
    await end('m1');
    expect(started).toEqual(['m1', 'm2', 's1', 'm3']);
  });

  it('lets tenants take turns within the total', async () => {
    const queue = new FairQueue({ perTenant: 5, total: 2 });
    const { started, task, end } = createTasks();
    for (const id of ['a1', 'a2', 'a3']) queue.push('a', id, task(id));
    for (const id of ['b1', 'b2']) queue.push('b', id, task(id));
    queue.push('c', 'c1', task('c1'));
    expect(started).toEqual(['a1', 'a2']);
    await end('a1');
    await end('a2');
    // a had two turns: b and c first.
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1']);
    await end('b1');
    await end('c1');
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2']);
  });

  it('queues an id once while it waits, and nothing after stop', async () => {
    const queue = new FairQueue({ perTenant: 1, total: 1 });
    const { started, task, end } = createTasks();
    expect(queue.push('a', 'x', task('x'))).toBe(true);
    expect(queue.push('a', 'y', task('y'))).toBe(true);
    expect(queue.push('a', 'y', task('y'))).toBe(false);
    expect(queue.isQueued('y')).toBe(true);
    queue.stop();
    await end('x');
    expect(started).toEqual(['x']);
    expect(queue.push('a', 'z', task('z'))).toBe(false);
  });
});
