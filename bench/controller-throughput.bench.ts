/**
 * Routing throughput of the data plane: wrk spreads requests over 1,000 hosts × 1 Prefix path
 * through three nginx set-ups that route the same Ingresses to the same backend (a separate
 * nginx answering `return 200`, so the backend is never the bottleneck):
 *   (a) old: the nginx.conf the baseline renders (`ingresskit render --manifests DIR`), one server
 *       per host, its Lua balancer fed with the backends payload;
 *   (b) native: one server and one static upstream per host, no Lua at all;
 *   (c) new: the Lua router of the current controller, started by its `ingresskit run` (skipped
 *       when the current side is not built or does not start), counting every request for
 *       ingress-nginx's request metrics as it does by default;
 *   (d) the same with `--enable-metrics=false`: the routing alone, what the target compares with
 *       native locations (which count nothing either).
 * Runs are interleaved (a, b, c, d, a, b, c, d, …) and the medians reported, with ratios to (a) and (b);
 * runs disturbed by other processes on the (shared) machine are set aside and made again.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { baselineRoot, importBaselineTemplate, readSides, sideLabel } from './lib/baseline.js';
import {
  createBenchFixture,
  startBenchCluster,
  startServingController,
  type BenchCluster,
} from './lib/cluster.js';
import { answerOf, describeController, findFreePort } from './lib/controller-process.js';
import { createClusterObjects, refOf } from './lib/fixture.js';
import { toConfigurationInput } from './lib/floor.js';
import { formatNumber, percentile, printSection } from './lib/measure.js';
import {
  backendConf,
  measureForeignCpu,
  nativeRoutingConf,
  pinProcessTree,
  readPinning,
  runWrk,
  startNginx,
  type WrkResult,
} from './lib/nginx-load.js';
import { checkTarget, formatRatio, isQuick, recordSummary } from './lib/report.js';

const SCENARIO = 'routing throughput';
const HOSTS = Number(process.env.BENCH_THROUGHPUT_HOSTS ?? 1_000);
const ROUTE = '/app';
const REQUEST_PATH = '/app/x';
const REPETITIONS = Number(process.env.BENCH_THROUGHPUT_REPS ?? 3);
const SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? (isQuick() ? 5 : 10));
const WARM_UP_SECONDS = 2;
const CONNECTIONS = 64;
const THREADS = 2;
/** Share of all CPUs other processes may take during a round before it is set aside. */
const MAX_FOREIGN = Number(process.env.BENCH_THROUGHPUT_MAX_FOREIGN ?? 0.1);

/** One set-up under load: where it listens and how it is stopped. */
interface Target {
  key: 'a' | 'b' | 'c' | 'd';
  label: string;
  port: number;
  stop: () => Promise<void>;
}

const pinning = readPinning();
const fixture = await createBenchFixture('throughput');
const { work } = fixture;
const hosts = Array.from({ length: HOSTS }, (_, i) => refOf(i, 0).host);
const targets: Target[] = [];
const notes: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

