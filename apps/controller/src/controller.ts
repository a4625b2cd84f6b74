/**
 * One controller replica: store → SyncQueue → class resolution → checksum gate →
 * buildConfiguration → nginx (reload or dynamic update), with Events, metrics, the healthz server
 * and the leader-only loops around it. A failed sync (checksum mismatch, `nginx -t`, reload,
 * Lua endpoint) leaves the last good configuration serving and is retried with backoff.
 */
import {
  SyncQueue,
  bucketRateLimiter,
  exponentialFailureRateLimiter,
  maxOfRateLimiter,
  type SyncTask,
} from '@ingresskit/task-queue';
import {
  createStore,
  type ChangeEvent,
  type ResourceKind,
  type Store,
  type StoreSnapshot,
} from '@ingresskit/store';
import { createCertificateCache, type Configuration } from '@ingresskit/nginx-template';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ControllerConfig } from './config.js';
import {
  BackendsUpdateError,
  ChecksumMismatchError,
  NginxConfigTestError,
  NginxReloadError,
  NginxStartError,
} from './errors.js';
import { isIgnoreReasonReported } from './event-policy.js';
import { createEventsApiSink, dedupKey, EventRecorder, type EventReport, type EventSink } from './events.js';
import { explainIngress, formatProblem, type IngressExplanation } from './explain.js';
import { startHttpServer, type HttpServer } from './http-server.js';
import { LeaderRole } from './leader.js';
import type { Logger } from './logger.js';
import { checksumToGaugeValue, createControllerMetrics, type ControllerMetrics } from './metrics.js';
import { NginxRuntime } from './nginx-runtime.js';
import { planSync, type ClusterObjects, type SyncPlan } from './sync-plan.js';

/** What a controller is built from besides its config. */
export interface ControllerDependencies {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** A fresh registry by default. */
  metrics?: ControllerMetrics;
  /** Where Events go; the API server (events.k8s.io/v1) by default. */
  eventSink?: EventSink;
  /** Wall clock in ms; `Date.now` by default. */
  now?: () => number;
}

/** A summary of the last sync, for tests and the demo. */
export interface SyncSummary {
  owned: number;
  ignored: number;
  problems: number;
  /** The checksum verdict's message, when the gate is on. */
  checksum?: { ok: boolean; message: string };
}

const SYNC_KEY = 'sync';

