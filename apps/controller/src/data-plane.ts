/**
 * The nginx data plane as the controller drives it. Route table deltas are staged as data entries
 * (one per virtual host, TLS binding, certificate and backend); `flush()` brings nginx there with
 * the least work: it pushes the changed entries to nginx's control socket, and touches nginx.conf
 * only when the listeners or the settings change (a reload, at most once per
 * `reloadMinIntervalMs`): never for a route. A fresh or restarted nginx gets everything in one
 * full push before it counts as serving; until then it answers 503. Whatever fails stays staged
 * and the caller retries; nginx keeps serving what it had.
 */
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import {
  renderNginxConf,
  type Configuration,
  type DataPlaneAccepted,
  type DataPlaneStatus,
  type NginxStatus,
  type RenderOptions,
  type RequestMetrics,
  type StreamService,
} from '@ingresskit/nginx-template';
import type { Listener, RouteTable, RouteTableDelta } from '@ingresskit/route-model';
import type { ConfigMapNginxSettings } from '@ingresskit/ingress-routes';
import { TlsRelay, TlsRelayError } from '@ingresskit/tcp-proxy';
import {
  pushData,
  readDigest,
  readNginxStatus,
  readRequestMetrics,
  readStatus,
  type PushOutcome,
} from './data-plane-control.js';
import { startDriftChecks, type DriftChecks } from './data-plane-drift.js';
import { NginxRunner, type NginxRunnerOptions } from './data-plane-nginx.js';
import { preparePrefix } from './data-plane-prefix.js';
import { needsReload } from './data-plane-configuration.js';
import { StagedRoutes } from './data-plane-staging.js';
import {
  controlSocketPathOf,
  nginxRenderOptions,
  renderOptionsOfConfigMap,
  type NginxPrefixOptions,
} from './data-plane-render-options.js';
import { DataPlaneFullError, DataPlanePushError, NginxReloadError } from './errors.js';
import type { RefusedRoute } from '@ingresskit/route-table';
import { PushedContent } from './pushed-content.js';

/** Options of {@link NginxDataPlane}. */
export interface NginxDataPlaneOptions
  extends
    NginxPrefixOptions,
    Pick<
      NginxRunnerOptions,
      'binary' | 'logger' | 'reloadMinIntervalMs' | 'readyTimeoutMs' | 'stopTimeoutMs'
    > {
  /** The prefix directory; a new temporary one (removed by `stop()`) when undefined or empty. */
  prefix?: string;
  httpPort: number;
  httpsPort: number;
  /** The listeners nginx starts with; later ones come with the staged deltas. */
  listeners?: Listener[];
  /** The whole route table the staged deltas lead to: what a full push sends. */
  readTable: () => RouteTable;
  /** Extra nginx.conf options (resolvers, timeouts, ...). */
  renderOptions?: Partial<RenderOptions>;
  /** nginx died and was started again. */
  onRestart?: () => void;
  /** nginx lost the pushed data (restart, drift): the caller should sync so `flush()` re-pushes. */
  onDrift?: (reason: string) => void;
  /** How often the content of nginx's data is checked (see checkContent); 30 s by default. */
  contentCheckMs?: number;
}

/** What one `flush` did. */
export interface DataPlaneFlush {
  started: boolean;
  reloaded: boolean;
  /** Data was pushed (a delta or, after a start, everything). */
  pushed: boolean;
  /** Routes nginx refused; nothing was pushed. */
  refused: RefusedRoute[];
}

/** Stages route table changes and brings nginx to them with the least work. */
export class NginxDataPlane {
  readonly #options: NginxDataPlaneOptions;
  #configMapSettings: ConfigMapNginxSettings = {};
  #streamServices: StreamService[] = [];
  #prefix = '';
  #isTemporaryPrefix = false;
  readonly #nginx: NginxRunner;
  /** What nginx does not have yet, with the listeners nginx.conf needs for it. */
  readonly #staged: StagedRoutes;
  /** The nginx instance that holds all desired data but the dirty keys; undefined: push everything. */
  #syncedInstance: string | undefined;
  #lock: Promise<unknown> = Promise.resolve();
  #driftChecks: DriftChecks | undefined;
  /** What the pushes left in nginx, to tell a drift (see PushedContent). */
  readonly #content = new PushedContent();
  /** Why the next full push is a repair, to report what it rewrote. */
  #repairing: string | undefined;
  #stopped = false;
  /** TLS towards the backends of routes with a backend TLS policy (its sockets: StagedRoutes.relaySockets). */
  readonly #relay: TlsRelay;

