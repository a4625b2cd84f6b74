/**
 * Controller memory over many syncs, old and new data plane side by side: RSS once serving, then
 * after BENCH_MEMORY_SYNCS syncs (1,000 by default) made of Ingress edits and endpoint moves, one
 * at a time and each waited for through nginx (so no two coalesce), with RSS sampled along the way
 * to show whether it is flat or grows. Also V8's own accounting (heap used / committed, external)
 * from the controller's metrics, which tells live objects from heap headroom (see
 * bench/RSS-DIAGNOSIS.md). The old side at 10,000 Ingresses needs about 25 s per edit, so each
 * side stops at BENCH_MEMORY_SECONDS (900 s by default) if it has not made its syncs by then.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { anchors } from './lib/anchors.js';
import { readSides, sideLabel, type Side } from './lib/baseline.js';
import { createChangeMaker, measureChange } from './lib/changes.js';
import { createBenchFixture, startBenchCluster, startServingController } from './lib/cluster.js';
import { describeController } from './lib/controller-process.js';
import { formatNumber, printSection } from './lib/measure.js';
import { sampleMemory, slope, type MemorySample } from './lib/memory.js';
import { checkTarget, isQuick, recordSummary, sideCells } from './lib/report.js';

const SCENARIO = 'memory';
const SIZES = (process.env.BENCH_MEMORY_SIZES ?? (isQuick() ? '1000' : '10000')).split(',').map(Number);
const SYNCS = Number(process.env.BENCH_MEMORY_SYNCS ?? (isQuick() ? 200 : 1_000));
const MAX_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? (isQuick() ? 180 : 900));
/** One change in EDIT_EVERY is an Ingress edit, the others endpoint moves. */
const EDIT_EVERY = 10;
const SAMPLES = 10;
/** How long the controller is left alone after the last change before the settled sample. */
const SETTLE_MS = Number(process.env.BENCH_MEMORY_SETTLE_MS ?? 10_000);
/**
 * Whole /metrics scrapes made after the settled sample, back to back: what Prometheus costs the
 * controller (every route that took traffic during the changes has its request series).
 */
const SCRAPES = Number(process.env.BENCH_MEMORY_SCRAPES ?? 10);

interface Run {
  ready: MemorySample;
  samples: MemorySample[];
  end: MemorySample;
  /** After the process has been left alone for SETTLE_MS, as between bursts of changes. */
  settled: MemorySample;
  /** After SCRAPES whole scrapes. */
  scraped: MemorySample;
  /** Size of one whole scrape, MiB, and the median time it took, ms. */
  scrape: { mib: number; ms: number };
  changes: number;
  seconds: number;
}

const fixture = await createBenchFixture('memory');
const runs = new Map<string, Run>();
try {
  for (const count of SIZES) {
    for (const side of readSides()) {
      const cluster = await startBenchCluster(fixture, count);
      const controller = await startServingController(cluster, side, { syncRateLimit: 0 });
      try {
        // Let the start settle (first syncs, status writes) before the reference sample.
        await sleep(2_000);
        const ready = await sampleMemory(controller);
        const maker = createChangeMaker(cluster);
        const samples: MemorySample[] = [];
        const start = performance.now();
        let changes = 0;
        let last = ready;
        while (last.syncs - ready.syncs < SYNCS && performance.now() - start < MAX_SECONDS * 1000) {
          const kind = changes % EDIT_EVERY === EDIT_EVERY - 1 ? 'edit' : 'endpoint';
          await measureChange(controller.ports, maker.make(kind), { intervalMs: 10 });
          changes += 1;
          if (changes % Math.max(1, Math.round(SYNCS / SAMPLES)) === 0) {
            last = await sampleMemory(controller);
            samples.push(last);
          }
        }
        await sleep(1_000);
        const end = await sampleMemory(controller);
        await sleep(SETTLE_MS);
        const settled = await sampleMemory(controller);
        const scrapeTimes: number[] = [];
        let scrapeBytes = 0;
        for (let i = 0; i < SCRAPES; i++) {
          const began = performance.now();
          scrapeBytes = Buffer.byteLength(await controller.metricsText());
          scrapeTimes.push(performance.now() - began);
        }
        const scraped = await sampleMemory(controller);
        scrapeTimes.sort((a, b) => a - b);
        runs.set(`${count}/${side}`, {
          ready,
          samples,
          end,
          settled,
          scraped,
          scrape: {
            mib: scrapeBytes / 2 ** 20,
            ms: scrapeTimes[Math.floor(scrapeTimes.length / 2)] ?? Number.NaN,
          },
          changes,
          seconds: (performance.now() - start) / 1000,
        });
        process.stderr.write(
          `memory: ${side} ${count}: ${formatNumber(ready.rss, 0)} → ${formatNumber(end.rss, 0)} MiB after ` +
            `${end.syncs - ready.syncs} syncs\n`,
        );
      } finally {
        await controller.stop();
        await cluster.stop();
      }
    }
  }
} finally {
  await fixture.stop();
}

