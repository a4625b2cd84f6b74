/**
 * Change → applied latency, seen from outside: one change at a time is written to local-apiserver
 * (in this process) and the clock stops at the first HTTP request through the controller's nginx
 * that shows it. Two paths: an Ingress edit (a new Prefix path, so nginx.conf changes: render,
 * `nginx -t`, reload) and an endpoint change (the EndpointSlice moves to another backend: the
 * backends are POSTed to Lua, no reload). The controller runs as a child process with
 * `--sync-rate-limit=0`, so the figures are the pipeline's own; the baselines are measured in the
 * same run on the same objects: build + render + `nginx -t` for the edit, the endpoint-only
 * rebuild + diff + payload for the endpoint change, and ingress-nginx's default rate-limit wait.
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
  endpointSliceObject,
  ingressObject,
  initialBackendOf,
  refOf,
  startBackends,
  TLS_EVERY,
} from './lib/fixture.js';
import { measureDynamicFloor, measureNginxAlone, measureReloadFloor } from './lib/floor.js';
import { formatNumber, percentile, printSection } from './lib/measure.js';
import { formatRatio, isQuick, printComparison, readSizes, recordSummary } from './lib/report.js';

const SCENARIO = 'controller change latency';
/** ingress-nginx's default --sync-rate-limit of 0.3/s: back-to-back changes wait up to this long. */
const RATE_LIMIT_FLOOR_MS = 1000 / 0.3;

/** How many changes of each kind at `count` Ingresses (BENCH_CHANGES overrides both). */
function changesFor(count: number, kind: 'edit' | 'endpoint'): number {
  const fixed = Number(process.env.BENCH_CHANGES);
  if (fixed > 0) return fixed;
  if (isQuick()) return 50;
  // An edit at 10,000 Ingresses pays two parses of an 11 MiB nginx.conf (`nginx -t` and the
  // reload), about 20 s: 200 of them would take over an hour on a 2-core machine.
  if (kind === 'edit') return count >= 10_000 ? 10 : 200;
  return count >= 10_000 ? 100 : 200;
}

// Spread the changed Ingresses over the whole set, each one once (the step is coprime with count).
function pickIndex(j: number, count: number, offset: number): number {
  return (offset + j * 7919) % count;
}

const work = mkdtempSync(join(tmpdir(), 'ingresskit-bench-latency-'));
const backends = await startBackends(4);
const ports = backends.map((backend) => backend.port);
const certificates = createCertificatePool(work, 20);
const rows: Record<string, string | number>[] = [];
const comparison: Parameters<typeof printComparison>[1] = [];
let largestConfMiB = 0;

