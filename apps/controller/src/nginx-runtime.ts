/**
 * The data plane as the controller drives it: one nginx prefix directory, the configuration nginx
 * has loaded, and the backends its Lua balancer has. `apply(configuration)` does the least that
 * brings nginx to that configuration: a structural change is rendered, tested with `nginx -t` on
 * a temporary file, swapped in and reloaded (the reload is confirmed through the status endpoint);
 * an endpoint change is posted to the Lua endpoint only. Whatever fails leaves the last good
 * configuration serving and rejects, so the caller retries.
 */
import { chmod, copyFile, mkdir, mkdtemp, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  BACKENDS_ENDPOINT_PATH,
  STATUS_ENDPOINT_PATH,
  backendsPayload,
  diffConfigurations,
  luaFiles,
  renderNginxConf,
  type Configuration,
  type ConfigurationDiff,
  type RenderOptions,
} from '@ingresskit/nginx-template';
import { BackendsUpdateError, NginxConfigTestError, NginxReloadError, NginxStartError } from './errors.js';
import type { Logger } from './logger.js';
import { NginxProcess, testNginxConfig } from './nginx-process.js';

/** How often the status endpoint is asked whether nginx serves a new configuration yet. */
const statusPollMs = 25;

/** Options of {@link NginxRuntime}. */
export interface NginxRuntimeOptions {
  binary: string;
  /** The prefix directory; a new temporary one (removed by `stop()`) when undefined or empty. */
  prefix?: string;
  httpPort: number;
  httpsPort: number;
  /** Port of the Lua configuration endpoint on 127.0.0.1. */
  statusPort: number;
  /** Addresses nginx listens on for traffic; all IPv4 addresses when empty. */
  listenAddresses?: string[];
  workerProcesses?: number | 'auto';
  /** Write an access log into the prefix (`access.log`); off by default. */
  accessLog?: boolean;
  logger: Logger;
  /** How long a start or reload may take to show up on the status endpoint; 15 s by default. */
  readyTimeoutMs?: number;
  /** Passed to the supervisor. */
  stopTimeoutMs?: number;
  /** nginx died and was started again. */
  onRestart?: () => void;
  /** A restarted nginx is serving the last good configuration and backends again, or failed to. */
  onRecovered?: (error?: unknown) => void;
}

/** What one `apply` did. */
export interface ApplyResult {
  diff: ConfigurationDiff;
  /** nginx was started (first apply, or after it was found dead). */
  started: boolean;
  reloaded: boolean;
  /** The backends were posted to the Lua endpoint. */
  backendsPosted: boolean;
}

interface NginxStatus {
  checksum: string;
  configurationLoads: number;
  backendsVersion: number;
  workerPid: number;
}

/** See the module comment. */
export class NginxRuntime {
  readonly #options: NginxRuntimeOptions;
  readonly #readyTimeoutMs: number;
  #prefix = '';
  #isTemporaryPrefix = false;
  #process: NginxProcess | undefined;
  #loaded: Configuration | undefined;
  #loadedConf: string | undefined;
  #postedPayload: string | undefined;
  #lock: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #reloads = 0;

  constructor(options: NginxRuntimeOptions) {
    this.#options = options;
    this.#readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
  }

  /** The prefix directory (after `prepare()`). */
  get prefix(): string {
    return this.#prefix;
  }

  /** The configuration nginx has loaded, undefined before the first successful apply. */
  get loaded(): Configuration | undefined {
    return this.#loaded;
  }

  /** How many reloads succeeded. */
  get reloadCount(): number {
    return this.#reloads;
  }

  /** PID of the nginx master, if one runs. */
  get masterPid(): number | undefined {
    return this.#process?.pid;
  }

  /** PIDs of nginx's workers. */
  workerPids(): Promise<number[]> {
    return this.#process?.workerPids() ?? Promise.resolve([]);
  }

  /** Whether nginx runs with a loaded configuration. */
  isServing(): boolean {
    return this.#loaded !== undefined && this.#process?.isRunning() === true;
  }