const rows: Record<string, string | number>[] = [];
for (const count of SIZES) {
  const bySide = new Map<Side, Run>();
  for (const side of readSides()) {
    const run = runs.get(`${count}/${side}`);
    if (run === undefined) continue;
    bySide.set(side, run);
    const syncs = run.end.syncs - run.ready.syncs;
    const growth = (run.end.rss - run.ready.rss) / run.ready.rss;
    const half = run.samples.slice(Math.floor(run.samples.length / 2));
    rows.push({
      Ingresses: formatNumber(count, 0),
      side: sideLabel(side),
      'changes (syncs)': `${run.changes} (${syncs}) in ${formatNumber(run.seconds, 0)} s`,
      'RSS at ready MiB': formatNumber(run.ready.rss, 0),
      'RSS after MiB': formatNumber(run.end.rss, 0),
      'change %': formatNumber(growth * 100, 1),
      [`RSS after a further ${SETTLE_MS / 1000} s MiB`]: formatNumber(run.settled.rss, 0),
      'RSS samples MiB (every ~10 % of the syncs)': run.samples
        .map((sample) => formatNumber(sample.rss, 0))
        .join(', '),
      'slope over the second half, MiB per 100 syncs': formatNumber(
        slope(half.map((sample) => ({ x: sample.syncs, y: sample.rss }))) * 100,
        1,
      ),
      'V8 heap used / committed MiB at the end': `${formatNumber(run.end.heapUsed, 0)} / ${formatNumber(run.end.heapTotal, 0)}`,
      'external MiB at the end': formatNumber(run.end.external, 0),
      [`V8 heap used / committed MiB after ${SETTLE_MS / 1000} s`]: `${formatNumber(run.settled.heapUsed, 0)} / ${formatNumber(run.settled.heapTotal, 0)}`,
      [`then ${SCRAPES} whole scrapes: MiB each, median ms, RSS after MiB`]: `${formatNumber(run.scrape.mib, 1)}, ${formatNumber(run.scrape.ms, 0)}, ${formatNumber(run.scraped.rss, 0)}`,
    });
  }
  const current = bySide.get('current');
  const growthOf = (run: Run) => (run.end.rss - run.ready.rss) / run.ready.rss;
  recordSummary({
    scenario: SCENARIO,
    figure: `controller RSS at ready → after N syncs (edits + endpoint moves), ${formatNumber(count, 0)} Ingresses`,
    ...sideCells(
      bySide,
      (run) => run.end.rss,
      (run) =>
        `${formatNumber(run.ready.rss, 0)} → ${formatNumber(run.end.rss, 0)} MiB after ${run.end.syncs - run.ready.syncs} syncs ` +
        `(${growthOf(run) >= 0 ? '+' : ''}${formatNumber(growthOf(run) * 100, 0)} %)`,
    ),
    ...(count === 10_000
      ? checkTarget(
          `< 200 MiB, flat ±10 % after ${formatNumber(SYNCS, 0)} syncs`,
          current === undefined ? undefined : current.end.rss,
          (rss) =>
            rss < 200 &&
            Math.abs(growthOf(current!)) <= 0.1 &&
            current!.end.syncs - current!.ready.syncs >= SYNCS,
        )
      : {}),
    anchor: count >= 3_000 ? anchors.memoryIngressNginx : anchors.memoryEg,
  });
}

printSection(
  'controller: memory over syncs, old and new data plane',
  rows,
  `Each side runs against a fresh cluster with \`--sync-rate-limit=0\` (${readSides().map(describeController).join('; ')}). ` +
    `After a 2 s settle, one change at a time (one in ${EDIT_EVERY} an Ingress edit, the others endpoint moves), each ` +
    `waited for through nginx, until ${formatNumber(SYNCS, 0)} syncs or ${MAX_SECONDS} s (BENCH_MEMORY_SYNCS, ` +
    'BENCH_MEMORY_SECONDS). RSS is VmRSS of the controller process alone (/proc); heap and external memory come from ' +
    "its prom-client process metrics. Committed heap far above heap used is V8's headroom for garbage, not live " +
    'objects: see bench/RSS-DIAGNOSIS.md. The samples read only the metrics they need (`/metrics?name=`); the whole ' +
    `scrapes (BENCH_MEMORY_SCRAPES) come after the settled sample, so their cost shows apart from the syncs'.`,
);
