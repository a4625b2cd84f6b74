/**
 * Change → served latency, old and new data plane side by side: one change at a time is written
 * to local-apiserver (in this process) and the clock stops at the first request through the
 * controller's nginx that shows it (polled every BENCH_POLL_MS, 2 ms by default). Changes: an
 * Ingress edit (a new Prefix path: a reload on the old path) and an endpoint move (Lua on both);
 * on the new side also a TLS certificate change and an annotation (allowlist policy) change.
 * Each side runs with `--sync-rate-limit=0`, so the figures are the pipeline's own, against a
 * fresh cluster of the same objects; reloads and syncs come from the controller's /metrics.
 */
import { anchors } from './lib/anchors.js';
import { readSides, sideLabel, type Side } from './lib/baseline.js';
import { createChangeMaker, describeChange, measureChange, type ChangeKind } from './lib/changes.js';
import { createBenchFixture, startBenchCluster, startServingController } from './lib/cluster.js';
import { describeController } from './lib/controller-process.js';
import { TLS_EVERY } from './lib/fixture.js';
import { formatNumber, percentile, printSection } from './lib/measure.js';
import { checkTarget, isQuick, readSizes, recordSummary, sideCells } from './lib/report.js';

const SCENARIO = 'change latency';
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 2);

/** What each side is asked to apply. */
function kindsOf(side: Side): ChangeKind[] {
  return side === 'baseline' ? ['edit', 'endpoint'] : ['edit', 'endpoint', 'certificate', 'annotation'];
}

/** Changes per series: BENCH_CHANGES, else 50 (quick) or 200, fewer where the old path reloads 10,000. */
function changesFor(count: number, side: Side, kind: ChangeKind): number {
  const fixed = Number(process.env.BENCH_CHANGES);
  if (fixed > 0) return fixed;
  if (isQuick()) return 50;
  // An old-path edit at 10,000 Ingresses is two parses of an 11 MiB nginx.conf (`nginx -t`, reload),
  // about 25 s; the endpoint move rebuilds everything, about 1.2 s.
  if (side === 'baseline' && count >= 10_000) return kind === 'edit' ? 10 : 100;
  return 200;
}

/** Per-change targets of the new side (p99, ms), where the acceptance criteria name one. */
function targetOf(count: number, kind: ChangeKind): number | undefined {
  if (kind === 'edit') return count <= 1_000 ? 50 : count <= 10_000 ? 100 : undefined;
  if (kind === 'endpoint') return count <= 10_000 ? 50 : undefined;
  return undefined;
}

interface Series {
  samples: number[];
  reloads: number;
  syncs: number;
  /** Why the series stopped early: a change nginx did not show within 120 s. */
  failure?: string;
}

const fixture = await createBenchFixture('latency');
const results = new Map<string, Series>();
const key = (count: number, side: Side, kind: ChangeKind) => `${count}/${side}/${kind}`;
const rssAfter = new Map<string, number>();

