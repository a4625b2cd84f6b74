/**
 * Load through nginx for the routing-throughput and churn scenarios: a bare nginx on a generated
 * configuration (the backend that answers `return 200`, or a pure native routing config with
 * static upstreams and no Lua), and `wrk` with a Lua script that spreads requests over many
 * hosts, reporting requests/s, p50/p99 and errors. Processes can be pinned to CPUs with `taskset`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** A running bare nginx. */
export interface NginxInstance {
  pid: number;
  prefix: string;
  stop: () => Promise<void>;
}

/** `taskset -c CPUS command …` when `cpus` is set. */
function pinned(cpus: string | undefined, command: string, args: string[]): [string, string[]] {
  return cpus === undefined || cpus === '' ? [command, args] : ['taskset', ['-c', cpus, command, ...args]];
}

/** Where the proxy, the backend and the load generator run (`taskset -c` lists); unset = anywhere. */
export interface Pinning {
  proxy?: string;
  backend?: string;
  load?: string;
}

/**
 * BENCH_PIN as `proxy=0,backend=1,load=1`; none by default (`off`). On 2 cores, pinning the
 * proxy's 2 workers to one CPU and the backend and wrk to the other cut requests/s by a third and
 * raised p99 from about 5 ms to about 100 ms (the workers queue behind each other), so the
 * scheduler places the processes unless asked otherwise.
 */
export function readPinning(): Pinning {
  const raw = process.env.BENCH_PIN ?? 'off';
  if (raw === 'off' || raw === '') return {};
  return Object.fromEntries(
    raw.split(',').map((pair) => pair.split('=').map((part) => part.trim()) as [string, string]),
  );
}

/** Pins `pid` and every process below it (all threads) to `cpus`; nothing when `cpus` is unset. */
export function pinProcessTree(pid: number, cpus: string | undefined): void {
  if (cpus === undefined || cpus === '') return;
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    try {
      const children = readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8').trim();
      if (children !== '') pids.push(...children.split(/\s+/).map(Number));
    } catch {
      // Gone meanwhile.
    }
  }
  for (const each of pids) spawnSync('taskset', ['-a', '-p', '-c', cpus, String(each)], { stdio: 'ignore' });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`. */
export async function waitForPort(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (performance.now() > deadline) throw new Error(`nothing listens on ${port} after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/**
 * Writes `conf` to `prefix`/nginx.conf and runs nginx on it in the foreground (pinned to `cpus`
 * with taskset when given) until `port` accepts connections.
 */
