/**
 * task-queue: (1) how many syncs a burst of skippable events causes while one slow sync runs, with the
 * real clock and the real SyncQueue; (2) raw WorkQueue / RateLimitingQueue throughput through
 * add → get → done, against a plain array push/shift loop measured in the same process.
 */
import { createFakeClock, RateLimitingQueue, SyncQueue, WorkQueue } from '@ingresskit/task-queue';
import { formatNumber, memoryMiB, printSection, timeIt } from './lib/measure.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface BurstCase {
  label: string;
  events: number;
  keys: number;
  minIntervalMs: number;
}

/** Holds the first sync until every event is enqueued, then counts the syncs that follow. */
async function runBurst({ events, keys, minIntervalMs }: BurstCase) {
  let syncs = 0;
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  let firstStarted!: () => void;
  const firstRunning = new Promise<void>((resolve) => (firstStarted = resolve));
  const queue = new SyncQueue({
    minIntervalMs,
    sync: async () => {
      syncs += 1;
      if (syncs === 1) {
        firstStarted();
        await firstHeld;
      } else {
        // Every later sync costs real time too, as a render + reload would.
        await sleep(50);
      }
    },
  });
  let skips = 0;
  queue.on('skip', () => (skips += 1));
  queue.enqueue('initial-sync');
  queue.start();
  await firstRunning;

  const heapBefore = memoryMiB().heapUsed;
  const enqueue = await timeIt(() => {
    for (let i = 0; i < events; i++) {
      const key = i % keys;
      queue.enqueue(
        { metadata: { namespace: `team-${key % 100}`, name: `ingress-${key}` } },
        { skippable: true },
      );
    }
  });
  const heapDelta = memoryMiB().heapUsed - heapBefore;
  const queued = queue.len();
  releaseFirst();
  const drain = await timeIt(() => queue.onIdle());
  await queue.shutDown();
  return { furtherSyncs: syncs - 1, skips, queued, enqueueMs: enqueue.ms, drainMs: drain.ms, heapDelta };
}

/** Events keep arriving for `seconds` while each sync takes `syncMs`: syncs stay near seconds/syncMs. */
async function runStream(events: number, seconds: number, syncMs: number) {
  let syncs = 0;
  const queue = new SyncQueue({
    sync: async () => {
      syncs += 1;
      await sleep(syncMs);
    },
  });
  queue.start();
  const ticks = seconds * 50;
  const perTick = Math.ceil(events / ticks);
  let sent = 0;
  for (let tick = 0; tick < ticks; tick++) {
    for (let i = 0; i < perTick && sent < events; i++, sent++) {
      queue.enqueue(`team-${sent % 100}/ingress-${sent}`, { skippable: true });
    }
    await sleep(20);
  }
  await queue.onIdle();
  await queue.shutDown();
  return { syncs, sent };
}

const burstCases: BurstCase[] = [
  { label: '100,000 events, 100,000 keys', events: 100_000, keys: 100_000, minIntervalMs: 0 },
  { label: '100,000 events, 1,000 keys', events: 100_000, keys: 1_000, minIntervalMs: 0 },
  {
    label: '100,000 events, 100,000 keys, min interval 3,333 ms',
    events: 100_000,
    keys: 100_000,
    minIntervalMs: 3_333,
  },
];
const burstRows: Record<string, string | number>[] = [];
let worstFurtherSyncs = 0;
for (const burstCase of burstCases) {
  const result = await runBurst(burstCase);
  worstFurtherSyncs = Math.max(worstFurtherSyncs, result.furtherSyncs);
  burstRows.push({
    scenario: burstCase.label,
    'syncs after the slow one': result.furtherSyncs,
    'tasks queued': formatNumber(result.queued, 0),
    'tasks skipped': formatNumber(result.skips, 0),
    'enqueue (events/s)': formatNumber((burstCase.events / result.enqueueMs) * 1000, 0),
    'drain after release (ms)': formatNumber(result.drainMs, 0),
    'heap for the queued tasks (MiB)': formatNumber(result.heapDelta, 1),
  });
}
const stream = await runStream(100_000, 2, 100);
burstRows.push({
  scenario: `${formatNumber(stream.sent, 0)} events spread over 2 s, each sync 100 ms`,
  'syncs after the slow one': `${stream.syncs} syncs in all`,
  'tasks queued': '',
  'tasks skipped': '',
  'enqueue (events/s)': '',
  'drain after release (ms)': '',
  'heap for the queued tasks (MiB)': '',
});
printSection(
  'task-queue: burst of skippable events during one slow sync (SyncQueue, real clock)',
  burstRows,
  `The first sync is held until every event is enqueued, later syncs take 50 ms. Worst case: ` +
    `**${worstFurtherSyncs} further sync(s)** for 100,000 events (target ≤ 2). Without the skipping rule ` +
    `every distinct key would cost one sync (100,000 and 1,000 syncs).`,
);

