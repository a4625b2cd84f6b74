/**
 * Churn under load, old and new data plane side by side: for BENCH_CHURN_SECONDS (600 by default)
 * Ingress edits, creates, deletes and endpoint moves are written to local-apiserver at a steady
 * BENCH_CHURN_RATE (2 per second) while wrk keeps a moderate background load on Ingresses the
 * churn never touches. Each side runs with the controller's default flags (its default
 * `--sync-rate-limit` included), as users run it. Counted: nginx reloads (must be 0 on the new
 * side), syncs, failed background requests (non-2xx answers and socket errors, e.g. keep-alive
 * connections a reload closes), and the lag of every SAMPLE_EVERY-th change until nginx shows it:
 * endpoint lag for endpoint moves, route lag for edits, creates and deletes.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { anchors } from './lib/anchors.js';
import { readSides, sideLabel, type Side } from './lib/baseline.js';
import { createChangeMaker, portOf, type ChangeKind } from './lib/changes.js';
import { createBenchFixture, startBenchCluster, startServingController } from './lib/cluster.js';
import { describeController, waitForAnswer } from './lib/controller-process.js';
import { createRandom, formatNumber, percentile, printSection } from './lib/measure.js';
import { runWrk, type WrkResult } from './lib/nginx-load.js';
import { checkTarget, isQuick, readSizes, recordSummary, sideCells } from './lib/report.js';

const SCENARIO = 'churn';
const SECONDS = Number(process.env.BENCH_CHURN_SECONDS ?? (isQuick() ? 30 : 600));
const RATE = Number(process.env.BENCH_CHURN_RATE ?? 2);
const SAMPLE_EVERY = 4;
const POLL_MS = 20;
/** Ingresses left out of the churn, for the background load. */
const UNTOUCHED = 100;
/** Relative weights of the change kinds. */
const MIX: readonly [ChangeKind, number][] = [
  ['endpoint', 4],
  ['edit', 3],
  ['create', 1.5],
  ['delete', 1.5],
];

interface Churn {
  changes: number;
  reloads: number;
  syncs: number;
  endpointLags: number[];
  routeLags: number[];
  /** Sampled changes nginx never showed within the wait. */
  unseen: number;
  load: WrkResult;
  rss: number;
}

function pickKind(random: () => number): ChangeKind {
  const total = MIX.reduce((sum, [, weight]) => sum + weight, 0);
  let point = random() * total;
  for (const [kind, weight] of MIX) {
    point -= weight;
    if (point < 0) return kind;
  }
  return MIX[0]![0];
}

const fixture = await createBenchFixture('churn');
const results = new Map<string, Churn>();
try {
  for (const count of readSizes()) {
    for (const side of readSides()) {
      if (side === 'baseline' && count > 10_000) continue;
      const cluster = await startBenchCluster(fixture, count);
      const controller = await startServingController(cluster, side);
      try {
        const maker = createChangeMaker(cluster, { untouched: UNTOUCHED });
        const counters = async () => ({
          reloads: await controller.metric('ingresskit_nginx_reloads_total', { result: 'success' }),
          syncs: await controller.metric('ingresskit_syncs_total', { result: 'success' }),
        });
        // One interval of the default rate limit (0.3/s), so the start's syncs are over.
        await sleep(3_400);
        const before = await counters();
        const load = runWrk({
          port: controller.ports.http,
          hosts: maker
            .untouchedProbes(UNTOUCHED)
            .filter((probe) => !probe.tls)
            .map((probe) => probe.host),
          path: '/app',
          seconds: SECONDS + 2,
          connections: 8,
          threads: 1,
          delayMs: 10,
          dir: fixture.work,
        });
        const random = createRandom(count);
        const lags: Promise<{ kind: ChangeKind; ms: number | undefined }>[] = [];
        const total = Math.round(SECONDS * RATE);
        const start = performance.now();
        for (let k = 0; k < total; k++) {
          const wait = start + (k * 1000) / RATE - performance.now();
          if (wait > 0) await sleep(wait);
          const wanted = pickKind(random);
          const change = maker.make(maker.canMake(wanted) ? wanted : 'create');
          const sampled = k % SAMPLE_EVERY === SAMPLE_EVERY - 1;
          if (sampled) maker.hold(change);
          const writeStart = performance.now();
          await change.write();
          if (sampled) {
            const { probe } = change;
            lags.push(
              waitForAnswer(portOf(controller.ports, probe), probe.host, probe.path, probe.expected, {
                tls: probe.tls,
                intervalMs: POLL_MS,
                timeoutMs: 180_000,
              })
                .then((seenAt) => ({ kind: change.kind, ms: seenAt - writeStart }))
                .catch(() => ({ kind: change.kind, ms: undefined }))
                .finally(() => maker.release(change)),
            );
          }
        }
        const samples = await Promise.all(lags);
        const loadResult = await load;
        await sleep(500);
        const after = await counters();
        const lagsOf = (kinds: ChangeKind[]) =>
          samples.flatMap((sample) =>
            kinds.includes(sample.kind) && sample.ms !== undefined ? [sample.ms] : [],
          );
        results.set(`${count}/${side}`, {
          changes: total,
          reloads: after.reloads - before.reloads,
          syncs: after.syncs - before.syncs,
          endpointLags: lagsOf(['endpoint']),
          routeLags: lagsOf(['edit', 'create', 'delete']),
          unseen: samples.filter((sample) => sample.ms === undefined).length,
          load: loadResult,
          rss: controller.rssMiB(),
        });
        process.stderr.write(`churn: ${side} ${count}: ${after.reloads - before.reloads} reloads\n`);
      } catch (error) {
        process.stderr.write(`${side} controller output:\n${controller.recentOutput()}\n`);
        throw error;
      } finally {
        await controller.stop();
        await cluster.stop();
      }
    }
  }
} finally {
  await fixture.stop();
}

