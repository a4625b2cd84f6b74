// The README's SyncQueue: a forced sync, then a burst of skippable events folded into few syncs.
import assert from 'node:assert/strict';
import { SyncQueue } from '@ingresskit/task-queue';

let syncs = 0;
const queue = new SyncQueue({
  sync: async () => {
    syncs += 1;
    await Promise.resolve();
  },
});
const errors: unknown[] = [];
queue.on('syncError', ({ error }) => errors.push(error));
queue.enqueue('initial-sync');
for (let i = 0; i < 100; i++) queue.enqueue(`shop/web-${i}`, { skippable: true });
queue.start();
await queue.onIdle();
await queue.shutDown();
assert.deepEqual(errors, []);
assert.ok(syncs >= 1 && syncs <= 3, `expected at most a few syncs, got ${syncs}`);
