/**
 * The controller as the system scenarios run it: `ingresskit run` of either side (the baseline
 * worktree's or the working tree's, see baseline.ts) in its own Node process (so its RSS is its
 * own, not the API server's or the benchmark's), with nginx as its child, on free ports of this
 * machine; plus HTTP requests through that nginx and the controller's metrics.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BASELINE_COMMIT,
  baselineRoot,
  isBaselineBuilt,
  prepareBaseline,
  repoRoot,
  rootOf,
  type Side,
} from './baseline.js';

/**
 * How the current side's controller is started: `dist` runs the built `ingresskit`
 * (apps/controller/dist/cli.js, what users run; `bench/run.ts` builds it first), `source` runs
 * src/cli.ts through tsx, which costs about 1 s of start-up and over 100 MiB of RSS for the
 * transformed sources. BENCH_CONTROLLER chooses; `source` by default so a scenario started on its
 * own never runs a stale build. The baseline always runs its build (bench/.out/baseline).
 */
export function controllerMode(side: Side = 'current'): 'dist' | 'source' {
  return side === 'baseline' || process.env.BENCH_CONTROLLER === 'dist' ? 'dist' : 'source';
}

/** How a side's controller ran, for the notes under the tables. */
export function describeController(side: Side): string {
  const env = Object.entries(readShebangEnv(side)).map(([name, value]) => `${name}=${value} `);
  const options = readNodeOptions(side).join(' ');
  return (
    (side === 'baseline'
      ? `old: bench/.out/baseline (${BASELINE_COMMIT}) apps/controller/dist`
      : `new: ${controllerMode(side) === 'dist' ? 'apps/controller/dist' : 'apps/controller/src through tsx'}`) +
    (options === '' && env.length === 0 ? '' : ` with ${env.join('')}node ${options}`)
  );
}

function controllerEntry(side: Side): string[] {
  if (side === 'baseline') {
    const cli = join(baselineRoot, 'apps/controller/dist/cli.js');
    if (!isBaselineBuilt()) {
      const prepared = prepareBaseline((line) => process.stderr.write(`${line}\n`));
      if (!prepared.ok) throw new Error(`the baseline controller did not build:\n${prepared.reason}`);
    }
    return [cli];
  }
  return controllerMode(side) === 'dist'
    ? [join(repoRoot, 'apps/controller/dist/cli.js')]
    : ['--conditions=@ingresskit/source', '--import', 'tsx', join(repoRoot, 'apps/controller/src/cli.ts')];
}

/** What a side's executable asks for on its `#!` line (`env -S NAME=value … node --flag …`). */
function readShebang(side: Side): { nodeOptions: string[]; env: Record<string, string> } {
  const entry =
    side === 'baseline'
      ? join(baselineRoot, 'apps/controller/src/cli.ts')
      : join(repoRoot, 'apps/controller/src/cli.ts');
  const firstLine = existsSync(entry) ? (readFileSync(entry, 'utf8').split('\n', 1)[0] ?? '') : '';
  const words = firstLine.startsWith('#!') ? firstLine.split(/\s+/) : [];
  return {
    nodeOptions: words.filter((word) => word.startsWith('--')),
    env: Object.fromEntries(
      words
        .filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word))
        .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
    ),
  };
}

/**
 * Node options of a controller process: those its executable asks for on its `#!` line (so it
 * runs as `ingresskit` runs when started as a command), then BENCH_NODE_OPTIONS (space-separated)
 * to try others, e.g. `--max-semi-space-size=16` (see bench/RSS-DIAGNOSIS.md).
 */
export function readNodeOptions(side: Side = 'current'): string[] {
  const extra = (process.env.BENCH_NODE_OPTIONS ?? '').split(' ').filter((option) => option !== '');
  return [...readShebang(side).nodeOptions, ...extra];
}

/**
 * Environment variables the `#!` line sets (e.g. `MALLOC_ARENA_MAX`), unless the benchmark's own
 * environment sets them (to try other values).
 */
function readShebangEnv(side: Side): Record<string, string> {
  return Object.fromEntries(
    Object.entries(readShebang(side).env).filter(([name]) => process.env[name] === undefined),
  );
}

/** Ports of one controller. */
export interface ControllerPorts {
  http: number;
  https: number;
  status: number;
  healthz: number;
}

