/**
 * Controller cold start, old and new data plane side by side: the objects already sit in
 * local-apiserver (in this process); `ingresskit run` of each side starts as a child process (so
 * its RSS is its own) and the clock stops once nginx has answered both the last Ingress over HTTP
 * and a TLS Ingress over HTTPS from the right backend. 100,000 Ingresses are opt-in
 * (BENCH_SIZES=…,100000) and run on the new side only. In-run reference for the old side: what it
 * cannot skip before it serves (its buildConfiguration + render + `nginx -t`, and a bare nginx
 * start on that file).
 */
import { performance } from 'node:perf_hooks';
import { anchors } from './lib/anchors.js';
import { readSides, sideLabel, type Side } from './lib/baseline.js';
import {
  createBenchFixture,
  initialAnswerOf,
  startBenchCluster,
  startServingController,
  type BenchFixture,
} from './lib/cluster.js';
import { describeController, waitForAnswer, waitUntil } from './lib/controller-process.js';
import { refOf, TLS_EVERY } from './lib/fixture.js';
import { measureNginxAlone, measureReloadFloor } from './lib/floor.js';
import { formatNumber, percentile, printSection } from './lib/measure.js';
import { checkTarget, formatRatio, isQuick, readSizes, recordSummary, sideCells } from './lib/report.js';

const SCENARIO = 'cold start';
/** Above this the old side is not run: its first reload alone would take minutes. */
const BASELINE_MAX = 10_000;

interface Start {
  totalMs: number;
  bootMs: number;
  rss: number;
  peak: number;
  /** TCP connections the controller opened to the API server until served, and those still open then. */
  connections: number;
  openConnections: number;
}

/** RSS of a side's controller against a cluster without Ingresses, once /healthz answers 200. */
async function measureEmpty(fixture: BenchFixture, side: Side): Promise<{ rss: number; readyMs: number }> {
  const cluster = await startBenchCluster(fixture, 0);
  try {
    const controller = await startServingController(cluster, side, {
      ready: { host: 'none.bench.test', path: '/', expected: '404' },
    });
    try {
      await waitUntil(
        async () => (await fetch(`http://127.0.0.1:${controller.ports.healthz}/healthz`)).status === 200,
        60_000,
        20,
      );
      return { rss: controller.rssMiB(), readyMs: performance.now() - controller.spawnedAt };
    } finally {
      await controller.stop();
    }
  } finally {
    await cluster.stop();
  }
}

