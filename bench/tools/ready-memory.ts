/**
 * What the controller holds when it reports ready, and how much of it is garbage: RSS, CPU time
 * and V8's accounting at ready, then again after one full GC (the live heap). The evidence for
 * the memory figures in bench/RSS-DIAGNOSIS.md ("At ready").
 *
 *   pnpm exec node --conditions=@ingresskit/source --import tsx bench/tools/ready-memory.ts
 *
 * READY_SIZE Ingresses (10,000), BENCH_CONTROLLER=dist to run the built controller as
 * `ingresskit` runs (else src through tsx, which adds tsx's own memory), READY_NODE_OPTIONS to
 * try V8 options (e.g. `--optimize-for-size`), READY_ENV to set environment variables of the
 * controller (e.g. `MALLOC_ARENA_MAX=2`), READY_RUNS runs (1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createBenchFixture, startBenchCluster, startServingController } from '../lib/cluster.js';
import { formatNumber, printSection } from '../lib/measure.js';

const MiB = 2 ** 20;
const size = Number(process.env.READY_SIZE ?? 10_000);
const runs = Number(process.env.READY_RUNS ?? 1);
const nodeOptions = (process.env.READY_NODE_OPTIONS ?? '').split(' ').filter((option) => option !== '');
const extraEnv = Object.fromEntries(
  (process.env.READY_ENV ?? '')
    .split(' ')
    .filter((assignment) => assignment.includes('='))
    .map((assignment) => [
      assignment.slice(0, assignment.indexOf('=')),
      assignment.slice(assignment.indexOf('=') + 1),
    ]),
);

interface ProbeLine {
  reason: string;
  heapUsed: number;
  heapTotal: number;
  external: number;
  spaces: Record<string, number>;
}

/** CPU time (user + system) the process has used, in ms. */
function cpuMillis(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const fixture = await createBenchFixture('ready-memory');
const cluster = await startBenchCluster(fixture, size);
const rows: Record<string, string | number>[] = [];
for (let run = 1; run <= runs; run++) {
  const probeFile = join(fixture.work, `memory-probe-${run}.jsonl`);
  writeFileSync(probeFile, '');
  const lastProbe = () => JSON.parse(readFileSync(probeFile, 'utf8').trim().split('\n').at(-1)!) as ProbeLine;
  const controller = await startServingController(cluster, 'current', {
    syncRateLimit: 0,
    nodeOptions: [
      '--expose-gc',
      `--import=${pathToFileURL(join(import.meta.dirname, 'memory-probe.mjs')).href}`,
      ...nodeOptions,
    ],
    env: { ...extraEnv, MEMORY_PROBE_FILE: probeFile },
  });
  const cpu = cpuMillis(controller.pid);
  const atReady = controller.memory();
  // The probe writes every 500 ms: wait for a line written after ready.
  await sleep(1_000);
  const ready = lastProbe();
  process.kill(controller.pid, 'SIGWINCH');
  await sleep(2_000);
  const collected = lastProbe();
  const afterGc = controller.memory();
  const heap = (line: ProbeLine) =>
    `${formatNumber(line.heapUsed / MiB, 0)} / ${formatNumber(line.heapTotal / MiB, 0)}`;
  rows.push({
    run,
    'CPU ms to ready': cpu,
    'RSS at ready MiB (file)': `${formatNumber(atReady.rss, 0)} (${formatNumber(atReady.file, 0)})`,
    'heap used / committed at ready MiB': heap(ready),
    'large objects at ready MiB': formatNumber((ready.spaces.large_object_space ?? 0) / MiB, 0),
    'external MiB': formatNumber(ready.external / MiB, 0),
    'after a full GC: RSS MiB': formatNumber(afterGc.rss, 0),
    'after a full GC: heap used / committed MiB': heap(collected),
  });
  await controller.stop();
}
printSection(
  `controller memory at ready, ${formatNumber(size, 0)} Ingresses` +
    (nodeOptions.length === 0 ? '' : ` (node ${nodeOptions.join(' ')})`) +
    (process.env.READY_ENV ? ` (${process.env.READY_ENV})` : ''),
  rows,
);
process.exit(0);