const lagCell = (lags: number[]) =>
  lags.length === 0
    ? '—'
    : `${formatNumber(percentile(lags, 50), 0)} / ${formatNumber(percentile(lags, 99), 0)}`;
const rows: Record<string, string | number>[] = [];
for (const count of readSizes()) {
  const bySide = new Map<Side, Churn>();
  for (const side of readSides()) {
    const churn = results.get(`${count}/${side}`);
    if (churn === undefined) continue;
    bySide.set(side, churn);
    rows.push({
      Ingresses: formatNumber(count, 0),
      side: sideLabel(side),
      changes: churn.changes,
      'nginx reloads': churn.reloads,
      syncs: churn.syncs,
      'background requests': formatNumber(churn.load.requests, 0),
      'failed: non-2xx / socket errors': `${churn.load.badStatus} / ${churn.load.socketErrors}`,
      'background p99 / max ms': `${formatNumber(churn.load.p99Ms, 1)} / ${formatNumber(churn.load.maxMs, 0)}`,
      [`endpoint lag p50 / p99 ms`]: `${lagCell(churn.endpointLags)} (${churn.endpointLags.length})`,
      [`route lag p50 / p99 ms`]: `${lagCell(churn.routeLags)} (${churn.routeLags.length})`,
      'sampled changes never seen': churn.unseen,
      'controller RSS MiB after': formatNumber(churn.rss, 0),
    });
  }
  const scale = `${formatNumber(count, 0)} Ingresses, ${formatNumber(SECONDS / 60, 1)} min at ${RATE} changes/s`;
  const current = bySide.get('current');
  recordSummary({
    scenario: SCENARIO,
    figure: `nginx reloads during churn, ${scale}`,
    ...sideCells(
      bySide,
      (churn) => churn.reloads,
      (churn) => `${churn.reloads} reloads (${churn.syncs} syncs)`,
    ),
    ...checkTarget('0 reloads', current?.reloads, (reloads) => reloads === 0),
    anchor: anchors.endpointReloadsIngressNginx,
  });
  recordSummary({
    scenario: SCENARIO,
    figure: `failed background requests during churn (non-2xx + socket errors), ${scale}`,
    ...sideCells(
      bySide,
      (churn) => churn.load.badStatus + churn.load.socketErrors,
      (churn) =>
        `${churn.load.badStatus + churn.load.socketErrors} of ${formatNumber(churn.load.requests, 0)}`,
    ),
  });
  for (const [what, pick] of [
    ['endpoint lag', (churn: Churn) => churn.endpointLags],
    ['route lag (edit, create, delete)', (churn: Churn) => churn.routeLags],
  ] as const) {
    recordSummary({
      scenario: SCENARIO,
      figure: `${what} during churn, p50 / p99, ${scale}`,
      ...sideCells(
        bySide,
        (churn) => percentile(pick(churn), 99),
        (churn) => `${lagCell(pick(churn))} ms`,
      ),
      anchor: what === 'endpoint lag' ? anchors.endpointLagIngressNginx : anchors.routeChangeGab,
    });
  }
}

printSection(
  'controller: churn under load, old and new data plane',
  rows,
  `${formatNumber(SECONDS, 0)} s of changes at ${RATE} per second (BENCH_CHURN_SECONDS, BENCH_CHURN_RATE), mixed ` +
    `${MIX.map(([kind, weight]) => `${kind} ${weight}`).join(', ')} (relative weights; a delete removes an Ingress the ` +
    `churn created, with its Service and EndpointSlice). Each side runs with its default flags against a fresh cluster ` +
    `(${readSides().map(describeController).join('; ')}). Background load: wrk, 1 thread × 8 keep-alive connections, ` +
    `10 ms between requests on each, spread over the plain-HTTP Ingresses among the ${UNTOUCHED} the churn never ` +
    `touches. Every ${SAMPLE_EVERY}th change is polled through nginx every ${POLL_MS} ms until it shows (at most ` +
    '180 s); the count of lag samples is in parentheses. The old side is not run above 10,000 Ingresses.',
);