const fixture = await createBenchFixture('cold');
const rows: Record<string, string | number>[] = [];
const notes: string[] = [];
try {
  const empty = new Map<Side, { rss: number; readyMs: number }>();
  for (const side of readSides()) {
    const measured = await measureEmpty(fixture, side);
    empty.set(side, measured);
    rows.push({
      Ingresses: '0',
      side: sideLabel(side),
      runs: 1,
      'cold start ms (spawn → served)': `${formatNumber(measured.readyMs, 0)} (healthz ready)`,
      'controller RSS MiB at ready': formatNumber(measured.rss, 0),
    });
  }
  for (const count of readSizes()) {
    const cluster = await startBenchCluster(fixture, count);
    const tls = refOf(Math.floor((count - 1) / TLS_EVERY) * TLS_EVERY);
    const results = new Map<Side, Start>();
    try {
      for (const side of readSides()) {
        if (side === 'baseline' && count > BASELINE_MAX) {
          notes.push(
            `The old side is not run at ${formatNumber(count, 0)} Ingresses (its first reload alone takes minutes).`,
          );
          continue;
        }
        const samples: Start[] = [];
        const runs = count >= 10_000 || isQuick() ? 1 : 3;
        for (let run = 0; run < runs; run++) {
          const connectionsBefore = cluster.server.stats().connections;
          const controller = await startServingController(cluster, side, {
            intervalMs: 10,
            timeoutMs: 1_200_000,
          });
          try {
            const httpsAt = await waitForAnswer(
              controller.ports.https,
              tls.host,
              '/static',
              initialAnswerOf(cluster, tls.index),
              {
                tls: true,
                intervalMs: 10,
                timeoutMs: 120_000,
              },
            );
            const bootedAt = controller.logSeenAt('starting ingresskit');
            const stats = cluster.server.stats();
            samples.push({
              connections: stats.connections - connectionsBefore,
              openConnections: stats.openConnections,
              totalMs: Math.max(controller.servedAt, httpsAt) - controller.spawnedAt,
              bootMs: bootedAt === undefined ? Number.NaN : bootedAt - controller.spawnedAt,
              rss: controller.rssMiB(),
              peak: controller.peakRssMiB(),
            });
          } finally {
            await controller.stop();
          }
        }
        const median = (pick: (sample: Start) => number) => percentile(samples.map(pick), 50);
        const start: Start = {
          totalMs: median((sample) => sample.totalMs),
          bootMs: median((sample) => sample.bootMs),
          rss: median((sample) => sample.rss),
          peak: median((sample) => sample.peak),
          connections: median((sample) => sample.connections),
          openConnections: median((sample) => sample.openConnections),
        };
        results.set(side, start);
        process.stderr.write(
          `cold start: ${side} ${count}: ${Math.round(start.totalMs)} ms, ${Math.round(start.rss)} MiB, ` +
            `${start.connections} API connections (${start.openConnections} open)\n`,
        );
        rows.push({
          Ingresses: formatNumber(count, 0),
          side: sideLabel(side),
          runs,
          'cold start ms (spawn → served)': formatNumber(start.totalMs, 0),
          'of which process boot ms': formatNumber(start.bootMs, 0),
          'controller RSS MiB at ready': formatNumber(start.rss, 0),
          'RSS above the empty controller, KiB per Ingress': formatNumber(
            ((start.rss - (empty.get(side)?.rss ?? Number.NaN)) * 1024) / count,
            1,
          ),
          'controller peak RSS MiB': formatNumber(start.peak, 0),
          'API connections opened (open at ready)': `${start.connections} (${start.openConnections})`,
        });
      }
      // The old path's own floor, measured with no controller running.
      let reference: string | undefined;
      if (results.has('baseline')) {
        const floor = await measureReloadFloor(
          cluster.objects,
          `${fixture.work}/floor-${count}`,
          count >= 10_000 ? 1 : 3,
        );
        const nginx = await measureNginxAlone(floor.dir, 0);
        const floorMs = floor.totalMs + nginx.startMs;
        reference =
          `old floor ${formatNumber(floorMs / 1000, 2)} s (build ${formatNumber(floor.buildMs, 0)} + render ` +
          `${formatNumber(floor.renderMs, 0)} + nginx -t ${formatNumber(floor.nginxTestMs, 0)} + nginx start ` +
          `${formatNumber(nginx.startMs, 0)} ms; ${formatNumber(floor.confMiB, 1)} MiB nginx.conf); old / floor ` +
          formatRatio(results.get('baseline')!.totalMs, floorMs);
      }
      const scale = `${formatNumber(count, 0)} Ingresses`;
      const current = results.get('current');
      recordSummary({
        scenario: SCENARIO,
        figure: `cold start to first 200 (HTTP and HTTPS), ${scale}`,
        ...sideCells(
          results,
          (start) => start.totalMs,
          (start) => `${formatNumber(start.totalMs / 1000, 2)} s`,
        ),
        ...(count === 10_000 ? checkTarget('< 3 s', current?.totalMs, (ms) => ms < 3_000) : {}),
        ...(reference === undefined ? {} : { reference }),
        anchor: count >= 3_000 ? anchors.coldStartIngressNginx : anchors.coldStartNgf,
      });
      recordSummary({
        scenario: SCENARIO,
        figure: `controller RSS at ready (peak), ${scale}`,
        ...sideCells(
          results,
          (start) => start.rss,
          (start) => `${formatNumber(start.rss, 0)} MiB (${formatNumber(start.peak, 0)})`,
        ),
        ...(count === 10_000 ? checkTarget('< 200 MiB', current?.rss, (rss) => rss < 200) : {}),
        reference: `empty controller: ${[...empty].map(([side, measured]) => `${sideLabel(side)} ${formatNumber(measured.rss, 0)} MiB`).join(', ')}`,
        anchor: count >= 3_000 ? anchors.memoryIngressNginx : anchors.memoryEg,
      });
    } finally {
      await cluster.stop();
    }
  }
} finally {
  await fixture.stop();
}

const columns = Object.keys(rows.find((row) => row.Ingresses !== '0') ?? rows[0] ?? {});
printSection(
  'controller: cold start, old and new data plane',
  rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column] ?? '—']))),
  'Objects are loaded into local-apiserver (in the benchmark process) before `ingresskit run` starts as a child ' +
    `process (${readSides().map(describeController).join('; ')}; nginx as its child). Cold start runs from the spawn ` +
    'until both the last Ingress (HTTP) and a TLS Ingress (HTTPS) are answered through nginx by the right backend, ' +
    'polled every 10 ms; process boot is the spawn until the log line `starting ingresskit`. RSS is the controller ' +
    'process alone (VmRSS / VmHWM from /proc), without nginx and without the API server; the 0 rows are each ' +
    'controller against a cluster without Ingresses (ready = /healthz answers 200). Each Ingress has 2 Prefix paths, ' +
    `1 Service, 1 EndpointSlice; every ${TLS_EVERY}th has TLS. API connections: the TCP connections local-apiserver ` +
    'accepted from the spawn until served (lists, watches, status writes), and how many were still open then. ' +
    'Medians of 3 runs at 1,000 Ingresses (1 in a quick ' +
    `run and above). ${notes.join(' ')}`,
);