/** Options of {@link startControllerProcess}. */
export interface ControllerProcessOptions {
  /** Which controller runs: the old data plane or the working tree's. */
  which: Side;
  kubeconfigPath: string;
  /** nginx prefix directory (nginx.conf is written there). */
  prefix: string;
  /** `--sync-rate-limit`; the controller's default (0.3, as ingress-nginx) when undefined. */
  syncRateLimit?: number;
  podName?: string;
  /** Extra flags. */
  flags?: string[];
  /** Extra Node options before the script, e.g. `--heapsnapshot-signal=SIGUSR2`. */
  nodeOptions?: string[];
  /** Extra environment variables of the controller process. */
  env?: Record<string, string>;
}

/** A running `ingresskit run` child process. */
export interface ControllerProcess {
  which: Side;
  pid: number;
  ports: ControllerPorts;
  /** performance.now() when it was spawned. */
  spawnedAt: number;
  /** performance.now() when a log line whose `msg` contains `text` was first read, if one was. */
  logSeenAt(text: string): number | undefined;
  /** Resident set size of the controller process alone (nginx not included), MiB. */
  rssMiB(): number;
  /** Peak resident set size of the controller process (VmHWM), MiB. */
  peakRssMiB(): number;
  /** The controller's memory from /proc (status and smaps_rollup), MiB. */
  memory(): ProcessMemory;
  /** Reads /metrics and returns the value of `name{labels}` (0 when absent). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /**
   * The text of /metrics: only the metrics `names` name when given (`?name=`, which a controller
   * that does not know it ignores), else the whole scrape.
   */
  metricsText(names?: readonly string[]): Promise<string>;
  /** SIGTERM, then waits for the exit (SIGKILL after 30 s). */
  stop(): Promise<void>;
  /** The last lines the controller wrote to stderr, for error messages. */
  recentOutput(): string;
}

/** A port that was free a moment ago. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function pickPorts(): Promise<ControllerPorts> {
  const ports = new Set<number>();
  while (ports.size < 4) ports.add(await findFreePort());
  const [http, https, status, healthz] = [...ports] as [number, number, number, number];
  return { http, https, status, healthz };
}

/** Memory of one process from /proc, MiB. */
export interface ProcessMemory {
  /** VmRSS. */
  rss: number;
  /** VmHWM, the peak RSS. */
  peak: number;
  /** RssAnon: heap, JIT code, ArrayBuffers, malloc arenas. */
  anon: number;
  /** RssFile: mapped files (the node binary, shared libraries). */
  file: number;
}

/** Reads {@link ProcessMemory} of `pid` (NaN fields when it is gone). */
export function readProcessMemory(pid: number): ProcessMemory {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // Gone: NaN below.
  }
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM'), anon: field('RssAnon'), file: field('RssFile') };
}

/** Spawns `ingresskit run` of `options.which` with free ports; does not wait for readiness. */
export async function startControllerProcess(options: ControllerProcessOptions): Promise<ControllerProcess> {
  const ports = await pickPorts();
  const args = [
    ...readNodeOptions(options.which),
    ...(options.nodeOptions ?? []),
    ...controllerEntry(options.which),
    'run',
    `--kubeconfig=${options.kubeconfigPath}`,
    `--http-port=${ports.http}`,
    `--https-port=${ports.https}`,
    `--status-port=${ports.status}`,
    `--healthz-port=${ports.healthz}`,
    `--nginx-prefix=${options.prefix}`,
    `--pod-name=${options.podName ?? 'bench'}`,
    '--pod-namespace=default',
    // Publishing status writes every Ingress back (and so starts syncs): not what is measured here.
    '--update-status=false',
    '--log-level=info',
    ...(options.syncRateLimit === undefined ? [] : [`--sync-rate-limit=${options.syncRateLimit}`]),
    // The benchmark's backends listen on 127.0.0.1; the baseline (ac9a183) predates the flag.
    ...(options.which === 'baseline' ? [] : ['--allow-local-backend-addresses']),
    ...(options.flags ?? []),
  ];
  const spawnedAt = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: rootOf(options.which),
    env: { ...readShebangEnv(options.which), ...process.env, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const seen = new Map<string, number>();
  const recent: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    const at = performance.now();
    recent.push(line);
    if (recent.length > 30) recent.shift();
    try {
      const entry = JSON.parse(line) as { msg?: string };
      if (entry.msg !== undefined && !seen.has(entry.msg)) seen.set(entry.msg, at);
    } catch {
      // Not a log line (e.g. a Node warning): kept in `recent` only.
    }
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  const pid = child.pid!;
  return {
    which: options.which,
    pid,
    ports,
    spawnedAt,
    logSeenAt: (text) => {
      for (const [message, at] of seen) if (message.includes(text)) return at;
      return undefined;
    },
    rssMiB: () => readProcessMemory(pid).rss,
    peakRssMiB: () => readProcessMemory(pid).peak,
    memory: () => readProcessMemory(pid),
    metric: async (name, labels = {}) => {
      // Only that metric (a controller that does not know ?name= answers them all): a whole scrape
      // per change would measure the request series' rendering, not the sync.
      const url = `http://127.0.0.1:${ports.healthz}/metrics?name=${encodeURIComponent(name)}`;
      const text = await (await fetch(url)).text();
      return readMetric(text, name, labels);
    },
    metricsText: async (names = []) => {
      const query = names.map((name) => `name=${encodeURIComponent(name)}`).join('&');
      return (
        await fetch(`http://127.0.0.1:${ports.healthz}/metrics${query === '' ? '' : `?${query}`}`)
      ).text();
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
    recentOutput: () => recent.join('\n'),
  };
}

/** The value of one Prometheus sample in `text` (`absent` when there is none, 0 by default). */
export function readMetric(
  text: string,
  name: string,
  labels: Record<string, string> = {},
  absent = 0,
): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match?.[1] !== name) continue;
    const labelText = match[2] ?? '';
    if (wanted.every((pair) => labelText.includes(pair))) return Number(match[3]);
  }
  return absent;
}