/** See the module comment. */
export class Controller {
  readonly config: ControllerConfig;
  readonly metrics: ControllerMetrics;
  readonly runtime: NginxRuntime;
  readonly #deps: ControllerDependencies;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #certificateCache = createCertificateCache();
  readonly #recorder: EventRecorder;
  #store: Store | undefined;
  #queue: SyncQueue | undefined;
  #leader: LeaderRole | undefined;
  #http: HttpServer | undefined;
  #plan: SyncPlan | undefined;
  #ownedKeys = '';
  #reportedEvents = new Set<string>();
  #seenReports = new Set<string>();
  #firstSyncDone = false;
  #starting: Promise<void> | undefined;
  #readyWaiters: (() => void)[] = [];
  #lastSyncError: string | undefined;
  #state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(config: ControllerConfig, deps: ControllerDependencies) {
    this.config = config;
    this.#deps = deps;
    this.#logger = deps.logger;
    this.#now = deps.now ?? Date.now;
    this.metrics = deps.metrics ?? createControllerMetrics();
    this.runtime = new NginxRuntime({
      binary: config.nginxBinary,
      prefix: config.nginxPrefix,
      httpPort: config.httpPort,
      httpsPort: config.httpsPort,
      statusPort: config.statusPort,
      ...(config.listenAddresses === undefined ? {} : { listenAddresses: config.listenAddresses }),
      workerProcesses: config.workerProcesses,
      accessLog: config.accessLog,
      logger: deps.logger,
      onRestart: () => this.metrics.nginxRestarts.inc(),
      onRecovered: (error) => {
        if (error === undefined)
          this.#logger.info('restarted nginx serves the last good configuration again');
        else
          this.#logger.error(
            { err: error },
            'restarted nginx could not be brought back; the next sync retries',
          );
        // A sync re-checks everything (and restarts nginx from scratch if it is still down).
        this.#requestSync('nginx restarted', true);
      },
    });
    // Without the gate nothing holds a configuration back.
    if (!config.checksumEnabled) this.metrics.checksumOk.set(1);
    this.#recorder = new EventRecorder({
      sink: deps.eventSink ?? createEventsApiSink(deps.kubeConfig),
      reportingController: config.classConfig.controllerClass,
      reportingInstance: config.podName,
      onWrite: (action) => this.metrics.events.inc({ action }),
      onError: (error, report) => {
        this.metrics.events.inc({ action: 'failed' });
        this.#logger.warn(
          { err: error, reason: report.reason, regarding: report.regarding.name },
          'cannot write Event',
        );
      },
    });
  }

  /** The port of the healthz server (after `start()`). */
  get healthzPort(): number {
    return this.#http?.port ?? this.config.healthzPort;
  }

  /** Whether the first configuration has been applied (what `/healthz` reports). */
  isReady(): boolean {
    return this.notReadyReason() === undefined;
  }

  /** Why `/healthz` fails, or undefined when ready. */
  notReadyReason(): string | undefined {
    if (this.#state !== 'running') return `controller is ${this.#state}`;
    if (!this.#firstSyncDone) return this.#lastSyncError ?? 'the first sync has not finished';
    if (!this.runtime.isServing()) return 'nginx is not running';
    return undefined;
  }

  /** Whether this replica leads. */
  isLeader(): boolean {
    return this.#leader?.isLeader() ?? false;
  }

  /** The store (after `start()`). */
  get store(): Store | undefined {
    return this.#store;
  }

  /** The plan of the last sync. */
  get lastPlan(): SyncPlan | undefined {
    return this.#plan;
  }

  /** The configuration nginx runs. */
  get runningConfiguration(): Configuration | undefined {
    return this.runtime.loaded;
  }

  /** The Event writer (tests flush it). */
  get events(): EventRecorder {
    return this.#recorder;
  }

  /** Resolves once the first sync has been applied. */
  whenReady(): Promise<void> {
    if (this.#firstSyncDone) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  /**
   * Starts everything: the healthz server, the store (resolves after its first list), the sync
   * loop and the leader election. Does not wait for the first sync: see {@link whenReady}.
   */
  start(): Promise<void> {
    if (this.#state !== 'new')
      return Promise.reject(new Error(`the controller cannot start: it is ${this.#state}`));
    this.#state = 'starting';
    this.#starting = this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    const { config } = this;
    const checkNotStopped = () => {
      if (this.#state !== 'starting') throw new Error('the controller was stopped while starting');
    };
    await this.runtime.prepare();
    checkNotStopped();
    this.#http = await startHttpServer({
      port: config.healthzPort,
      host: config.healthzHost,
      notReadyReason: () => this.notReadyReason(),
      registry: this.metrics.registry,
      explain: (key) => this.explain(key),
      logger: this.#logger,
    });
    const store = createStore(this.#deps.kubeConfig, {
      namespaces: config.watchNamespaces,
      kinds: this.#storeKinds(),
    });
    this.#store = store;
    store.on('change', (event) => this.#onChange(event));
    store.on('error', (error) => this.#logger.warn({ err: error }, 'store: list or watch failed; retrying'));
    store.on('stale', (change) =>
      this.#logger.warn(change, 'store: informer is stale; serving the last known state'),
    );
    store.on('recovered', (change) => this.#logger.info(change, 'store: informer recovered'));
    this.#logger.info(
      { namespaces: config.watchNamespaces.length === 0 ? 'all' : config.watchNamespaces },
      'waiting for the store to list',
    );
    await store.start();
    checkNotStopped();

    const queue = new SyncQueue({
      sync: (task) => this.#sync(task),
      minIntervalMs: config.syncRateLimit > 0 ? 1000 / config.syncRateLimit : 0,
      // Retries start fast and stay within half a minute (client-go's 1000 s cap is long for a data plane).
      rateLimiter: maxOfRateLimiter<string>(
        exponentialFailureRateLimiter({ baseMs: 100, maxMs: 30_000 }),
        bucketRateLimiter({ qps: 10, burst: 100 }),
      ),
    });
    queue.on('syncError', ({ task, error }) => {
      this.#lastSyncError = error instanceof Error ? error.message : String(error);
      this.#logger.warn(
        { err: error, retries: task.retries },
        'sync failed; the last good configuration keeps serving',
      );
    });
    queue.on('requeue', ({ key, delayMs }) => this.#logger.debug({ key, delayMs }, 'sync retry scheduled'));
    this.#queue = queue;

    this.#leader = new LeaderRole({
      kubeConfig: this.#deps.kubeConfig,
      config,
      store,
      logger: this.#logger,
      metrics: this.metrics,
      listOwnedIngresses: () => this.#plan?.owned.map((verdict) => verdict.ingress) ?? [],
      onLeadershipChange: () => {
        // Leaders report Ingress problems as Events: start over so the new leader reports them all.
        this.#reportedEvents = new Set();
        this.#requestSync('leadership changed', true);
      },
    });
    this.#state = 'running';
    this.#requestSync('initial sync', true);
    queue.start();
    this.#leader.start();
  }

  /**
   * Stops the replica: the sync loop (after the running sync), the leader-only loops (clearing
   * the status if this is the last replica), the Lease (released unless `releaseLease` is false,
   * which is what a crash looks like to the others), nginx (gracefully), the store and the server.
   */
  async stop(options: { releaseLease?: boolean } = {}): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'stopping') return;
    const wasStarting = this.#state === 'starting';
    this.#state = 'stopping';
    this.#logger.info('stopping');
    if (wasStarting) {
      // Stopping the store ends a start that waits for the API server.
      await this.#store?.stop();
      await this.#starting?.catch(() => undefined);
    }
    // Each step runs even when an earlier one fails: nginx must stop whatever else went wrong.
    const step = async (name: string, action: () => Promise<unknown> | undefined) => {
      try {
        await action();
      } catch (error) {
        this.#logger.warn({ err: error, step: name }, 'a shutdown step failed');
      }
    };
    await step('sync queue', () => this.#queue?.shutDown());
    await step('leader role', () => this.#leader?.stop({ release: options.releaseLease ?? true }));
    await step('events', () => this.#recorder.flush());
    await step('nginx', () => this.runtime.stop());
    await step('store', () => this.#store?.stop());
    await step('healthz server', () => this.#http?.stop());
    this.#state = 'stopped';
    for (const resolve of this.#readyWaiters.splice(0)) resolve();
    this.#logger.info('stopped');
  }

  /** Explains an Ingress against the current store and the configuration nginx runs. */
  explain(key: string): IngressExplanation {
    const snapshot = this.#store?.snapshot();
    if (snapshot === undefined) {
      return {
        ingress: key,
        found: false,
        owned: false,
        explanation: 'The controller has not started.',
        routes: [],
        problems: [],
        routesFrom: 'running',
      };
    }
    const plan = this.#planFrom(snapshot);
    return explainIngress(plan, key, this.runtime.loaded ?? emptyConfiguration(plan));
  }

  /** A summary of the last sync's plan. */
  summary(): SyncSummary | undefined {
    const plan = this.#plan;
    if (plan === undefined) return undefined;
    const summary: SyncSummary = {
      owned: plan.owned.length,
      ignored: plan.ignored.length,
      problems: plan.build.problems.length,
    };
    if (plan.checksum !== undefined)
      summary.checksum = { ok: plan.checksum.ok, message: plan.checksum.message };
    return summary;
  }

  #storeKinds(): ResourceKind[] {
    const kinds: ResourceKind[] = ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret'];
    if (this.config.gatewayControllerName !== undefined) kinds.push('GatewayClass', 'Gateway', 'ConfigMap');
    if (this.config.checksumEnabled) kinds.push('IngressCheckSum');
    return kinds;
  }

  #onChange(event: ChangeEvent): void {
    if (this.#queue === undefined || !this.#isRelevant(event)) return;
    this.#requestSync(`${event.kind} ${event.key} ${event.type}`, false);
  }

  // Every sync rebuilds everything, so all requests share one key: waiting requests merge into one
  // task and failures retry on one backoff, instead of one retry per object that changed.
  #requestSync(reason: string, forced: boolean): void {
    this.#logger.debug({ reason }, 'sync requested');
    this.#queue?.enqueue(SYNC_KEY, { skippable: !forced });
  }

  // Only changes that can alter the configuration start a sync; ingress-nginx re-syncs on every
  // EndpointSlice in the cluster, which is most of its churn.
  #isRelevant(event: ChangeEvent): boolean {
    const snapshot = this.#store?.snapshot();
    switch (event.kind) {
      case 'Ingress':
        // Status writes (ours, from the leader) change nothing nginx serves.
        return !(event.type === 'updated' && isStatusOnlyChange(event.oldObject, event.newObject));
      case 'IngressClass':
        return true;
      case 'IngressCheckSum':
        return this.config.checksumEnabled;
      case 'Service':
        return this.#isUsedService(event.key, snapshot);
      case 'EndpointSlice': {
        const object = event.newObject ?? event.oldObject;
        const service = object?.metadata.labels?.['kubernetes.io/service-name'];
        const namespace = object?.metadata.namespace;
        return (
          service === undefined ||
          namespace === undefined ||
          this.#isUsedService(`${namespace}/${service}`, snapshot)
        );
      }
      case 'Secret':
        return (snapshot?.ingressesForSecret(event.key).length ?? 1) > 0;
      default:
        return false;
    }
  }

  #isUsedService(key: string, snapshot: StoreSnapshot | undefined): boolean {
    const backend = this.config.defaultBackend;
    if (backend !== undefined && `${backend.namespace}/${backend.name}` === key) return true;
    return (snapshot?.ingressesForService(key).length ?? 1) > 0;
  }

  #planFrom(snapshot: StoreSnapshot): SyncPlan {
    const objects: ClusterObjects = {
      ingresses: snapshot.ingresses.list(),
      ingressClasses: snapshot.ingressClasses.list(),
      services: snapshot.services.list(),
      endpointSlices: snapshot.endpointSlices.list(),
      secrets: snapshot.secrets.list(),
      ingressCheckSums: snapshot.ingressCheckSums.list(),
    };
    return planSync(objects, {
      classConfig: this.config.classConfig,
      checksumEnabled: this.config.checksumEnabled,
      defaultBackend: this.config.defaultBackend,
      now: this.#now(),
      certificateCache: this.#certificateCache,
    });
  }

  async #sync(task: SyncTask): Promise<void> {
    const store = this.#store;
    if (store === undefined || this.#state !== 'running') return;
    const stopTimer = this.metrics.syncDuration.startTimer();
    try {
      await this.#syncOnce(store, task);
      this.metrics.syncs.inc({ result: 'success' });
    } catch (error) {
      this.metrics.syncs.inc({
        result: error instanceof ChecksumMismatchError ? 'checksum-mismatch' : 'error',
      });
      throw error;
    } finally {
      stopTimer();
    }
  }

  async #syncOnce(store: Store, task: SyncTask): Promise<void> {
    const plan = this.#planFrom(store.snapshot());
    this.#plan = plan;
    this.#recordPlanMetrics(plan);
    this.#reportPlan(plan);
    const ownedKeys = plan.owned.map((verdict) => verdict.key).join(',');
    if (ownedKeys !== this.#ownedKeys) {
      this.#ownedKeys = ownedKeys;
      this.#leader?.requestStatusSync();
    }

    const checksum = plan.checksum;
    if (checksum !== undefined) {
      this.metrics.checksumOk.set(checksum.ok ? 1 : 0);
      this.metrics.checksumChecks.inc({
        result: !checksum.checked ? 'unchecked' : checksum.ok ? 'match' : 'mismatch',
      });
      if (!checksum.ok) {
        this.#logger.error(
          {
            checksum: checksum.checksum,
            expected: checksum.expected,
            localOnly: checksum.diff.localOnly,
            publishedOnly: checksum.diff.publishedOnly,
          },
          'Ingress checksum mismatch: keeping the last good configuration',
        );
        throw new ChecksumMismatchError(checksum.message);
      }
    }

    const configuration = plan.build.configuration;
    let result;
    try {
      result = await this.runtime.apply(configuration);
    } catch (error) {
      this.#recordApplyFailure(error);
      throw error;
    }
    if (result.started || result.reloaded) {
      this.metrics.reloads.inc({ result: 'success' });
      this.metrics.lastReloadSuccessful.set(1);
      this.metrics.lastReloadSuccessTimestamp.set(this.#now() / 1000);
      this.#logger.info(
        {
          started: result.started,
          reasons: result.diff.reasons,
          checksum: configuration.checksum,
          retry: task.isRetry,
        },
        result.started ? 'nginx started' : 'nginx reloaded',
      );
    }
    if (result.backendsPosted) {
      if (!result.started && !result.reloaded) this.metrics.dynamicUpdates.inc({ result: 'success' });
      this.#logger.debug({ backends: configuration.backends.length }, 'backends posted to nginx');
    }
    this.metrics.configHash.set(checksumToGaugeValue(configuration.checksum));
    this.#lastSyncError = undefined;
    if (!this.#firstSyncDone) {
      this.#firstSyncDone = true;
      this.#logger.info(
        { owned: plan.owned.length, ignored: plan.ignored.length, problems: plan.build.problems.length },
        'first configuration applied',
      );
      for (const resolve of this.#readyWaiters.splice(0)) resolve();
    }
  }

  #recordPlanMetrics(plan: SyncPlan): void {
    this.metrics.ownedIngresses.set(plan.owned.length);
    this.metrics.ignoredIngresses.reset();
    const byReason = new Map<string, number>();
    for (const verdict of plan.ignored) {
      if (verdict.decision.owned) continue;
      byReason.set(verdict.decision.reason, (byReason.get(verdict.decision.reason) ?? 0) + 1);
    }
    for (const [reason, count] of byReason) this.metrics.ignoredIngresses.set({ reason }, count);
    this.metrics.problems.reset();
    for (const severity of ['error', 'warning'] as const) {
      this.metrics.problems.set(
        { severity },
        plan.build.problems.filter((problem) => problem.severity === severity).length,
      );
    }
  }

  // Every replica logs what changed; the leader also writes Events, each once per appearance.
  #reportPlan(plan: SyncPlan): void {
    const reports: EventReport[] = [];
    // Ingresses of other controllers: logged at debug level, never an Event (isIgnoreReasonReported).
    const quiet: EventReport[] = [];
    for (const verdict of plan.ignored) {
      if (verdict.decision.owned) continue;
      const isReported = isIgnoreReasonReported(verdict.decision.reason);
      (isReported ? reports : quiet).push({
        regarding: ingressSubject(verdict.ingress),
        type: isReported ? 'Warning' : 'Normal',
        reason: 'Ignored',
        action: 'ClassResolution',
        note: `${verdict.decision.message} ${verdict.decision.hint}`,
      });
    }
    for (const problem of plan.build.problems) {
      const verdict = plan.verdicts.get(`${problem.object.namespace}/${problem.object.name}`);
      const regarding: EventReport['regarding'] =
        problem.object.kind === 'Ingress' && verdict !== undefined
          ? ingressSubject(verdict.ingress)
          : {
              apiVersion: apiVersionOf(problem.object.kind),
              kind: problem.object.kind,
              namespace: problem.object.namespace,
              name: problem.object.name,
            };
      reports.push({
        regarding,
        type: 'Warning',
        reason: problem.severity === 'error' ? 'InvalidConfiguration' : 'ConfigurationWarning',
        action: 'Sync',
        note: formatProblem(problem),
      });
    }
    const checksum = plan.checksum;
    if (checksum !== undefined && !checksum.ok && checksum.object !== undefined) {
      reports.push({
        regarding: {
          apiVersion: 'tengine.taobao.org/v1',
          kind: checksum.object.kind,
          namespace: checksum.object.namespace,
          name: checksum.object.name ?? '',
        },
        type: 'Warning',
        reason: 'ChecksumMismatch',
        action: 'VerifyChecksum',
        note: checksum.message,
      });
    }
    const current = new Set<string>();
    const isLeader = this.isLeader();
    const log = (report: EventReport, key: string, level: 'warn' | 'info' | 'debug') => {
      current.add(key);
      if (this.#seenReports.has(key)) return;
      const regarding = report.regarding;
      const fields = {
        regarding: `${regarding.kind} ${regarding.namespace ?? ''}/${regarding.name}`,
        reason: report.reason,
      };
      this.#logger[level](fields, report.note);
    };
    for (const report of quiet) log(report, dedupKey(report), 'debug');
    for (const report of reports) {
      const key = dedupKey(report);
      log(report, key, report.type === 'Warning' ? 'warn' : 'info');
      if (isLeader && !this.#reportedEvents.has(key)) this.#recorder.record(report);
    }
    this.#seenReports = current;
    if (isLeader) this.#reportedEvents = current;
  }

  #recordApplyFailure(error: unknown): void {
    if (error instanceof BackendsUpdateError) {
      this.metrics.dynamicUpdates.inc({ result: 'failure' });
      return;
    }
    if (
      error instanceof NginxConfigTestError ||
      error instanceof NginxReloadError ||
      error instanceof NginxStartError
    ) {
      this.metrics.reloads.inc({ result: 'failure' });
      this.metrics.lastReloadSuccessful.set(0);
      this.#recorder.record({
        regarding: {
          apiVersion: 'v1',
          kind: 'Pod',
          namespace: this.config.podNamespace,
          name: this.config.podName,
        },
        type: 'Warning',
        reason: error instanceof NginxConfigTestError ? 'ConfigTestFailed' : 'ReloadFailed',
        action: 'Reload',
        note: error.message,
      });
    }
  }
}