try {
  for (const count of readSizes()) {
    const server = await startLocalApiServer({ port: 0 });
    const prefix = join(work, `prefix-${count}`);
    const objects = createClusterObjects(count, ports, certificates);
    await server.apply(objects);
    const kubeconfigPath = await server.writeKubeconfig(join(work, `kubeconfig-${count}`));
    const controller = await startControllerProcess({ kubeconfigPath, prefix, syncRateLimit: 0 });
    const intervalMs = count >= 10_000 ? 25 : 10;
    // TLS Ingresses redirect plain HTTP to HTTPS: ask them over HTTPS.
    const portOf = (tls: boolean) => (tls ? controller.ports.https : controller.ports.http);
    try {
      const last = refOf(count - 1);
      await waitForAnswer(
        controller.ports.http,
        last.host,
        '/app',
        backends[initialBackendOf(last.index, 4)]!.name,
        { intervalMs: 50, timeoutMs: 300_000 },
      );

      // Ingress edits: each adds a path that answered 404 before.
      const edits = changesFor(count, 'edit');
      const editSamples: number[] = [];
      const syncTime = async () => ({
        seconds: await controller.metric('ingresskit_sync_duration_seconds_sum'),
        count: await controller.metric('ingresskit_sync_duration_seconds_count'),
      });
      const meanSyncMs = (before: { seconds: number; count: number }, after: typeof before) =>
        ((after.seconds - before.seconds) * 1000) / Math.max(1, after.count - before.count);
      const syncsBeforeEdits = await syncTime();
      const reloadsBefore = await controller.metric('ingresskit_nginx_reloads_total', { result: 'success' });
      for (let j = 0; j < edits; j++) {
        const ref = refOf(pickIndex(j, count, 0));
        const path = `/edit-${j}`;
        const expected = backends[initialBackendOf(ref.index, 4)]!.name;
        const start = performance.now();
        await server.apply(ingressObject(ref, path));
        const seen = await waitForAnswer(portOf(ref.tls), ref.host, path, expected, {
          intervalMs,
          tls: ref.tls,
        });
        editSamples.push(seen - start);
      }
      // nginx serves the last edit a moment before the controller has counted its reload.
      const reloadsNow = () => controller.metric('ingresskit_nginx_reloads_total', { result: 'success' });
      await waitUntil(async () => (await reloadsNow()) - reloadsBefore >= edits, 10_000).catch(
        () => undefined,
      );
      const editReloads = (await reloadsNow()) - reloadsBefore;
      const syncsAfterEdits = await syncTime();
      const editSyncMs = meanSyncMs(syncsBeforeEdits, syncsAfterEdits);

      // Endpoint changes: the Service's only endpoint moves to the next backend.
      const moves = changesFor(count, 'endpoint');
      const moveSamples: number[] = [];
      const current = new Map<number, number>();
      const reloadsBeforeMoves = await reloadsNow();
      const dynamicBefore = await controller.metric('ingresskit_dynamic_updates_total', {
        result: 'success',
      });
      for (let j = 0; j < moves; j++) {
        const ref = refOf(pickIndex(j, count, 1));
        const from = current.get(ref.index) ?? initialBackendOf(ref.index, 4);
        const to = (from + 1) % 4;
        current.set(ref.index, to);
        const start = performance.now();
        await server.apply(endpointSliceObject(ref, ports[to]!));
        const seen = await waitForAnswer(portOf(ref.tls), ref.host, '/app', backends[to]!.name, {
          intervalMs,
          tls: ref.tls,
        });
        moveSamples.push(seen - start);
      }
      const dynamicNow = () => controller.metric('ingresskit_dynamic_updates_total', { result: 'success' });
      await waitUntil(async () => (await dynamicNow()) - dynamicBefore >= moves, 10_000).catch(
        () => undefined,
      );
      const moveReloads = (await reloadsNow()) - reloadsBeforeMoves;
      const dynamicUpdates = (await dynamicNow()) - dynamicBefore;
      const moveSyncMs = meanSyncMs(syncsAfterEdits, await syncTime());
      const rss = controller.rssMiB();
      await controller.stop();

      // Floors, measured with the controller stopped so that nothing competes for the 2 cores.
      const reloadFloor = await measureReloadFloor(
        objects,
        join(work, `floor-${count}`),
        count >= 10_000 ? 1 : 3,
      );
      const nginxAlone = await measureNginxAlone(reloadFloor.dir, count >= 10_000 ? 2 : 5);
      const editFloorMs = reloadFloor.totalMs + nginxAlone.reloadMs;
      largestConfMiB = Math.max(largestConfMiB, reloadFloor.confMiB);
      let shift = 0;
      const dynamicFloorMs = measureDynamicFloor(
        objects,
        (list) => {
          shift += 1;
          const ref = refOf(pickIndex(shift, count, 1));
          const moved = endpointSliceObject(ref, ports[(initialBackendOf(ref.index, 4) + shift) % 4]!);
          return list.map((object) =>
            object.kind === 'EndpointSlice' &&
            (object.metadata as { name: string }).name === `${ref.name}-1` &&
            (object.metadata as { namespace: string }).namespace === ref.namespace
              ? moved
              : object,
          );
        },
        count >= 10_000 ? 3 : 7,
      );

      const scale = `${formatNumber(count, 0)} Ingresses`;
      const editP50 = percentile(editSamples, 50);
      const editP99 = percentile(editSamples, 99);
      const moveP50 = percentile(moveSamples, 50);
      const moveP99 = percentile(moveSamples, 99);
      rows.push(
        {
          Ingresses: formatNumber(count, 0),
          change: 'Ingress edit (reload)',
          changes: edits,
          'p50 ms': formatNumber(editP50, 0),
          'p99 ms': formatNumber(editP99, 0),
          'max ms': formatNumber(Math.max(...editSamples), 0),
          'reloads / changes': `${editReloads} / ${edits}`,
          'mean sync ms (inside the controller)': formatNumber(editSyncMs, 0),
          'in-run floor ms': `${formatNumber(editFloorMs, 0)} (build ${formatNumber(reloadFloor.buildMs, 0)} + render ${formatNumber(reloadFloor.renderMs, 0)} + nginx -t ${formatNumber(reloadFloor.nginxTestMs, 0)} + reload ${formatNumber(nginxAlone.reloadMs, 0)})`,
          'p50 / floor': formatRatio(editP50, editFloorMs),
          'p50 / 3,333 ms (ingress-nginx rate-limit wait)': formatRatio(editP50, RATE_LIMIT_FLOOR_MS),
          'controller RSS MiB after': formatNumber(rss, 0),
        },
        {
          Ingresses: formatNumber(count, 0),
          change: 'endpoint move (Lua, no reload)',
          changes: moves,
          'p50 ms': formatNumber(moveP50, 0),
          'p99 ms': formatNumber(moveP99, 0),
          'max ms': formatNumber(Math.max(...moveSamples), 0),
          'reloads / changes': `${moveReloads} / ${moves} (${dynamicUpdates} dynamic updates)`,
          'mean sync ms (inside the controller)': formatNumber(moveSyncMs, 0),
          'in-run floor ms': `${formatNumber(dynamicFloorMs, 0)} (rebuild + diff + payload)`,
          'p50 / floor': formatRatio(moveP50, dynamicFloorMs),
          'p50 / 3,333 ms (ingress-nginx rate-limit wait)': formatRatio(moveP50, RATE_LIMIT_FLOOR_MS),
          'controller RSS MiB after': formatNumber(rss, 0),
        },
      );
      const editAnchor = count >= 3_000 ? anchors.routeChangeLarge : anchors.routeChangeNgf;
      recordSummary({
        scenario: SCENARIO,
        figure: `Ingress edit → served (reload), p50 / p99, ${scale}, ${edits} changes`,
        ours: `${formatNumber(editP50, 0)} / ${formatNumber(editP99, 0)} ms`,
        baseline: `${formatNumber(editFloorMs, 0)} ms (build + render + nginx -t + bare nginx reload)`,
        ratio: formatRatio(editP50, editFloorMs),
        anchor: editAnchor,
      });
      recordSummary({
        scenario: SCENARIO,
        figure: `endpoint move → served (no reload), p50 / p99, ${scale}, ${moves} changes`,
        ours: `${formatNumber(moveP50, 0)} / ${formatNumber(moveP99, 0)} ms, ${moveReloads} reloads`,
        baseline: `${formatNumber(dynamicFloorMs, 0)} ms (rebuild + diff + payload)`,
        ratio: formatRatio(moveP50, dynamicFloorMs),
        anchor: anchors.syncRateLimit,
      });
      comparison.push(
        {
          figure: `Ingress edit → served, ${scale}`,
          ours: `p50 ${formatNumber(editP50, 0)} ms, p99 ${formatNumber(editP99, 0)} ms`,
          anchor: editAnchor,
        },
        ...(count < 3_000
          ? [
              {
                figure: `Ingress edit → served, ${scale}`,
                ours: `p50 ${formatNumber(editP50, 0)} ms`,
                anchor: anchors.routeChangeGab,
              },
            ]
          : []),
        {
          figure: `endpoint move → served, ${scale}`,
          ours: `p50 ${formatNumber(moveP50, 0)} ms, ${moveReloads} reloads`,
          anchor: anchors.syncRateLimit,
        },
      );
    } catch (error) {
      process.stderr.write(`controller output:\n${controller.recentOutput()}\n`);
      throw error;
    } finally {
      await controller.stop();
      await server.stop();
      rmSync(prefix, { recursive: true, force: true });
    }
  }
} finally {
  for (const backend of backends) await backend.stop();
  rmSync(work, { recursive: true, force: true });
}

