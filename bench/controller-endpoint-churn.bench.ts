/**
 * Endpoint churn: 1,000 EndpointSlice changes spread evenly over 60 s, written to local-apiserver
 * (in this process) while `ingresskit run` serves with its default `--sync-rate-limit` (0.3/s, as
 * ingress-nginx). Counted: nginx reloads (expected 0: endpoints go to Lua), syncs (against the
 * ceiling the rate limit allows), and the lag of sampled changes until a request through nginx
 * reaches the new endpoint; at the end every changed Service must answer from its last endpoint.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { anchors } from './lib/anchors.js';
import {
  answerOf,
  controllerMode,
  startControllerProcess,
  waitForAnswer,
  waitUntil,
} from './lib/controller-process.js';
import {
  createCertificatePool,
  createClusterObjects,
  endpointSliceObject,
  initialBackendOf,
  refOf,
  startBackends,
} from './lib/fixture.js';
import { formatNumber, percentile, printSection } from './lib/measure.js';
import { formatRatio, isQuick, printComparison, readSizes, recordSummary } from './lib/report.js';

const SCENARIO = 'controller endpoint churn';
const CHANGES = isQuick() ? 300 : 1_000;
const DURATION_MS = isQuick() ? 20_000 : 60_000;
const SYNC_RATE = 0.3;
/** Every SAMPLE_EVERY-th change goes to a Service changed only that once, and its lag is measured. */
const SAMPLE_EVERY = 25;

// A small deterministic generator, so every run makes the same changes.
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const work = mkdtempSync(join(tmpdir(), 'ingresskit-bench-churn-'));
const backends = await startBackends(4);
const ports = backends.map((backend) => backend.port);
const certificates = createCertificatePool(work, 20);
const rows: Record<string, string | number>[] = [];
const comparison: Parameters<typeof printComparison>[1] = [];