/** A GET's outcome: the status, the backend's name (first body line), the TLS certificate. */
export interface Answer {
  status: number;
  body: string;
  /** The server certificate's SHA-256 fingerprint (`AB:CD:…`), over TLS. */
  certificate?: string;
}

/** One GET through nginx on 127.0.0.1 as `host` (SNI too with `tls`), no keep-alive. */
export function get(
  port: number,
  host: string,
  path: string,
  tls = false,
  timeoutMs = 5_000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const common = {
      host: '127.0.0.1',
      port,
      path,
      method: 'GET',
      headers: { host, connection: 'close' },
      agent: false as const,
    };
    const onResponse = (response: IncomingMessage) => {
      let body = '';
      const socket = response.socket as TLSSocket;
      const certificate = tls ? socket.getPeerCertificate?.()?.fingerprint256 : undefined;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: body.trim(),
          ...(certificate === undefined ? {} : { certificate }),
        }),
      );
      response.on('error', reject);
    };
    const request = tls
      ? httpsRequest({ ...common, servername: host, rejectUnauthorized: false }, onResponse)
      : httpRequest(common, onResponse);
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}

/** The prefix of an expected answer that names the served certificate instead of the backend. */
export const CERTIFICATE_ANSWER = 'cert:';

/**
 * Who answered `host` + `path`: the backend's name, the HTTP status, or `error`; with
 * `certificate`, `cert:<fingerprint>` of the certificate nginx presented (TLS only).
 */
export async function answerOf(
  port: number,
  host: string,
  path: string,
  tls = false,
  certificate = false,
): Promise<string> {
  try {
    const answer = await get(port, host, path, tls);
    if (certificate) return `${CERTIFICATE_ANSWER}${answer.certificate ?? 'none'}`;
    return answer.status === 200 ? answer.body : String(answer.status);
  } catch {
    return 'error';
  }
}

/**
 * Polls `host` + `path` every `intervalMs` until `expected` answers; resolves to performance.now()
 * of the first request that saw it. Rejects after `timeoutMs` with the last answer.
 */
export async function waitForAnswer(
  port: number,
  host: string,
  path: string,
  expected: string,
  options: { tls?: boolean; intervalMs?: number; timeoutMs?: number } = {},
): Promise<number> {
  const deadline = performance.now() + (options.timeoutMs ?? 120_000);
  let last = '';
  for (;;) {
    const sentAt = performance.now();
    last = await answerOf(port, host, path, options.tls, expected.startsWith(CERTIFICATE_ANSWER));
    if (last === expected) return sentAt;
    if (performance.now() > deadline)
      throw new Error(
        `${host}${path} still answers ${last}, not ${expected}, after ${options.timeoutMs ?? 120_000} ms`,
      );
    await sleep(options.intervalMs ?? 10);
  }
}

/** Polls `check` until it returns true (or throws after `timeoutMs`). */
export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 120_000,
  intervalMs = 50,
) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // Not up yet.
    }
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/** Runs `nginx -t` on `prefix`/nginx.conf and returns the milliseconds it took. */
export function timeNginxTest(prefix: string): number {
  const start = performance.now();
  const run = spawnSync('/usr/sbin/nginx', ['-t', '-q', '-p', prefix, '-c', join(prefix, 'nginx.conf')], {
    encoding: 'utf8',
  });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`nginx -t failed: ${run.stderr}`);
  return ms;
}