  constructor(options: NginxDataPlaneOptions) {
    this.#options = options;
    this.#staged = new StagedRoutes(options.listeners ?? []);
    this.#nginx = new NginxRunner({
      binary: options.binary,
      readPrefix: () => this.#prefix,
      logger: options.logger,
      ...(options.reloadMinIntervalMs === undefined
        ? {}
        : { reloadMinIntervalMs: options.reloadMinIntervalMs }),
      ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
      ...(options.stopTimeoutMs === undefined ? {} : { stopTimeoutMs: options.stopTimeoutMs }),
      onUnexpectedExit: () => {
        this.#syncedInstance = undefined;
        this.#options.onRestart?.();
      },
      onRestarted: () => this.#options.onDrift?.('nginx restarted'),
    });
    this.#relay = new TlsRelay({
      logger: options.logger,
      onRestart: () => this.#options.onDrift?.('the TLS relay restarted'),
    });
  }

  /** The prefix directory (after `prepare()`). */
  get prefix(): string {
    return this.#prefix;
  }

  /** The configuration the running nginx.conf was rendered from. */
  get configuration(): Configuration | undefined {
    return this.#nginx.configuration;
  }

  /** The nginx.conf nginx runs. */
  get nginxConf(): string | undefined {
    return this.#nginx.nginxConf;
  }

  /** How many reloads succeeded. */
  get reloadCount(): number {
    return this.#nginx.reloadCount;
  }

  /** PID of the nginx master, if one runs. */
  get masterPid(): number | undefined {
    return this.#nginx.masterPid;
  }

  /** PIDs of nginx's workers. */
  workerPids(): Promise<number[]> {
    return this.#nginx.workerPids();
  }

  /** Why nginx does not serve the desired routes, or undefined when it does. */
  notServingReason(): string | undefined {
    if (!this.#nginx.isRunning()) return 'nginx is not running';
    if (this.#syncedInstance === undefined) return 'nginx has not received the routes yet';
    return undefined;
  }

  /** Whether nginx holds exactly the staged data: nothing left to push, and no restart since. */
  async isInSync(): Promise<boolean> {
    if (this.#staged.size > 0 || this.#syncedInstance === undefined) return false;
    return (await this.readStatus())?.instance === this.#syncedInstance;
  }

  /**
   * Creates the prefix: Lua files, the control socket directory, a default certificate, and the
   * TLS relay's socket directory, emptied.
   */
  async prepare(): Promise<void> {
    const { prefix, isTemporary } = await preparePrefix(this.#options.prefix);
    this.#prefix = prefix;
    this.#isTemporaryPrefix = isTemporary;
    await this.#relay.start(prefix);
  }

  /**
   * Starts nginx with the listeners and no routes (it answers 503 until the first push), when it
   * is not running yet. nginx.conf does not depend on the routes, so this runs while the store
   * still lists the cluster: the first sync then only pushes. Resolves with whether it started
   * nginx.
   */
  start(): Promise<boolean> {
    return this.#exclusive(async () => {
      if (this.#nginx.isRunning()) return false;
      await this.#start(this.#desiredConfiguration());
      return true;
    });
  }

  /** Records what a route table delta changes; nothing reaches nginx before {@link flush}. */
  stage(delta: RouteTableDelta): void {
    this.#staged.stage(delta);
  }

  /** Brings nginx to what is staged; see the module comment. Calls are serialized. */
  flush(): Promise<DataPlaneFlush> {
    return this.#exclusive(() => this.#flush());
  }

  /** The requests nginx counted (ingress-nginx's request metrics); undefined when nginx does not answer. */
  readRequestMetrics(): Promise<RequestMetrics | undefined> {
    return readRequestMetrics(this.#socketPath());
  }

  /** nginx's connection and request counters; undefined when nginx does not answer. */
  readNginxStatus(): Promise<NginxStatus | undefined> {
    return readNginxStatus(this.#socketPath());
  }

  /** Reads nginx's status; undefined when nginx does not answer. */
  readStatus(): Promise<DataPlaneStatus | undefined> {
    return readStatus(this.#socketPath());
  }

  /** The nginx.conf the staged routes need, as it would be rendered now. */
  renderDesired(): string {
    return renderNginxConf(this.#desiredConfiguration());
  }

  /** Stops nginx and removes a temporary prefix. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#driftChecks?.stop();
    await this.#exclusive(async () => {
      await this.#nginx.stop();
      await this.#relay.stop();
      if (this.#isTemporaryPrefix && this.#prefix !== '')
        await rm(this.#prefix, { recursive: true, force: true });
    });
  }

  async #flush(): Promise<DataPlaneFlush> {
    if (this.#stopped) throw new NginxReloadError('the data plane is stopped');
    const result: DataPlaneFlush = { started: false, reloaded: false, pushed: false, refused: [] };
    const next = this.#desiredConfiguration();
    let reloadError: Error | undefined;
    if (!this.#nginx.isRunning()) {
      await this.#start(next);
      result.started = true;
    } else if (needsReload(this.#nginx.configuration, next)) {
      // A refused reload (an operator's setting nginx will not take) keeps the running nginx.conf:
      // the data is pushed all the same, and the reload is tried again with the next flush.
      try {
        await this.#nginx.reload(next);
        result.reloaded = true;
      } catch (error) {
        reloadError = error instanceof Error ? error : new NginxReloadError(String(error));
      }
    }
    // The relay's sockets exist before the data naming them is pushed (the urgent part included).
    // A relay that cannot open them fails only the routes with backend TLS settings (502): every
    // other change is pushed all the same, and the flush is tried again with backoff.
    let relayError: Error | undefined;
    try {
      await this.#relay.open(this.#staged.relaySockets(), next.settings.proxyConnectTimeoutSeconds * 1000);
    } catch (error) {
      relayError =
        error instanceof Error ? error : new TlsRelayError(`could not open its sockets: ${String(error)}`);
    }
    const status = await this.readStatus();
    if (status === undefined) throw new DataPlanePushError('nginx does not answer on its control socket');
    const full = status.instance !== this.#syncedInstance;
    if (full || this.#staged.size > 0) {
      let drifted = false;
      // Entries nginx refuses are left out and the push is made again, at most once per entry.
      for (;;) {
        const startedAt = performance.now();
        const body = this.#staged.createUpdate(
          this.#nginx.configuration,
          full ? this.#options.readTable() : undefined,
        );
        const builtAt = performance.now();
        const { rejected, accepted } = await this.#pushDelta(body, full);
        const routes = rejected.filter((entry) => entry.routeId !== undefined);
        const entries = this.#staged.findNewlyRefused(rejected);
        if (routes.length > 0) {
          result.refused = routes.map((entry) => ({ routeId: entry.routeId!, message: entry.message }));
          return result;
        }
        if (entries.length > 0) {
          this.#staged.refuse(entries);
          this.#options.logger.warn({ refused: entries }, 'nginx refused data entries; they are left out');
          continue;
        }
        if (rejected.length > 0) throw new DataPlanePushError('nginx refused entries that were left out');
        this.#options.logger.debug(
          {
            full,
            bytes: body.length,
            buildMs: Math.round(builtAt - startedAt),
            pushMs: Math.round(performance.now() - builtAt),
          },
          'data pushed to nginx',
        );
        if (accepted !== undefined) drifted = this.#takeAccepted(accepted, full);
        break;
      }
      // After a drift nothing is known to be in sync: the next flush pushes everything.
      if (!drifted) this.#syncedInstance = status.instance;
      this.#staged.clear();
      result.pushed = true;
    }
    // Nothing is staged now: nginx names no other socket.
    if (relayError === undefined) await this.#relay.retain(this.#staged.relaySockets());
    if (reloadError !== undefined) throw reloadError;
    if (relayError !== undefined) throw relayError;
    return result;
  }

  /** Takes the answer of a push; true when it shows a drift, reported then. */
  #takeAccepted(accepted: DataPlaneAccepted, full: boolean): boolean {
    const drift = this.#content.accept(accepted, full);
    if (drift !== undefined) {
      // This delta landed on data that is not what we think; only everything again is sure.
      this.#reportDrift(drift);
      return true;
    }
    if (full && this.#repairing !== undefined) {
      this.#options.logger.warn(
        { reason: this.#repairing, rewritten: accepted.stored, removed: accepted.deleted },
        'repaired the data plane: pushed everything again',
      );
      this.#repairing = undefined;
    }
    return false;
  }

  #reportDrift(reason: string): void {
    this.#content.forget();
    this.#syncedInstance = undefined;
    this.#repairing = reason;
    this.#options.onDrift?.(reason);
  }

  /**
   * Asks nginx to recompute the digest of the data it holds and compares it with what this
   * controller's pushes left; reports a drift (onDrift, then a full push repairs it) and returns
   * its reason, or undefined when the data is as pushed or cannot be checked right now.
   */
  checkContent(): Promise<string | undefined> {
    return this.#exclusive(async () => {
      if (this.#stopped || this.#syncedInstance === undefined) return undefined;
      const digest = await readDigest(this.#socketPath());
      // None on a 409: a push is being applied (not ours, since we hold the lock): the next check sees it.
      if (digest === undefined) return undefined;
      const drift = this.#content.check(digest);
      if (drift !== undefined) this.#reportDrift(drift);
      return drift;
    });
  }

  #desiredConfiguration(): Configuration {
    return this.#staged.createConfiguration(this.#renderOptions());
  }

  #renderOptions(): RenderOptions {
    return {
      ...nginxRenderOptions(this.#prefix, this.#options),
      ...this.#options.renderOptions,
      ...renderOptionsOfConfigMap(this.#configMapSettings, this.#prefix, this.#options.listenAddresses),
      streamServices: this.#streamServices,
    };
  }

  /**
   * nginx.conf settings from the controller ConfigMap, over the options'. A change makes the next
   * flush reload nginx; if the new nginx.conf fails its test, the running one keeps serving.
   */
  setConfigMapSettings(settings: ConfigMapNginxSettings): void {
    this.#configMapSettings = settings;
  }

  /**
   * The TCP and UDP services nginx exposes (stream servers). There is no Lua in nginx's stream
   * module, so a change of ports or endpoints makes the next flush reload nginx.
   */
  setStreamServices(services: StreamService[]): void {
    this.#streamServices = services;
  }

  /** Entries nginx refused that are not routes, by data key, with the reason. */
  refusedEntries(): ReadonlyMap<string, string> {
    return this.#staged.refusedEntries();
  }

  /** The certificates among the refused entries, by certificate id, with the reason. */
  refusedCertificates(): Map<string, string> {
    return this.#staged.refusedCertificates();
  }

  /**
   * Pushes `body`. When it does not fit nginx's memory, first pushes what cannot wait for room
   * (the backends' endpoints, the hosts removed: see StagedRoutes.createUrgentUpdate), so that
   * whoever filled the memory holds back no one's endpoint changes; then rejects all the same, and
   * the rest stays staged for the retry.
   */
  async #pushDelta(body: string, full: boolean): Promise<PushOutcome> {
    try {
      return await this.#push(body);
    } catch (error) {
      const urgent =
        full || !(error instanceof DataPlaneFullError)
          ? undefined
          : this.#staged.createUrgentUpdate(this.#nginx.configuration);
      if (urgent === undefined) throw error;
      const { rejected, accepted } = await this.#push(urgent);
      if (rejected.length === 0) {
        if (accepted !== undefined) this.#takeAccepted(accepted, false);
        this.#staged.clearUrgent();
        this.#options.logger.warn(
          { err: error },
          "nginx's memory has no room for the staged changes: pushed the backends' endpoints and removals only",
        );
      }
      throw error;
    }
  }

  // A push that fails leaves nginx's data unknown until the next full push.
  async #push(body: string): Promise<PushOutcome> {
    const sharedMemory = this.#renderOptions().sharedDictSize ?? 'the default size';
    try {
      return await pushData(this.#socketPath(), body, String(sharedMemory));
    } catch (error) {
      this.#content.forget();
      throw error;
    }
  }

  async #start(next: Configuration): Promise<void> {
    await this.#nginx.discard();
    this.#syncedInstance = undefined;
    this.#content.forget();
    await this.#nginx.start(next);
    this.#driftChecks ??= startDriftChecks({
      checkInstance: () => this.#checkDrift(),
      checkContent: () => this.checkContent(),
      onError: (error) =>
        this.#options.logger.warn({ err: error }, 'checking nginx for lost data failed; trying again later'),
      ...(this.#options.contentCheckMs === undefined ? {} : { contentCheckMs: this.#options.contentCheckMs }),
    });
  }

  // A restart the supervisor saw is handled through onRestarted; this catches what it could not
  // see (the master replaced from outside, the shared memory lost) and any drift in between.
  async #checkDrift(): Promise<void> {
    if (this.#stopped || this.#syncedInstance === undefined) return;
    const status = await this.readStatus();
    if (status === undefined || status.instance === this.#syncedInstance) return;
    this.#syncedInstance = undefined;
    this.#options.onDrift?.(`nginx's data instance changed (${status.instance})`);
  }

  #socketPath(): string {
    return controlSocketPathOf(this.#prefix);
  }

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(task, task);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}
