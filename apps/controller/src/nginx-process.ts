/**
 * nginx as a supervised child process: started in the foreground (`daemon off`, so the child is
 * the master) in a prefix directory the controller owns and in a process group of its own, started
 * again with backoff when it dies (after killing the workers it left behind), reloaded with
 * SIGHUP, and stopped gracefully (SIGQUIT, then SIGKILL after a grace period). Lines nginx writes
 * to stderr (its error log points there) go to the logger.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { computeBackoffDelay, systemClock, type Clock, type Timer } from '@ingresskit/task-queue';
import { NginxStartError } from './errors.js';
import type { Logger } from './logger.js';

const execFileAsync = promisify(execFile);

/** The nginx binary to use when none is configured: Debian's path, else `nginx` on the PATH. */
export function resolveNginxBinary(configured = ''): string {
  if (configured !== '') return configured;
  return existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
}

/**
 * The Debian packages the data plane needs (the stream module for TCP and UDP services, the
 * brotli filter for enable-brotli).
 */
export const NGINX_INSTALL_COMMAND =
  'sudo apt-get install -y nginx libnginx-mod-http-lua libnginx-mod-stream libnginx-mod-http-brotli-filter lua-resty-core lua-cjson';

/** Whether `binary` runs (`nginx -v` succeeds). */
export async function isNginxAvailable(binary: string): Promise<boolean> {
  try {
    await execFileAsync(binary, ['-v']);
    return true;
  } catch {
    return false;
  }
}

