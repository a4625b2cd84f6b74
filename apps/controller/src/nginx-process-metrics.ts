/**
 * ingress-nginx's nginx_process_* metrics under its names: the CPU, memory, storage I/O, count
 * and oldest start time of nginx's master and its children (from /proc), and nginx's connection
 * and request counters (its stub_status, on the control socket). Read when Prometheus scrapes.
 */
import type { ControllerLabels, NginxStatus } from '@ingresskit/nginx-template';
import type { Registry } from 'prom-client';
import { readBootTime, readProcessStats, type ProcessStats } from './process-stats.js';
import { registerScrapedMetric, shareReadPerScrape, type ScrapedValue } from './scraped-metric.js';

const PREFIX = 'nginx_ingress_controller_nginx_process_';

/** Where the processes and counters come from. */
export interface NginxProcessSource {
  /** The master's PID and its children's; empty while nginx does not run. */
  pids(): Promise<number[]>;
  /** nginx's counters; undefined while nginx does not answer. */
  readStatus(): Promise<NginxStatus | undefined>;
}

/** CPU and I/O summed over every nginx process seen, those that exited included. */
export interface ProcessTotals {
  cpuSeconds: number;
  readBytes: number;
  writeBytes: number;
}

type Counted = keyof ProcessTotals;
const COUNTED: Counted[] = ['cpuSeconds', 'readBytes', 'writeBytes'];

/**
 * Sums processes' CPU and I/O into counters that never go down, as ingress-nginx's (its process
 * collector keeps what processes that exited had used): a reload replaces every worker, and a sum
 * over the living processes alone would drop at each one. `add` takes the processes of one
 * moment; what a process did since the previous moment is added. A process is known by PID and
 * start time, so a reused PID counts as new.
 */
export function createProcessTotals(): { add(processes: ProcessStats[]): ProcessTotals } {
  const totals: ProcessTotals = { cpuSeconds: 0, readBytes: 0, writeBytes: 0 };
  let seen = new Map<string, ProcessStats>();
  return {
    add(processes) {
      const now = new Map<string, ProcessStats>();
      for (const process of processes) {
        const key = `${process.pid}@${process.startTimeSeconds}`;
        const before = seen.get(key);
        for (const field of COUNTED) totals[field] += Math.max(0, process[field] - (before?.[field] ?? 0));
        now.set(key, process);
      }
      seen = now;
      return { ...totals };
    },
  };
}

/** One scrape: the living processes, the totals and nginx's counters. */
interface Scrape {
  processes: ProcessStats[];
  totals: ProcessTotals;
  status: NginxStatus | undefined;
}

/** Registers the metrics in `registry`, reading `source` once per scrape. */
export function registerNginxProcessMetrics(
  registry: Registry,
  source: NginxProcessSource,
  controller: ControllerLabels,
): void {
  const totals = createProcessTotals();
  let bootTime: Promise<number | undefined> | undefined;
  const scrape = shareReadPerScrape(async (): Promise<Scrape | undefined> => {
    bootTime ??= readBootTime();
    const [boot, pids, status] = await Promise.all([bootTime, source.pids(), source.readStatus()]);
    if (boot === undefined || pids.length === 0) return undefined;
    const processes = (await Promise.all(pids.map((pid) => readProcessStats(pid, boot)))).filter(
      (process) => process !== undefined,
    );
    if (processes.length === 0) return undefined;
    return { processes, totals: totals.add(processes), status };
  });
  const labels = { ...controller };
  const register = (
    name: string,
    help: string,
    type: 'counter' | 'gauge',
    value: (scrape: Scrape) => number | ScrapedValue[] | undefined,
  ) =>
    registerScrapedMetric(registry, `${PREFIX}${name}`, help, type, async () => {
      const current = await scrape();
      const result = current === undefined ? undefined : value(current);
      if (result === undefined) return [];
      return typeof result === 'number' ? [{ labels, value: result }] : result;
    });
  const sum = (processes: ProcessStats[], field: 'residentBytes' | 'virtualBytes') =>
    processes.reduce((total, process) => total + process[field], 0);
  // ingress-nginx's help texts, word for word: dashboards show them.
  register('num_procs', 'number of processes', 'gauge', ({ processes }) => processes.length);
  register('cpu_seconds_total', 'Cpu usage in seconds', 'counter', ({ totals }) => totals.cpuSeconds);
  register('read_bytes_total', 'number of bytes read', 'counter', ({ totals }) => totals.readBytes);
  register('write_bytes_total', 'number of bytes written', 'counter', ({ totals }) => totals.writeBytes);
  register('resident_memory_bytes', 'number of bytes of memory in use', 'gauge', ({ processes }) =>
    sum(processes, 'residentBytes'),
  );
  register('virtual_memory_bytes', 'number of bytes of memory in use', 'gauge', ({ processes }) =>
    sum(processes, 'virtualBytes'),
  );
  register('oldest_start_time_seconds', 'start time in seconds since 1970/01/01', 'gauge', ({ processes }) =>
    Math.floor(Math.min(...processes.map((process) => process.startTimeSeconds))),
  );
  register(
    'connections',
    'current number of client connections with state {active, reading, writing, waiting}',
    'gauge',
    ({ status }) =>
      status &&
      (['active', 'reading', 'writing', 'waiting'] as const).map((state) => ({
        labels: { ...labels, state },
        value: status[state],
      })),
  );
  register(
    'connections_total',
    'total number of connections with state {accepted, handled}',
    'counter',
    ({ status }) =>
      status &&
      (['accepted', 'handled'] as const).map((state) => ({
        labels: { ...labels, state },
        value: status[state],
      })),
  );
  register('requests_total', 'total number of client requests', 'counter', ({ status }) => status?.requests);
}