  /** Creates the prefix directory with the Lua files and the certificate directory. */
  async prepare(): Promise<void> {
    if (this.#options.prefix) {
      this.#prefix = resolve(this.#options.prefix);
      await mkdir(this.#prefix, { recursive: true });
    } else {
      this.#prefix = await mkdtemp(join(tmpdir(), 'ingresskit-'));
      this.#isTemporaryPrefix = true;
    }
    // When the controller runs as root, nginx's workers run as nobody and must reach the temp
    // directories nginx creates in the prefix.
    await chmod(this.#prefix, 0o755);
    for (const file of luaFiles) {
      const target = join(this.#prefix, 'lua', file.relativePath);
      await mkdir(dirname(target), { recursive: true });
      await copyFile(file.path, target);
    }
    await mkdir(join(this.#prefix, 'certs'), { recursive: true, mode: 0o700 });
  }

  /** Renders `configuration` with this runtime's paths and ports. */
  render(configuration: Configuration): string {
    return renderNginxConf(configuration, this.#renderOptions());
  }

  /** Brings nginx to `configuration`; see the module comment. Calls are serialized. */
  apply(configuration: Configuration): Promise<ApplyResult> {
    return this.#exclusive(() => this.#apply(configuration));
  }

  /** Stops nginx and removes a temporary prefix. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#exclusive(async () => {
      await this.#process?.stop();
      if (this.#isTemporaryPrefix && this.#prefix !== '')
        await rm(this.#prefix, { recursive: true, force: true });
    });
  }

  /** Reads nginx's status endpoint; undefined when nginx does not answer. */
  async readStatus(): Promise<NginxStatus | undefined> {
    try {
      const response = await fetch(`http://127.0.0.1:${this.#options.statusPort}${STATUS_ENDPOINT_PATH}`, {
        signal: AbortSignal.timeout(2_000),
      });
      if (response.status !== 200) return undefined;
      return (await response.json()) as NginxStatus;
    } catch {
      return undefined;
    }
  }

  #renderOptions(): RenderOptions {
    const prefix = this.#prefix;
    return {
      httpPort: this.#options.httpPort,
      httpsPort: this.#options.httpsPort,
      statusPort: this.#options.statusPort,
      ...(this.#options.listenAddresses === undefined
        ? {}
        : { listenAddresses: this.#options.listenAddresses }),
      workerProcesses: this.#options.workerProcesses ?? 'auto',
      sslCertificateDir: join(prefix, 'certs'),
      luaDir: join(prefix, 'lua'),
      pidPath: join(prefix, 'nginx.pid'),
      // nginx writes its error log to file descriptor 2, which the controller reads line by line
      // (opening /dev/stderr fails when that descriptor is a socket, as with Node child processes).
      errorLogPath: 'stderr',
      accessLogPath: this.#options.accessLog ? join(prefix, 'access.log') : false,
    };
  }

  async #apply(next: Configuration): Promise<ApplyResult> {
    if (this.#stopped) throw new NginxReloadError('the data plane is stopped');
    const needsStart = this.#process === undefined || !this.#process.isRunning();
    // A dead nginx (and no supervisor restart pending) is started from scratch with `next`.
    const diff = diffConfigurations(needsStart ? undefined : this.#loaded, next);
    const result: ApplyResult = { diff, started: false, reloaded: false, backendsPosted: false };
    if (needsStart) {
      await this.#start(next);
      result.started = true;
    } else if (diff.reloadRequired) {
      await this.#reload(next);
      result.reloaded = true;
    }
    const payload = backendsPayload(next);
    if (payload !== this.#postedPayload) {
      await this.#postBackends(payload);
      result.backendsPosted = true;
    }
    return result;
  }

  async #writeAndTest(next: Configuration): Promise<string> {
    await this.#writeCertificates(next);
    const conf = this.render(next);
    const candidate = join(this.#prefix, `nginx.conf.new`);
    await writeFile(candidate, conf);
    const test = await testNginxConfig(this.#options.binary, this.#prefix, candidate);
    if (!test.ok) {
      // Kept for whoever investigates; the next candidate overwrites it.
      await rename(candidate, join(this.#prefix, 'nginx.conf.rejected')).catch(() => undefined);
      throw new NginxConfigTestError(test.output);
    }
    await rename(candidate, this.#confPath());
    return conf;
  }

  async #start(next: Configuration): Promise<void> {
    await this.#process?.stop();
    this.#process = undefined;
    this.#loaded = undefined;
    this.#postedPayload = undefined;
    const conf = await this.#writeAndTest(next);
    const process = new NginxProcess({
      binary: this.#options.binary,
      prefix: this.#prefix,
      confPath: this.#confPath(),
      logger: this.#options.logger,
      ...(this.#options.stopTimeoutMs === undefined ? {} : { stopTimeoutMs: this.#options.stopTimeoutMs }),
      onUnexpectedExit: () => this.#options.onRestart?.(),
      onRestarted: () => void this.#exclusive(() => this.#recover()),
    });
    await process.start();
    this.#process = process;
    try {
      await this.#waitForChecksum(next.checksum, 'nginx to start');
    } catch (error) {
      await process.stop();
      this.#process = undefined;
      throw new NginxStartError(`nginx did not start serving: ${process.recentOutput() || String(error)}`, {
        cause: error,
      });
    }
    process.markHealthy();
    this.#loaded = next;
    this.#loadedConf = conf;
    await this.#removeUnusedCertificates(next);
  }

  async #reload(next: Configuration): Promise<void> {
    const conf = await this.#writeAndTest(next);
    const process = this.#process;
    if (process === undefined || !process.reload()) throw new NginxReloadError('nginx is not running');
    try {
      await this.#waitForChecksum(next.checksum, 'nginx to reload');
    } catch (error) {
      // Put the last good file back so that a restart of nginx does not load the failed one.
      if (this.#loadedConf !== undefined) await writeFile(this.#confPath(), this.#loadedConf);
      throw new NginxReloadError(
        `nginx did not load the new configuration: ${process.recentOutput() || String(error)}`,
        {
          cause: error,
        },
      );
    }
    this.#reloads += 1;
    this.#loaded = next;
    this.#loadedConf = conf;
    await this.#removeUnusedCertificates(next);
  }

  // After the supervisor started nginx again: its shared dict is empty, so post the backends again.
  async #recover(): Promise<void> {
    if (this.#stopped || this.#loaded === undefined) return;
    try {
      await this.#waitForChecksum(this.#loaded.checksum, 'the restarted nginx');
      this.#process?.markHealthy();
      const payload = this.#postedPayload ?? backendsPayload(this.#loaded);
      this.#postedPayload = undefined;
      await this.#postBackends(payload);
      this.#options.onRecovered?.();
    } catch (error) {
      this.#options.onRecovered?.(error);
    }
  }

  async #postBackends(payload: string): Promise<void> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) await sleep(100 * 2 ** attempt);
      try {
        const response = await fetch(
          `http://127.0.0.1:${this.#options.statusPort}${BACKENDS_ENDPOINT_PATH}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: payload,
            signal: AbortSignal.timeout(5_000),
          },
        );
        const text = await response.text();
        if (response.status === 201) {
          this.#postedPayload = payload;
          return;
        }
        lastError = new BackendsUpdateError(`the Lua endpoint answered ${response.status}: ${text.trim()}`);
        if (response.status === 400) break;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError instanceof BackendsUpdateError
      ? lastError
      : new BackendsUpdateError(`cannot post backends to nginx: ${String(lastError)}`, { cause: lastError });
  }

  async #waitForChecksum(checksum: string, what: string): Promise<void> {
    const deadline = Date.now() + this.#readyTimeoutMs;
    for (;;) {
      if (this.#process !== undefined && !this.#process.isRunning())
        throw new NginxReloadError(`nginx exited while waiting for ${what}`);
      const status = await this.readStatus();
      if (status?.checksum === checksum) return;
      if (Date.now() > deadline) throw new NginxReloadError(`timed out waiting for ${what}`);
      // A flat, short poll: the wait is part of every change's latency, and the status endpoint is cheap.
      await sleep(statusPollMs);
    }
  }

  async #writeCertificates(next: Configuration): Promise<void> {
    for (const certificate of next.certificates) {
      // Names derive from the content, so an existing file already holds these bytes.
      await writeFile(join(this.#prefix, 'certs', certificate.fileName), certificate.pem, {
        mode: 0o600,
        flag: 'wx',
      }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    }
  }

  async #removeUnusedCertificates(loaded: Configuration): Promise<void> {
    const keep = new Set(loaded.certificates.map((certificate) => certificate.fileName));
    const dir = join(this.#prefix, 'certs');
    for (const file of await readdir(dir)) {
      if (!keep.has(file)) await unlink(join(dir, file)).catch(() => undefined);
    }
  }

  #confPath(): string {
    return join(this.#prefix, 'nginx.conf');
  }

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(task, task);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