try {
  for (const count of readSizes()) {
    for (const side of readSides()) {
      if (side === 'baseline' && count > 10_000) continue;
      const cluster = await startBenchCluster(fixture, count);
      const controller = await startServingController(cluster, side, { syncRateLimit: 0 });
      try {
        const maker = createChangeMaker(cluster);
        const counters = async () => ({
          reloads: await controller.metric('ingresskit_nginx_reloads_total', { result: 'success' }),
          syncs: await controller.metric('ingresskit_syncs_total', { result: 'success' }),
        });
        for (const kind of kindsOf(side)) {
          const before = await counters();
          const samples: number[] = [];
          let failure: string | undefined;
          try {
            for (let j = 0; j < changesFor(count, side, kind); j++)
              samples.push(
                await measureChange(controller.ports, maker.make(kind), {
                  intervalMs: POLL_MS,
                  timeoutMs: 120_000,
                }),
              );
          } catch (error) {
            // A change the side never serves (e.g. an annotation it does not implement) ends only its series.
            failure = error instanceof Error ? error.message : String(error);
            process.stderr.write(`latency: ${side} ${count} ${kind}: ${failure}\n`);
          }
          // nginx may serve the last change a moment before the controller counts it.
          await new Promise((resolve) => setTimeout(resolve, 500));
          const after = await counters();
          results.set(key(count, side, kind), {
            samples,
            reloads: after.reloads - before.reloads,
            syncs: after.syncs - before.syncs,
            ...(failure === undefined ? {} : { failure }),
          });
          process.stderr.write(
            `latency: ${side} ${count} ${kind}: p50 ${formatNumber(percentile(samples, 50), 1)} ms, ` +
              `p99 ${formatNumber(percentile(samples, 99), 1)} ms\n`,
          );
        }
        rssAfter.set(`${count}/${side}`, controller.rssMiB());
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
for (const count of readSizes()) {
  const scale = `${formatNumber(count, 0)} Ingresses`;
  for (const kind of ['edit', 'endpoint', 'certificate', 'annotation'] as const) {
    const bySide = new Map(
      readSides().flatMap((side) => {
        const series = results.get(key(count, side, kind));
        return series === undefined ? [] : [[side, series] as const];
      }),
    );
    if (bySide.size === 0) continue;
    for (const [side, series] of bySide) {
      rows.push({
        Ingresses: formatNumber(count, 0),
        change: describeChange(kind),
        side: sideLabel(side),
        changes: series.samples.length,
        'p50 ms': formatNumber(percentile(series.samples, 50), 1),
        'p99 ms': formatNumber(percentile(series.samples, 99), 1),
        'max ms': series.samples.length === 0 ? '—' : formatNumber(Math.max(...series.samples), 1),
        'reloads / changes': `${series.reloads} / ${series.samples.length}`,
        syncs: series.syncs,
        'stopped early': series.failure ?? '',
        'controller RSS MiB after': formatNumber(rssAfter.get(`${count}/${side}`) ?? Number.NaN, 0),
      });
    }
    const target = targetOf(count, kind);
    const p99 = (series: Series) => percentile(series.samples, 99);
    const current = bySide.get('current');
    recordSummary({
      scenario: SCENARIO,
      figure: `${describeChange(kind)} → served, p99 (p50), ${scale}`,
      ...sideCells(
        bySide,
        p99,
        (series) =>
          `${formatNumber(p99(series), 1)} ms (${formatNumber(percentile(series.samples, 50), 1)}), ` +
          `${series.reloads} reloads${series.failure === undefined ? '' : `; stopped: ${series.failure}`}`,
      ),
      ...(target === undefined
        ? {}
        : checkTarget(
            `p99 < ${target} ms`,
            current && p99(current),
            (value) => value < target && current?.failure === undefined,
          )),
      anchor:
        kind === 'endpoint'
          ? anchors.syncRateLimit
          : count >= 3_000
            ? anchors.routeChangeLarge
            : anchors.routeChangeNgf,
    });
  }
}

printSection(
  'controller: change → served latency, old and new data plane',
  rows,
  'One change at a time, the next after the previous was seen. Latency runs from the start of the write to ' +
    'local-apiserver (in the benchmark process) to the first request through nginx that shows the change, polled ' +
    `every ${POLL_MS} ms (a new connection each time, so a reloaded nginx is seen at once), which resolves far below ` +
    '50 ms. An edit adds a Prefix path to one Ingress (404 before, its backend after); an endpoint move points the ' +
    "Service's only endpoint at another backend; a certificate change gives a TLS Ingress's Secret another " +
    'certificate (seen as the certificate nginx presents for that SNI name); the annotation change sets an allowlist ' +
    'that refuses 127.0.0.1 (403), and the next one removes it again. Each side runs against a fresh cluster of the ' +
    `same objects (every ${TLS_EVERY}th Ingress has TLS) with \`--sync-rate-limit=0\`: ` +
    `${readSides().map(describeController).join('; ')}. The old side at 10,000 Ingresses makes 10 edits and 100 ` +
    'endpoint moves (an edit there takes about 25 s); BENCH_CHANGES sets every count. The old side is not run above ' +
    '10,000 Ingresses.',
);