export async function startNginx(
  prefix: string,
  conf: string,
  port: number,
  cpus?: string,
): Promise<NginxInstance> {
  // nginx creates the temp directories the generated configs name (tmp/…), not their parent.
  mkdirSync(join(prefix, 'tmp'), { recursive: true });
  // Workers run as nobody when nginx starts as root.
  chmodSync(prefix, 0o755);
  chmodSync(join(prefix, 'tmp'), 0o777);
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  const [command, args] = pinned(cpus, '/usr/sbin/nginx', [
    '-p',
    prefix,
    '-c',
    join(prefix, 'nginx.conf'),
    '-g',
    'daemon off;',
  ]);
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGQUIT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await Promise.race([
      waitForPort(port),
      exited.then(() => {
        throw new Error(`nginx exited: ${stderr}`);
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { pid: child.pid!, prefix, stop };
}

/** The directives every generated config shares: pid, logs, temp paths inside the prefix. */
function mainDirectives(workers: number | 'auto', workerConnections: number): string {
  return `pid nginx.pid;
error_log stderr warn;
worker_processes ${workers};
events {
    worker_connections ${workerConnections};
}
`;
}

const TEMP_PATHS = `    client_body_temp_path tmp/body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;`;

/** A backend that answers every request `200 ok` from one worker, keeping connections open. */
export function backendConf(port: number): string {
  return `${mainDirectives(1, 16_384)}http {
${TEMP_PATHS}
    access_log off;
    keepalive_timeout 300s;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:${port} default_server;
        location / {
            return 200 "ok\\n";
        }
    }
}
`;
}

/**
 * nginx routing `hosts` × one Prefix path natively: one server block per host with the two
 * locations a Prefix path needs (`= /p` and `/p/`), one static upstream per host with keep-alive,
 * the same proxy headers as the old rendered config, and a default server answering 404. No Lua.
 */
export function nativeRoutingConf(options: {
  hosts: readonly string[];
  path: string;
  listenPort: number;
  backendPort: number;
  workers: number | 'auto';
}): string {
  const { hosts, path, listenPort, backendPort } = options;
  const upstreams = hosts
    .map(
      (_, i) => `    upstream backend_${i} {
        server 127.0.0.1:${backendPort};
        keepalive 4;
    }`,
    )
    .join('\n');
  const servers = hosts
    .map(
      (host, i) => `    server {
        listen 127.0.0.1:${listenPort};
        server_name ${host};
        location = ${path} {
            proxy_pass http://backend_${i};
        }
        location ${path}/ {
            proxy_pass http://backend_${i};
        }
    }`,
    )
    .join('\n');
  return `${mainDirectives(options.workers, 16_384)}http {
${TEMP_PATHS}
    access_log off;
    server_tokens off;
    keepalive_timeout 75s;
    server_names_hash_max_size ${Math.max(512, hosts.length * 2)};
    server_names_hash_bucket_size 128;
    proxy_http_version 1.1;
    proxy_buffering on;
    proxy_set_header Host $host;
    proxy_set_header Connection "";
    proxy_set_header X-Real-IP $remote_addr;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Host $host;
    proxy_set_header X-Forwarded-Port $server_port;
    proxy_set_header X-Forwarded-Proto $scheme;
    # What ingress-nginx's locations send too (generate-request-id is on by default), and so
    # ingresskit's: the same request upstream on both sides.
    proxy_set_header X-Forwarded-Scheme $scheme;
    proxy_set_header X-Request-ID $request_id;
${upstreams}
    server {
        listen 127.0.0.1:${listenPort} default_server;
        location / {
            return 404;
        }
    }
${servers}
}
`;
}

/** What one wrk run measured. */
export interface WrkResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Responses with a status of 400 or above. */
  badStatus: number;
  /** connect + read + write errors and timeouts. */
  socketErrors: number;
}

/** Options of {@link runWrk}. */
export interface WrkOptions {
  port: number;
  hosts: readonly string[];
  path: string;
  seconds: number;
  connections: number;
  threads: number;
  /** Where the Lua script is written. */
  dir: string;
  cpus?: string;
  /**
   * Milliseconds each connection waits between requests (wrk's `delay()`), for a steady
   * background load instead of a saturating one; 0 by default.
   */
  delayMs?: number;
}

/**
 * The wrk Lua script: requests pre-formatted for every host, taken round-robin from a different
 * start per thread, and a `done` that prints the figures as one JSON line.
 */
function wrkScript(hosts: readonly string[], path: string, delayMs: number): string {
  return `local hosts = { ${hosts.map((host) => `"${host}"`).join(', ')} }
local requests = {}
local next_index = 1
local threads = {}

function setup(thread)
  thread:set("start", #threads * 7919)
  table.insert(threads, thread)
end

function init(args)
  for i, host in ipairs(hosts) do
    requests[i] = wrk.format("GET", "${path}", { Host = host })
  end
  next_index = (start % #hosts) + 1
end

function request()
  local r = requests[next_index]
  next_index = next_index % #hosts + 1
  return r
end
${delayMs > 0 ? `\nfunction delay()\n  return ${delayMs}\nend\n` : ''}
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"status":%d,"socket":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
`;
}

/** Runs wrk against 127.0.0.1:`port` with requests spread over `hosts`. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const script = join(options.dir, `wrk-${options.hosts.length}-${options.delayMs ?? 0}.lua`);
  writeFileSync(script, wrkScript(options.hosts, options.path, options.delayMs ?? 0));
  const [command, args] = pinned(options.cpus, 'wrk', [
    `-t${options.threads}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout',
    '5s',
    '-s',
    script,
    `http://127.0.0.1:${options.port}`,
  ]);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`)),
    );
  });
  const line = output.split('\n').find((entry) => entry.startsWith('WRK_JSON '));
  if (line === undefined) throw new Error(`wrk printed no figures: ${output}`);
  const raw = JSON.parse(line.slice('WRK_JSON '.length)) as Record<string, number>;
  const seconds = raw.duration_us! / 1e6;
  return {
    requests: raw.requests!,
    seconds,
    requestsPerSecond: raw.requests! / seconds,
    p50Ms: raw.p50_us! / 1000,
    p99Ms: raw.p99_us! / 1000,
    maxMs: raw.max_us! / 1000,
    badStatus: raw.status!,
    socketErrors: raw.socket!,
  };
}

/** CPU ticks (USER_HZ) of `pid` from /proc/PID/stat: utime + stime, plus reaped children with `children`. */
function cpuTicksOf(pid: number, children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const at = (field: number) => Number(fields[field - 3]);
    return at(14) + at(15) + (children ? at(16) + at(17) : 0);
  } catch {
    return 0;
  }
}

function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift()!;
    try {
      const children = readFileSync(`/proc/${current}/task/${current}/children`, 'utf8').trim();
      if (children === '') continue;
      for (const child of children.split(/\s+/).map(Number)) {
        found.push(child);
        queue.push(child);
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Busy and total ticks of the whole machine, and the ticks of this process and everything below it. */
function readCpu(): { busy: number; total: number; ours: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
    values.map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  const ours =
    cpuTicksOf(process.pid, true) + descendantsOf(process.pid).reduce((sum, pid) => sum + cpuTicksOf(pid), 0);
  return { busy, total: busy + idle + iowait, ours };
}

/**
 * Runs `fn` and says how much of the machine's CPU went to processes that are not this one or
 * below it (other people's work on a shared machine) meanwhile, as a share of all CPUs.
 */
export async function measureForeignCpu<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; foreignShare: number }> {
  const before = readCpu();
  const result = await fn();
  const after = readCpu();
  const total = after.total - before.total;
  const foreign = after.busy - before.busy - (after.ours - before.ours);
  return { result, foreignShare: total > 0 ? Math.max(0, foreign / total) : 0 };
}