// ---------------------------------------------------------------------------------------------
// Throughput

/** Best of `runs` timings (after one warm-up run) of `fn`, as items per second. */
async function itemsPerSecond(items: number, fn: () => unknown, runs = 3): Promise<number> {
  await fn();
  let best = Infinity;
  for (let run = 0; run < runs; run++) best = Math.min(best, (await timeIt(fn)).ms);
  return (items / best) * 1000;
}

const N = 1_000_000;
const BACKLOG = 1_000;

// Floor: a plain array used as a FIFO with a steady backlog (shift stays cheap on a short array).
function arraySteady(): number {
  const fifo: number[] = [];
  for (let i = 0; i < BACKLOG; i++) fifo.push(i);
  let sum = 0;
  for (let i = BACKLOG; i < N + BACKLOG; i++) {
    sum += fifo.shift()!;
    fifo.push(i);
  }
  return sum;
}

// The same loop paying one await per item, the least any promise-returning get can cost.
async function arraySteadyAwait(): Promise<number> {
  const fifo: number[] = [];
  for (let i = 0; i < BACKLOG; i++) fifo.push(i);
  let sum = 0;
  for (let i = BACKLOG; i < N + BACKLOG; i++) {
    sum += await Promise.resolve(fifo.shift()!);
    fifo.push(i);
  }
  return sum;
}

async function workQueueSteady(): Promise<number> {
  const queue = new WorkQueue<number>();
  for (let i = 0; i < BACKLOG; i++) queue.add(i);
  let sum = 0;
  for (let i = BACKLOG; i < N + BACKLOG; i++) {
    const next = await queue.get();
    if (next.shutdown) break;
    sum += next.item;
    queue.done(next.item);
    queue.add(i);
  }
  queue.shutDown();
  return sum;
}

async function workQueueBurst(): Promise<number> {
  const queue = new WorkQueue<number>();
  for (let i = 0; i < N; i++) queue.add(i);
  let sum = 0;
  while (queue.len() > 0) {
    const next = await queue.get();
    if (next.shutdown) break;
    sum += next.item;
    queue.done(next.item);
  }
  queue.shutDown();
  return sum;
}

function workQueueDuplicateAdds(): number {
  const queue = new WorkQueue<string>();
  const keys = Array.from({ length: 1_000 }, (_, i) => `team-${i % 100}/ingress-${i}`);
  for (let i = 0; i < N; i++) queue.add(keys[i % keys.length]!);
  const length = queue.len();
  queue.shutDown();
  return length;
}

const DELAYED = 100_000;
async function rateLimitingDelayed(): Promise<number> {
  const clock = createFakeClock();
  const queue = new RateLimitingQueue<number>({ clock });
  let seed = 7;
  for (let i = 0; i < DELAYED; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    queue.addAfter(i, 1 + (seed % 10_000));
  }
  clock.advance(10_001);
  let sum = 0;
  while (queue.len() > 0) {
    const next = await queue.get();
    if (next.shutdown) break;
    sum += next.item;
    queue.done(next.item);
  }
  queue.shutDown();
  return sum;
}

const floor = await itemsPerSecond(N, arraySteady);
const awaitFloor = await itemsPerSecond(N, arraySteadyAwait);
const steady = await itemsPerSecond(N, workQueueSteady);
const burst = await itemsPerSecond(N, workQueueBurst);
const duplicates = await itemsPerSecond(N, workQueueDuplicateAdds);
const delayed = await itemsPerSecond(DELAYED, rateLimitingDelayed);
const ratio = (baseline: number, rate: number) =>
  rate === baseline ? '1× (baseline)' : `${formatNumber(baseline / rate, 1)}×`;
const row = (scenario: string, rate: number) => ({
  scenario,
  'items/s': formatNumber(rate, 0),
  'time per item vs array push/shift': ratio(floor, rate),
  'vs array + one await': ratio(awaitFloor, rate),
});
printSection(
  'task-queue: raw queue throughput (add → get → done)',
  [
    row('baseline: array push/shift, backlog 1,000', floor),
    row('baseline: array push/shift + one await per item', awaitFloor),
    row('WorkQueue steady state, backlog 1,000 (add/get/done)', steady),
    row('WorkQueue burst: add 1,000,000 then get/done all', burst),
    row('WorkQueue add only, 1,000 distinct keys (de-duplicated)', duplicates),
    row('RateLimitingQueue addAfter 100,000 → fake clock fires → get/done', delayed),
  ],
  `Best of 3 runs after a warm-up, ${formatNumber(N, 0)} items (100,000 for the delayed row), one process. ` +
    'Ratios are time per item relative to the baseline (below 1× is faster).',
);