/** (a): the baseline's rendered nginx.conf on a bare nginx, backends POSTed to its Lua endpoint. */
async function startOldRendered(objects: Record<string, unknown>[]): Promise<Target> {
  const template = await importBaselineTemplate();
  const manifests = join(work, 'manifests');
  mkdirSync(manifests, { recursive: true });
  writeFileSync(
    join(manifests, 'cluster.json'),
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  );
  const [port, httpsPort, statusPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
  const render = spawnSync(
    process.execPath,
    [
      join(baselineRoot, 'apps/controller/dist/cli.js'),
      'render',
      `--manifests=${manifests}`,
      `--http-port=${port}`,
      `--https-port=${httpsPort}`,
      `--status-port=${statusPort}`,
    ],
    { cwd: baselineRoot, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  if (render.status !== 0) throw new Error(`ingresskit render failed: ${render.stderr}`);
  const prefix = join(work, 'old-rendered');
  for (const file of template.luaFiles) {
    mkdirSync(dirname(join(prefix, 'lua', file.relativePath)), { recursive: true });
    copyFileSync(file.path, join(prefix, 'lua', file.relativePath));
  }
  mkdirSync(join(prefix, 'certs'), { recursive: true });
  const nginx = await startNginx(prefix, render.stdout, port, pinning.proxy);
  const { configuration } = template.buildConfiguration(toConfigurationInput(objects), { now: Date.now() });
  const response = await fetch(`http://127.0.0.1:${statusPort}${template.BACKENDS_ENDPOINT_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: template.backendsPayload(configuration),
  });
  if (response.status !== 201) {
    await nginx.stop();
    throw new Error(`the Lua endpoint answered ${response.status}: ${await response.text()}`);
  }
  return {
    key: 'a',
    label: `(a) ${sideLabel('baseline')}: rendered nginx.conf, Lua balancer`,
    port,
    stop: nginx.stop,
  };
}

/** (b): native locations and static upstreams, no Lua. */
async function startNative(backendPort: number): Promise<Target> {
  const port = await findFreePort();
  const conf = nativeRoutingConf({ hosts, path: ROUTE, listenPort: port, backendPort, workers: 'auto' });
  const nginx = await startNginx(join(work, 'native'), conf, port, pinning.proxy);
  return {
    key: 'b',
    label: '(b) native nginx: a server and a static upstream per host, no Lua',
    port,
    stop: nginx.stop,
  };
}

/**
 * (c), or (d) without request metrics: the current controller's nginx with its Lua router, fed
 * through local-apiserver.
 */
async function startNewRouter(cluster: BenchCluster, requestMetrics: boolean): Promise<Target> {
  const controller = await startServingController(cluster, 'current', {
    ready: { host: hosts.at(-1)!, path: REQUEST_PATH, expected: 'ok' },
    ...(requestMetrics ? {} : { flags: ['--enable-metrics=false'] }),
  });
  pinProcessTree(controller.pid, pinning.proxy);
  return requestMetrics
    ? {
        key: 'c',
        label: `(c) ${sideLabel('current')}: the Lua router of \`ingresskit run\`, counting requests for the metrics (${describeController('current')})`,
        port: controller.ports.http,
        stop: controller.stop,
      }
    : {
        key: 'd',
        label: `(d) ${sideLabel('current')}: the same with --enable-metrics=false (the routing alone)`,
        port: controller.ports.http,
        stop: controller.stop,
      };
}

/** Every host answers `ok` through the target and an unknown host does not: it really routes. */
async function checkRouting(target: Target): Promise<void> {
  for (const host of [hosts[0]!, hosts[Math.floor(HOSTS / 2)]!, hosts.at(-1)!]) {
    const answer = await answerOf(target.port, host, REQUEST_PATH);
    if (answer !== 'ok') throw new Error(`${target.label}: ${host} answers ${answer}`);
  }
  const unknown = await answerOf(target.port, 'unknown.bench.test', REQUEST_PATH);
  if (unknown === 'ok') throw new Error(`${target.label}: an unknown host is routed too`);
}

const results = new Map<Target['key'], WrkResult[]>();
const disturbed = new Map<Target['key'], WrkResult[]>();
try {
  const backendPort = await findFreePort();
  const backend = await startNginx(
    join(work, 'backend'),
    backendConf(backendPort),
    backendPort,
    pinning.backend,
  );
  cleanups.push(backend.stop);
  const objects = createClusterObjects(HOSTS, [backendPort], [], { tlsEvery: 0, paths: [ROUTE] });
  const sides = readSides();
  if (sides.includes('baseline')) targets.push(await startOldRendered(objects));
  else notes.push('(a) skipped: BENCH_SIDES leaves the baseline out.');
  cleanups.push(...targets.map((target) => target.stop));
  targets.push(await startNative(backendPort));
  cleanups.push(targets.at(-1)!.stop);
  if (sides.includes('current')) {
    const cluster = await startBenchCluster(fixture, HOSTS, objects);
    cleanups.push(cluster.stop);
    for (const requestMetrics of [true, false]) {
      try {
        targets.push(await startNewRouter(cluster, requestMetrics));
        cleanups.push(targets.at(-1)!.stop);
      } catch (error) {
        notes.push(
          `(${requestMetrics ? 'c' : 'd'}) skipped: the current controller did not serve (${String(error).split('\n')[0]}).`,
        );
      }
    }
  } else notes.push('(c) skipped: the current side is not built (BENCH_SIDES leaves it out).');

  for (const target of targets) await checkRouting(target);
  const load = {
    hosts,
    path: REQUEST_PATH,
    connections: CONNECTIONS,
    threads: THREADS,
    dir: work,
    ...(pinning.load ? { cpus: pinning.load } : {}),
  };
  // Rounds run the set-ups back to back. A run during which other processes took more than
  // MAX_FOREIGN of the CPUs is set aside; rounds go on (at most 3 × REPETITIONS) until every set-up
  // has REPETITIONS quiet runs, skipping the set-ups that have them already.
  const quiet = (key: Target['key']) => results.get(key)?.length ?? 0;
  for (let round = 1; round <= REPETITIONS * 3; round++) {
    const pending = targets.filter((target) => quiet(target.key) < REPETITIONS);
    if (pending.length === 0) break;
    for (const target of pending) {
      await runWrk({ ...load, port: target.port, seconds: WARM_UP_SECONDS });
      const run = await measureForeignCpu(() => runWrk({ ...load, port: target.port, seconds: SECONDS }));
      const bucket = run.foreignShare <= MAX_FOREIGN ? results : disturbed;
      bucket.set(target.key, [...(bucket.get(target.key) ?? []), run.result]);
      process.stderr.write(
        `throughput: round ${round} ${target.key}: ${Math.round(run.result.requestsPerSecond)} req/s, ` +
          `p99 ${run.result.p99Ms} ms, other processes ${Math.round(run.foreignShare * 100)} % of the CPUs\n`,
      );
      await sleep(500);
    }
  }
  for (const target of targets) {
    const quietRuns = quiet(target.key);
    const setAside = disturbed.get(target.key)?.length ?? 0;
    // Too few quiet runs: report them all, and say so.
    if (quietRuns < Math.min(3, REPETITIONS)) {
      results.set(target.key, [...(results.get(target.key) ?? []), ...(disturbed.get(target.key) ?? [])]);
      notes.push(
        `(${target.key}): only ${quietRuns} quiet run(s), so its ${setAside} disturbed run(s) count too.`,
      );
    } else if (setAside > 0) notes.push(`(${target.key}): ${setAside} disturbed run(s) set aside.`);
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await fixture.stop();
}

const median = (key: Target['key'], pick: (result: WrkResult) => number) => {
  const list = results.get(key);
  return list === undefined ? undefined : percentile(list.map(pick), 50);
};
const rps = (key: Target['key']) => median(key, (result) => result.requestsPerSecond);
const p99 = (key: Target['key']) => median(key, (result) => result.p99Ms);
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? '—' : formatRatio(a, b);

printSection(
  `routing throughput: ${formatNumber(HOSTS, 0)} hosts × 1 path`,
  targets.map((target) => {
    const list = results.get(target.key) ?? [];
    return {
      'set-up': target.label,
      runs: list.length,
      'requests/s (median)': formatNumber(rps(target.key) ?? Number.NaN, 0),
      'requests/s each run': list.map((result) => formatNumber(result.requestsPerSecond, 0)).join(', '),
      'p50 ms': formatNumber(median(target.key, (result) => result.p50Ms) ?? Number.NaN, 2),
      'p99 ms (median)': formatNumber(p99(target.key) ?? Number.NaN, 2),
      'non-2xx / socket errors': `${list.reduce((sum, result) => sum + result.badStatus, 0)} / ${list.reduce((sum, result) => sum + result.socketErrors, 0)}`,
      'req/s vs (a)': ratio(rps(target.key), rps('a')),
      'req/s vs (b)': ratio(rps(target.key), rps('b')),
      'p99 vs (a)': ratio(p99(target.key), p99('a')),
      'p99 vs (b)': ratio(p99(target.key), p99('b')),
    };
  }),
  `wrk ${THREADS} threads × ${CONNECTIONS} connections, ${SECONDS} s per run after ${WARM_UP_SECONDS} s of warm-up, ` +
    `GET ${REQUEST_PATH} with the Host header taken round-robin over ${formatNumber(HOSTS, 0)} hosts (each Ingress ` +
    `routes Prefix ${ROUTE} to its own Service); the set-ups take turns, and each gets ${REPETITIONS} runs during ` +
    `which processes outside the benchmark took at most ${MAX_FOREIGN * 100} % of the CPUs (/proc/stat against this ` +
    'process tree: the machine is shared); a run above that is set aside and another one made ' +
    `(BENCH_THROUGHPUT_MAX_FOREIGN, at most ${REPETITIONS * 3} rounds). Medians of those runs, and ratios of the ` +
    'medians. The backend is ' +
    'one nginx worker answering `return 200` with upstream keep-alive. The proxies run with `worker_processes auto` ' +
    `(2 here). Pinning (BENCH_PIN): ${Object.keys(pinning).length === 0 ? 'none' : JSON.stringify(pinning)}; the ` +
    'machine has 2 cores for proxy, backend and load generator, so absolute figures are low and the ratios are the ' +
    `result.${notes.length > 0 ? ` ${notes.join(' ')}` : ''}`,
);

// The target compares routing with routing: (d) against native locations, neither counting
// requests; (c) says what the request metrics add.
const newRps = rps('c');
const routingRps = rps('d');
recordSummary({
  scenario: SCENARIO,
  figure: `requests/s, ${formatNumber(HOSTS, 0)} hosts × 1 path (wrk, medians), request metrics off (d)`,
  ...(rps('a') === undefined ? {} : { old: `${formatNumber(rps('a')!, 0)} req/s` }),
  ...(routingRps === undefined ? {} : { new: `${formatNumber(routingRps, 0)} req/s` }),
  ratio: ratio(routingRps, rps('a')),
  ...checkTarget(
    '≥ 0.9× native',
    routingRps === undefined ? undefined : routingRps / rps('b')!,
    (value) => value >= 0.9,
  ),
  reference:
    `native nginx ${formatNumber(rps('b')!, 0)} req/s; new / native ${ratio(routingRps, rps('b'))}; ` +
    `old / native ${ratio(rps('a'), rps('b'))}`,
});
recordSummary({
  scenario: SCENARIO,
  figure: `requests/s, ${formatNumber(HOSTS, 0)} hosts × 1 path, counting requests for the metrics (c, the default)`,
  ...(newRps === undefined ? {} : { new: `${formatNumber(newRps, 0)} req/s` }),
  ratio: ratio(newRps, rps('a')),
  reference: `native nginx ${formatNumber(rps('b')!, 0)} req/s; with metrics / native ${ratio(newRps, rps('b'))}; with / without metrics ${ratio(newRps, routingRps)}`,
});
recordSummary({
  scenario: SCENARIO,
  figure: `p99 latency under that load, ${formatNumber(HOSTS, 0)} hosts`,
  ...(p99('a') === undefined ? {} : { old: `${formatNumber(p99('a')!, 2)} ms` }),
  ...(p99('c') === undefined ? {} : { new: `${formatNumber(p99('c')!, 2)} ms` }),
  ratio: ratio(p99('c'), p99('a')),
  reference:
    `native nginx ${formatNumber(p99('b')!, 2)} ms; new / native ${ratio(p99('c'), p99('b'))}; ` +
    `old / native ${ratio(p99('a'), p99('b'))}`,
});