printSection(
  'controller: change → applied latency',
  rows,
  `One change at a time, the next after the previous was seen. Latency runs from the write to local-apiserver (in the ` +
    `benchmark process) to the first request through nginx that shows the change (polled every 10 ms at 1,000 and ` +
    `25 ms at 10,000 Ingresses). \`ingresskit run\` (${controllerMode()} build) is a child process with ` +
    '`--sync-rate-limit=0` and 2 nginx workers. An edit adds a third Prefix path to one Ingress (render, `nginx -t`, ' +
    'reload); an endpoint move points the Service’s EndpointSlice at another backend (POST to Lua). The edit floor is ' +
    'build + render + `nginx -t` of the same objects in the same run, plus the reload of a bare nginx on that file ' +
    '(SIGHUP until its new workers exist); the ' +
    'endpoint floor is a rebuild with a warm certificate cache + diff + payload. ingress-nginx’s default ' +
    '`--sync-rate-limit` of 0.3/s makes back-to-back changes wait up to 3,333 ms before their sync even starts. ' +
    `Every ${TLS_EVERY}th Ingress has TLS. Changes at 10,000 Ingresses: 10 edits and 100 endpoint moves by default ` +
    `(an edit there parses a ${formatNumber(largestConfMiB, 1)} MiB nginx.conf twice: \`nginx -t\` and the reload); ` +
    'BENCH_CHANGES sets the count. The RSS column is read after all the changes of that size.',
);
printComparison('controller: change latency beside published figures', comparison);