/** Runs `nginx -t` on `confPath` within `prefix`; `ok` with nginx's output either way. */
export async function testNginxConfig(
  binary: string,
  prefix: string,
  confPath: string,
): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(binary, ['-t', '-q', '-p', prefix, '-c', confPath], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr || failure.message}` };
  }
}

/** Options of {@link NginxProcess}. */
export interface NginxProcessOptions {
  binary: string;
  /** nginx's `-p`: relative paths in the configuration resolve here. */
  prefix: string;
  /** nginx's `-c`. */
  confPath: string;
  logger: Logger;
  /** First restart delay after an unexpected exit; doubles up to `maxRestartDelayMs`. 500 ms by default. */
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
  /** How long `stop()` waits after SIGQUIT before SIGKILL; 10 s by default. */
  stopTimeoutMs?: number;
  /** Source of the restart and stop timers; task-queue's `systemClock` by default. */
  clock?: Clock;
  /** An unexpected exit (the process will be started again). */
  onUnexpectedExit?: (exit: { code: number | null; signal: NodeJS.Signals | null; stderr: string }) => void;
  /** A new master was spawned after an unexpected exit; the caller re-applies its runtime state. */
  onRestarted?: () => void;
}

/** A supervised nginx master; see the module comment. */
export class NginxProcess {
  readonly #options: NginxProcessOptions;
  readonly #clock: Clock;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  #restartTimer: Timer | undefined;
  /** Restarts since the master was last marked healthy: the backoff attempt of the next one. */
  #restarts = 0;
  #recentStderr: string[] = [];

  constructor(options: NginxProcessOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Spawns nginx; rejects with NginxStartError when the binary cannot be run. */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new NginxStartError(`nginx was already started (${this.#state})`);
    this.#state = 'running';
    await this.#spawn();
  }

  /** PID of the current master, if one runs. */
  get pid(): number | undefined {
    return this.#child?.exitCode === null && this.#child.signalCode === null ? this.#child.pid : undefined;
  }

  /** Whether a master process is alive. */
  isRunning(): boolean {
    return this.pid !== undefined;
  }

  /** The last lines nginx wrote to stderr (for error messages). */
  recentOutput(): string {
    return this.#recentStderr.join('\n');
  }

  /** Asks the master to reload its configuration (SIGHUP); false when no master runs. */
  reload(): boolean {
    const pid = this.pid;
    if (pid === undefined) return false;
    return this.#child?.kill('SIGHUP') ?? false;
  }

  /** Marks the current master as healthy, so the next unexpected exit restarts without delay growth. */
  markHealthy(): void {
    this.#restarts = 0;
  }

  /** PIDs of the master's children (its workers), sorted. */
  async workerPids(): Promise<number[]> {
    const pid = this.pid;
    if (pid === undefined) return [];
    return listChildPids(pid);
  }

  /** Stops nginx for good: SIGQUIT (finish requests), SIGKILL after the timeout. Idempotent. */
  async stop(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'new') {
      this.#state = 'stopped';
      return;
    }
    this.#state = 'stopping';
    this.#restartTimer?.cancel();
    const child = this.#child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT');
      const timer = this.#clock.setTimer(this.#options.stopTimeoutMs ?? 10_000, () => child.kill('SIGKILL'));
      await this.#exited;
      timer.cancel();
    }
    this.#state = 'stopped';
  }

  async #spawn(): Promise<void> {
    const { binary, prefix, confPath, logger } = this.#options;
    const child = spawn(binary, ['-p', prefix, '-c', confPath, '-g', 'daemon off;'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own: Ctrl-C in a terminal signals the whole foreground group, and
      // nginx takes SIGINT as a fast shutdown that drops requests. Only stop() may end nginx.
      detached: true,
    });
    this.#child = child;
    this.#recentStderr = [];
    this.#exited = new Promise((resolve) => child.once('close', () => resolve()));
    for (const stream of [child.stdout, child.stderr]) {
      if (stream === null) continue;
      createInterface({ input: stream }).on('line', (line) => this.#logLine(line));
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) =>
        reject(new NginxStartError(`cannot run ${binary}: ${error.message}`, { cause: error })),
      );
    });
    logger.debug({ pid: child.pid, prefix }, 'nginx master process spawned');
    // Later errors (a signal that cannot be delivered) must not go unhandled.
    child.on('error', (error) => logger.warn({ err: error }, 'nginx process error'));
    child.once('exit', (code, signal) => {
      // Workers outlive a master that was killed: they keep the listening sockets (a new master
      // cannot bind) and serve the old configuration. They are in the master's process group.
      if (child.pid !== undefined) killProcessGroup(child.pid);
      this.#onExit(child, code, signal);
    });
  }

  #onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.#child || this.#state !== 'running') return;
    const stderr = this.recentOutput();
    this.#options.logger.error({ code, signal, stderr }, 'nginx exited unexpectedly; starting it again');
    this.#options.onUnexpectedExit?.({ code, signal, stderr });
    this.#scheduleRestart();
  }

  #scheduleRestart(): void {
    this.#restarts += 1;
    const delay = computeBackoffDelay(
      { initialMs: this.#options.restartDelayMs ?? 500, maxMs: this.#options.maxRestartDelayMs ?? 30_000 },
      this.#restarts,
    );
    this.#restartTimer = this.#clock.setTimer(delay, () => {
      if (this.#state !== 'running') return;
      this.#spawn().then(
        () => this.#options.onRestarted?.(),
        (error: unknown) => {
          this.#options.logger.error({ err: error }, 'nginx could not be started again');
          if (this.#state === 'running') this.#scheduleRestart();
        },
      );
    });
  }

  #logLine(line: string): void {
    if (line.trim() === '') return;
    this.#recentStderr.push(line);
    if (this.#recentStderr.length > 20) this.#recentStderr.shift();
    const level = /\[(debug|info|notice|warn|error|crit|alert|emerg)\]/.exec(line)?.[1] ?? 'error';
    const logger = this.#options.logger;
    const fields = { source: 'nginx' };
    if (level === 'warn') logger.warn(fields, line);
    else if (level === 'error' || level === 'crit' || level === 'alert' || level === 'emerg')
      logger.error(fields, line);
    else logger.debug(fields, line);
  }
}

// SIGKILL to what is left of a process group; nothing is left after a graceful stop.
function killProcessGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group is empty.
  }
}

/** Child PIDs of `pid` from /proc (Linux), sorted; empty when the process is gone. */
export async function listChildPids(pid: number): Promise<number[]> {
  try {
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return text
      .trim()
      .split(/\s+/)
      .filter((entry) => entry !== '')
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}
