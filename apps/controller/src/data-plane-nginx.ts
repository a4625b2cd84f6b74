/**
 * The nginx of a prefix and the nginx.conf it runs: starts it, reloads it (at most once per
 * `reloadMinIntervalMs`) and counts as done only when the status endpoint shows the new nginx.conf.
 */
import { writeFile } from 'node:fs/promises';
import { renderNginxConf, type Configuration } from '@ingresskit/nginx-template';
import { systemClock } from '@ingresskit/task-queue';
import { sleep, waitForConfiguration } from './data-plane-control.js';
import { removeStaleSockets, writeConfigurationFiles, writeTestedConf } from './data-plane-prefix.js';
import { confPathOf, controlSocketPathOf } from './data-plane-render-options.js';
import { NginxReloadError, NginxStartError } from './errors.js';
import type { Logger } from './logger.js';
import { NginxProcess } from './nginx-process.js';

/** Options of {@link NginxRunner}. */
export interface NginxRunnerOptions {
  binary: string;
  /** The prefix directory, read at each start and reload (it is known only once prepared). */
  readPrefix: () => string;
  logger: Logger;
  /** Least time between two reloads (0: none). */
  reloadMinIntervalMs?: number;
  /** How long a start or reload may take to show up on the status endpoint; 15 s by default. */
  readyTimeoutMs?: number;
  stopTimeoutMs?: number;
  /** nginx exited unexpectedly; its supervisor starts it again. */
  onUnexpectedExit: () => void;
  /** nginx was started again after an unexpected exit. */
  onRestarted: () => void;
}

/** Starts and reloads the nginx of one prefix, and waits until it serves the new nginx.conf. */
export class NginxRunner {
  readonly #options: NginxRunnerOptions;
  #process: NginxProcess | undefined;
  #running: Configuration | undefined;
  #runningConf: string | undefined;
  #lastReloadAt = 0;
  #reloads = 0;

  constructor(options: NginxRunnerOptions) {
    this.#options = options;
  }

  /** The configuration the running nginx.conf was rendered from. */
  get configuration(): Configuration | undefined {
    return this.#running;
  }

  /** The nginx.conf nginx runs. */
  get nginxConf(): string | undefined {
    return this.#runningConf;
  }

  /** How many reloads succeeded. */
  get reloadCount(): number {
    return this.#reloads;
  }

  /** PID of the nginx master, if one runs. */
  get masterPid(): number | undefined {
    return this.#process?.pid;
  }

  /** Whether an nginx master runs. */
  isRunning(): boolean {
    return this.#process?.isRunning() === true;
  }

  /** PIDs of nginx's workers. */
  workerPids(): Promise<number[]> {
    return this.#process?.workerPids() ?? Promise.resolve([]);
  }

  /** Stops nginx, if it runs, and forgets it and what it ran: the next step is {@link start}. */
  async discard(): Promise<void> {
    await this.#process?.stop();
    this.#process = undefined;
    this.#running = undefined;
  }

  /** Stops nginx, if it runs; what it ran stays readable. */
  async stop(): Promise<void> {
    await this.#process?.stop();
  }

  /**
   * Writes and tests nginx.conf for `next` and starts nginx on it; resolves once nginx serves it.
   * Rejects with NginxConfigTestError or NginxStartError, leaving no nginx running.
   */
  async start(next: Configuration): Promise<void> {
    const prefix = this.#options.readPrefix();
    const conf = await this.#writeAndTest(next);
    await removeStaleSockets(prefix);
    const process = new NginxProcess({
      binary: this.#options.binary,
      prefix,
      confPath: confPathOf(prefix),
      logger: this.#options.logger,
      ...(this.#options.stopTimeoutMs === undefined ? {} : { stopTimeoutMs: this.#options.stopTimeoutMs }),
      onUnexpectedExit: () => {
        this.#options.onUnexpectedExit();
        // A killed master leaves its unix socket behind, and a new one cannot bind over it.
        void removeStaleSockets(prefix);
      },
      onRestarted: () => this.#options.onRestarted(),
    });
    await process.start();
    this.#process = process;
    try {
      await this.#waitForConfiguration(next.configHash, 'nginx to start');
    } catch (error) {
      await process.stop();
      this.#process = undefined;
      throw new NginxStartError(`nginx did not start serving: ${process.recentOutput() || String(error)}`, {
        cause: error,
      });
    }
    process.markHealthy();
    this.#running = next;
    this.#runningConf = conf;
    this.#lastReloadAt = systemClock.now();
  }

  /**
   * Writes and tests nginx.conf for `next` and reloads nginx; resolves once nginx serves it.
   * Rejects with NginxConfigTestError or NginxReloadError, leaving the last good nginx.conf running.
   */
  async reload(next: Configuration): Promise<void> {
    const wait = this.#lastReloadAt + (this.#options.reloadMinIntervalMs ?? 0) - systemClock.now();
    if (wait > 0) await sleep(wait);
    const conf = await this.#writeAndTest(next);
    const process = this.#process;
    if (process === undefined || !process.reload()) throw new NginxReloadError('nginx is not running');
    try {
      await this.#waitForConfiguration(next.configHash, 'nginx to reload');
    } catch (error) {
      // Put the last good file back so that a restart of nginx does not load the failed one.
      if (this.#runningConf !== undefined)
        await writeFile(confPathOf(this.#options.readPrefix()), this.#runningConf);
      throw new NginxReloadError(
        `nginx did not load the new configuration: ${process.recentOutput() || String(error)}`,
        {
          cause: error,
        },
      );
    }
    this.#reloads += 1;
    this.#lastReloadAt = systemClock.now();
    this.#running = next;
    this.#runningConf = conf;
  }

  async #writeAndTest(next: Configuration): Promise<string> {
    const conf = renderNginxConf(next);
    await writeConfigurationFiles(this.#options.readPrefix(), next);
    await writeTestedConf(this.#options.binary, this.#options.readPrefix(), conf);
    return conf;
  }

  #waitForConfiguration(configHash: string, what: string): Promise<void> {
    return waitForConfiguration(controlSocketPathOf(this.#options.readPrefix()), configHash, what, {
      timeoutMs: this.#options.readyTimeoutMs ?? 15_000,
      hasExited: () => this.#process !== undefined && !this.#process.isRunning(),
    });
  }
}
