/**
 * Controller cold start: the objects already sit in local-apiserver (in this process); `ingresskit
 * run` starts as a child process (so its RSS is its own) and the clock stops at the first HTTP
 * request through its nginx that the right backend answers, for the last Ingress over HTTP and a
 * TLS one over HTTPS. Baseline in the same run: buildConfiguration + render + `nginx -t` alone on
 * the same objects, the work no controller can skip before it serves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { anchors } from './lib/anchors.js';
import {
  controllerMode,
  startControllerProcess,
  waitForAnswer,
  waitUntil,
} from './lib/controller-process.js';
import {
  createCertificatePool,
  createClusterObjects,
  initialBackendOf,
  refOf,
  startBackends,
  TLS_EVERY,
} from './lib/fixture.js';
import { measureNginxAlone, measureReloadFloor } from './lib/floor.js';
import { formatNumber, percentile, printSection, timeIt } from './lib/measure.js';
import { formatRatio, isQuick, printComparison, readSizes, recordSummary } from './lib/report.js';

const SCENARIO = 'controller cold start';
const work = mkdtempSync(join(tmpdir(), 'ingresskit-bench-cold-'));
const backends = await startBackends(4);
const certificates = createCertificatePool(work, 20);
const rows: Record<string, string | number>[] = [];
const comparison: Parameters<typeof printComparison>[1] = [];

/**
 * The controller against a cluster with no Ingress: its RSS once ready is what the code and the
 * runtime cost before any object (the in-run baseline of the RSS column).
 */
async function measureEmptyController(): Promise<{ rss: number; readyMs: number }> {
  const server = await startLocalApiServer({ port: 0 });
  const prefix = join(work, 'prefix-empty');
  try {
    await server.apply(createClusterObjects(0, [], []));
    const kubeconfigPath = await server.writeKubeconfig(join(work, 'kubeconfig-empty'));
    const controller = await startControllerProcess({ kubeconfigPath, prefix });
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
    await server.stop();
    rmSync(prefix, { recursive: true, force: true });
  }
}