function ingressSubject(ingress: {
  metadata: { namespace?: string; name: string; uid?: string; resourceVersion: string };
}): EventReport['regarding'] {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    namespace: ingress.metadata.namespace,
    name: ingress.metadata.name,
    uid: ingress.metadata.uid,
    resourceVersion: ingress.metadata.resourceVersion,
  };
}

function isStatusOnlyChange(
  before: { metadata: object; spec?: unknown } | undefined,
  after: { metadata: object; spec?: unknown } | undefined,
): boolean {
  if (before === undefined || after === undefined) return false;
  const strip = (object: { metadata: object; spec?: unknown }) => {
    const {
      resourceVersion: _resourceVersion,
      managedFields: _managedFields,
      ...metadata
    } = object.metadata as Record<string, unknown>;
    return JSON.stringify({ metadata, spec: object.spec });
  };
  return strip(before) === strip(after);
}

function apiVersionOf(kind: string): string {
  return kind === 'EndpointSlice'
    ? 'discovery.k8s.io/v1'
    : kind === 'Ingress'
      ? 'networking.k8s.io/v1'
      : 'v1';
}

// Before nginx runs nothing is served: explain against an empty configuration, not the plan.
function emptyConfiguration(plan: SyncPlan): Configuration {
  const planned = plan.build.configuration;
  return {
    ...planned,
    servers: [],
    backends: [],
    certificates: [],
    defaultServer: { ...planned.defaultServer, locations: [] },
  };
}