try {
  for (const count of readSizes()) {
    const server = await startLocalApiServer({ port: 0 });
    const prefix = join(work, `prefix-${count}`);
    await server.apply(createClusterObjects(count, ports, certificates));
    const kubeconfigPath = await server.writeKubeconfig(join(work, `kubeconfig-${count}`));
    const controller = await startControllerProcess({ kubeconfigPath, prefix, syncRateLimit: SYNC_RATE });
    const portOf = (tls: boolean) => (tls ? controller.ports.https : controller.ports.http);
    try {
      const last = refOf(count - 1);
      await waitForAnswer(
        controller.ports.http,
        last.host,
        '/app',
        backends[initialBackendOf(last.index, 4)]!.name,
        {
          intervalMs: 50,
          timeoutMs: 300_000,
        },
      );
      // Let the start settle: the first syncs and the rate limiter's window.
      await sleep(1000 / SYNC_RATE);

      const read = async () => ({
        syncs: await controller.metric('ingresskit_syncs_total', { result: 'success' }),
        failedSyncs: await controller.metric('ingresskit_syncs_total', { result: 'error' }),
        reloads: await controller.metric('ingresskit_nginx_reloads_total', { result: 'success' }),
        dynamic: await controller.metric('ingresskit_dynamic_updates_total', { result: 'success' }),
      });
      const before = await read();

      const random = createRandom(count);
      const sampleCount = Math.floor(CHANGES / SAMPLE_EVERY);
      // Sampled Services are the first ones of a shuffled order and are changed exactly once.
      const order = Array.from({ length: count }, (_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      const sampled = order.slice(0, sampleCount);
      const churned = order.slice(sampleCount);
      const current = new Map<number, number>();
      const lags: Promise<number>[] = [];
      const spacing = DURATION_MS / CHANGES;
      const start = performance.now();
      let writeMs = 0;
      for (let k = 0; k < CHANGES; k++) {
        const due = start + k * spacing;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const isSample = k % SAMPLE_EVERY === SAMPLE_EVERY - 1 && lags.length < sampleCount;
        const index = isSample ? sampled[lags.length]! : churned[Math.floor(random() * churned.length)]!;
        const ref = refOf(index);
        const to = ((current.get(index) ?? initialBackendOf(index, 4)) + 1) % 4;
        current.set(index, to);
        const writeStart = performance.now();
        await server.apply(endpointSliceObject(ref, ports[to]!));
        writeMs += performance.now() - writeStart;
        if (isSample) {
          lags.push(
            waitForAnswer(portOf(ref.tls), ref.host, '/app', backends[to]!.name, {
              tls: ref.tls,
              intervalMs: 50,
            }).then((seenAt) => seenAt - writeStart),
          );
        }
      }
      const lastWriteAt = performance.now();
      const churnMs = lastWriteAt - start;
      const lagSamples = await Promise.all(lags);

      // Every Service that moved answers from its last endpoint.
      const pending = new Map(current);
      await waitUntil(
        async () => {
          for (const [index, to] of pending) {
            const ref = refOf(index);
            if ((await answerOf(portOf(ref.tls), ref.host, '/app', ref.tls)) === backends[to]!.name)
              pending.delete(index);
          }
          return pending.size === 0;
        },
        120_000,
        100,
      );
      const settleMs = performance.now() - lastWriteAt;
      await sleep(200);
      const after = await read();
      const rss = controller.rssMiB();

      const syncs = after.syncs - before.syncs;
      const reloads = after.reloads - before.reloads;
      const ceiling = Math.floor(((churnMs + settleMs) / 1000) * SYNC_RATE) + 1;
      const lagP50 = percentile(lagSamples, 50);
      const lagP99 = percentile(lagSamples, 99);
      const scale = `${formatNumber(count, 0)} Ingresses`;
      rows.push({
        Ingresses: formatNumber(count, 0),
        'endpoint changes': CHANGES,
        'over s': formatNumber(churnMs / 1000, 1),
        'Services changed': current.size,
        'nginx reloads': reloads,
        syncs,
        'failed syncs': after.failedSyncs - before.failedSyncs,
        'dynamic updates': after.dynamic - before.dynamic,
        'sync ceiling at 0.3/s': ceiling,
        'syncs / ceiling': formatRatio(syncs, ceiling),
        'changes per sync': formatNumber(CHANGES / Math.max(1, syncs), 1),
        [`lag p50 / p99 ms (${lagSamples.length} samples)`]: `${formatNumber(lagP50, 0)} / ${formatNumber(lagP99, 0)}`,
        'lag p50 / 3,333 ms': formatRatio(lagP50, 1000 / SYNC_RATE),
        'all served, ms after the last change': formatNumber(settleMs, 0),
        'controller RSS MiB after': formatNumber(rss, 0),
        'mean write to the API server ms': formatNumber(writeMs / CHANGES, 2),
      });
      recordSummary({
        scenario: SCENARIO,
        figure: `${CHANGES} endpoint changes in ${formatNumber(churnMs / 1000, 0)} s: reloads, syncs, ${scale}`,
        ours: `${reloads} reloads, ${syncs} syncs`,
        baseline: `${ceiling} syncs (0.3/s ceiling)`,
        ratio: formatRatio(syncs, ceiling),
        anchor: anchors.endpointReloadsIngressNginx,
      });
      recordSummary({
        scenario: SCENARIO,
        figure: `endpoint lag during churn p50 / p99, ${scale}`,
        ours: `${formatNumber(lagP50, 0)} / ${formatNumber(lagP99, 0)} ms`,
        baseline: '3,333 ms (one 0.3/s sync interval)',
        ratio: formatRatio(lagP50, 1000 / SYNC_RATE),
        anchor: anchors.endpointLagIngressNginx,
      });
      comparison.push(
        {
          figure: `reloads during ${CHANGES} endpoint changes, ${scale}`,
          ours: `${reloads} (${syncs} syncs)`,
          anchor: anchors.endpointReloadsIngressNginx,
        },
        {
          figure: `endpoint lag during churn, ${scale}`,
          ours: `p50 ${formatNumber(lagP50, 0)} ms, p99 ${formatNumber(lagP99, 0)} ms`,
          anchor: anchors.endpointLagIngressNginx,
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
  'controller: endpoint churn',
  rows,
  `${CHANGES} EndpointSlice writes, one every ${formatNumber(DURATION_MS / CHANGES, 0)} ms, each moving one Service's ` +
    'only endpoint to another backend on 127.0.0.1; `ingresskit run` ' +
    `(${controllerMode()} build, child process) runs with its default --sync-rate-limit of 0.3/s, so changes are ` +
    `coalesced into at most one sync per 3.3 s. Every ${SAMPLE_EVERY}th change goes to a Service changed only that ` +
    'once and is polled through nginx every 50 ms until the new backend answers (its lag). The ceiling is the most ' +
    'syncs the rate limit allows over the run and the settling time, plus one. At the end every changed Service is ' +
    'checked through nginx.',
);
printComparison('controller: endpoint churn beside published figures', comparison);