try {
  const empty = await measureEmptyController();
  rows.push({
    Ingresses: '0',
    'API objects': formatNumber(createClusterObjects(0, [], []).length, 0),
    runs: 1,
    'cold start ms (spawn → served)': `${formatNumber(empty.readyMs, 0)} (healthz ready)`,
    'controller RSS MiB (at ready)': formatNumber(empty.rss, 0),
  });
  for (const count of readSizes()) {
    const server = await startLocalApiServer({ port: 0 });
    try {
      const objects = createClusterObjects(
        count,
        backends.map((backend) => backend.port),
        certificates,
      );
      const loaded = await timeIt(() => server.apply(objects));
      const kubeconfigPath = await server.writeKubeconfig(join(work, `kubeconfig-${count}`));
      const last = refOf(count - 1);
      const tlsRef = refOf(Math.floor((count - 1) / TLS_EVERY) * TLS_EVERY);
      const nameOf = (index: number) => backends[initialBackendOf(index, backends.length)]!.name;

      const runs = count >= 10_000 || isQuick() ? 1 : 3;
      const samples: { total: number; boot: number; sync: number; rss: number; peak: number }[] = [];
      for (let run = 0; run < runs; run++) {
        const prefix = join(work, `prefix-${count}-${run}`);
        const controller = await startControllerProcess({ kubeconfigPath, prefix });
        try {
          const httpAt = await waitForAnswer(controller.ports.http, last.host, '/app', nameOf(last.index), {
            intervalMs: 20,
            timeoutMs: 300_000,
          });
          const httpsAt = await waitForAnswer(
            controller.ports.https,
            tlsRef.host,
            '/static',
            nameOf(tlsRef.index),
            { tls: true, intervalMs: 20, timeoutMs: 60_000 },
          );
          await waitUntil(() => controller.logSeenAt('first configuration applied') !== undefined, 10_000);
          const bootedAt = controller.logSeenAt('starting ingresskit')!;
          const appliedAt = controller.logSeenAt('first configuration applied')!;
          samples.push({
            total: Math.max(httpAt, httpsAt) - controller.spawnedAt,
            boot: bootedAt - controller.spawnedAt,
            sync: appliedAt - bootedAt,
            rss: controller.rssMiB(),
            peak: controller.peakRssMiB(),
          });
        } catch (error) {
          process.stderr.write(`controller output:\n${controller.recentOutput()}\n`);
          throw error;
        } finally {
          await controller.stop();
          rmSync(prefix, { recursive: true, force: true });
        }
      }

      // The floor runs after the controller has stopped, so neither slows the other.
      const floor = await measureReloadFloor(objects, join(work, `floor-${count}`), count >= 10_000 ? 1 : 3);
      const nginxAlone = await measureNginxAlone(floor.dir, 0);
      const floorMs = floor.totalMs + nginxAlone.startMs;
      const median = (pick: (sample: (typeof samples)[number]) => number) =>
        percentile(samples.map(pick), 50);
      const total = median((sample) => sample.total);
      const rss = median((sample) => sample.rss);
      const peak = median((sample) => sample.peak);
      rows.push({
        Ingresses: formatNumber(count, 0),
        'API objects': formatNumber(objects.length, 0),
        runs,
        'cold start ms (spawn → served)': formatNumber(total, 0),
        'of which process boot ms': formatNumber(
          median((sample) => sample.boot),
          0,
        ),
        'of which list + first sync + nginx start ms': formatNumber(
          median((sample) => sample.sync),
          0,
        ),
        'floor: build + render + nginx -t ms': formatNumber(floor.totalMs, 0),
        'bare nginx start ms': formatNumber(nginxAlone.startMs, 0),
        'cold start / (floor + nginx start)': formatRatio(total, floorMs),
        'controller RSS MiB (at ready)': formatNumber(rss, 0),
        'RSS above the empty controller, KiB per Ingress': formatNumber(
          ((rss - empty.rss) * 1024) / count,
          1,
        ),
        'controller peak RSS MiB': formatNumber(peak, 0),
        'nginx.conf MiB': formatNumber(floor.confMiB, 2),
        'loading the API server ms (not measured above)': formatNumber(loaded.ms, 0),
      });
      const scale = `${formatNumber(count, 0)} Ingresses`;
      recordSummary({
        scenario: SCENARIO,
        figure: `cold start to first served request, ${scale}`,
        ours: `${formatNumber(total / 1000, 2)} s`,
        baseline: `${formatNumber(floorMs / 1000, 2)} s (build + render + nginx -t + bare nginx start)`,
        ratio: formatRatio(total, floorMs),
        anchor: count >= 3_000 ? anchors.coldStartIngressNginx : anchors.coldStartNgf,
      });
      recordSummary({
        scenario: SCENARIO,
        figure: `controller RSS at ready (peak), ${scale}`,
        ours: `${formatNumber(rss, 0)} MiB (${formatNumber(peak, 0)} MiB)`,
        baseline: `${formatNumber(empty.rss, 0)} MiB (the same controller, no Ingress)`,
        ratio: formatRatio(rss, empty.rss),
        anchor: count >= 3_000 ? anchors.memoryIngressNginx : anchors.memoryEg,
      });
      comparison.push(
        {
          figure: `cold start, ${scale}`,
          ours: `${formatNumber(total / 1000, 2)} s`,
          anchor: count >= 3_000 ? anchors.coldStartIngressNginx : anchors.coldStartNgf,
        },
        {
          figure: `controller RSS, ${scale}`,
          ours: `${formatNumber(rss, 0)} MiB (peak ${formatNumber(peak, 0)})`,
          anchor: count >= 3_000 ? anchors.memoryIngressNginx : anchors.memoryEg,
        },
      );
    } finally {
      await server.stop();
    }
  }
} finally {
  for (const backend of backends) await backend.stop();
  rmSync(work, { recursive: true, force: true });
}

const columns = Object.keys(rows.at(-1) ?? {});
printSection(
  'controller: cold start',
  rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column] ?? '—']))),
  'Objects are loaded into local-apiserver (in the benchmark process) before `ingresskit run` starts as a child ' +
    `process (${controllerMode() === 'dist' ? 'the built apps/controller/dist' : 'sources through tsx'}, nginx as ` +
    'its child, 2 workers). Cold start runs from the spawn until both ' +
    'the last Ingress (HTTP) and a TLS Ingress (HTTPS) are answered through nginx by the right backend; process boot ' +
    "is the spawn until the controller's first log line (Node loading the code). RSS is the controller " +
    'process alone (VmRSS / VmHWM from /proc), without nginx and without the API server; the 0 row is the same ' +
    'controller against a cluster without Ingresses (ready = /healthz answers 200), the baseline of RSS. The floor is ' +
    'buildConfiguration (certificates parsed) + renderNginxConf + `nginx -t` on the same objects in the same run; ' +
    'the ratio adds the start of a bare nginx on that file (spawn until its workers exist), which serving needs too; ' +
    `each Ingress has 2 Prefix paths, 1 Service, 1 EndpointSlice; every ${TLS_EVERY}th has TLS. Medians of the runs.`,
);
printComparison('controller: cold start beside published figures', comparison);
