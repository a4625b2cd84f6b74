/**
 * One controller replica: builds its parts (controller-parts.ts), starts them, runs every sync
 * through the sync stage and stops them. The chain a change travels:
 *
 *   store change event ─▶ recordChange (pending-changes.ts: relevance, keys)
 *     ─▶ SyncQueue (coalesce, retry with backoff)
 *     ─▶ SyncStage.sync (sync-stage.ts): ConfigMap, routing (+ Gateway API), checksum gate,
 *        data plane, reports ─▶ SyncStageOutcome ─▶ SyncReporting (metrics, Events), readiness,
 *        and the SyncQueue's SyncResult (done, or retry with backoff)
 *
 * around which it runs the healthz server, the admission webhook and the leader-only loops. A sync
 * that is not served (checksum mismatch, nginx refusing or not answering) leaves the last good
 * configuration serving; what was not pushed stays staged and the sync is retried with backoff.
 */
import {
  SyncQueue,
  bucketRateLimiter,
  exponentialFailureRateLimiter,
  maxOfRateLimiter,
  type SyncResult,
  type SyncTask,
} from '@ingresskit/task-queue';
import { createStore, type Store } from '@ingresskit/store';
import type { RouteTable } from '@ingresskit/route-model';
import { startAdmissionServer, type AdmissionServer } from './admission-server.js';
import { viewOfSnapshot } from './cluster-view.js';
import { secretAnnotationsOf, storeKindsOf, storeNamespaceScopeOf, type ControllerConfig } from './config.js';
import {
  createControllerParts,
  createGatewayStatusWriter,
  type ControllerDependencies,
  type ControllerParts,
} from './controller-parts.js';
import type { NginxDataPlane } from './data-plane.js';
import type { EventRecorder } from './events.js';
import { createForeignClassCheck } from './foreign-classes.js';
import { explainIngress, type IngressExplanation } from './explain.js';
import type { GatewayRouting } from './gateway-routing.js';
import type { GatewayStatusWriter } from './gateway-status-writer.js';
import { startHttpServer, type HttpServer } from './http-server.js';
import type { IngressRouting } from './ingress-routing.js';
import { LeaderRole } from './leader.js';
import type { Logger } from './logger.js';
import { registerStoreSecretMetrics, type ControllerMetrics } from './metrics.js';
import { createPendingChanges, recordChange, takePendingChanges } from './pending-changes.js';
import { queueResultOf } from './sync-stage-outcome.js';

export type { ControllerDependencies } from './controller-parts.js';

/** A summary of the routing state, for tests and the demo. */
export interface SyncSummary {
  owned: number;
  ignored: number;
  problems: number;
  /** The checksum verdict's message, when the gate is on. */
  checksum?: { ok: boolean; message: string };
}

// Every request shares one key: waiting requests merge into one sync (which takes every pending
// change) and failures retry on one backoff.
const SYNC_KEY = 'sync';

/** One controller replica: starts its parts, runs its syncs and stops them. */
export class Controller {
  readonly config: ControllerConfig;
  readonly metrics: ControllerMetrics;
  readonly dataPlane: NginxDataPlane;
  readonly routing: IngressRouting;
  readonly #parts: ControllerParts;
  readonly #deps: ControllerDependencies;
  readonly #logger: Logger;
  readonly #pending = createPendingChanges();
  #store: Store | undefined;
  #queue: SyncQueue | undefined;
  #leader: LeaderRole | undefined;
  #http: HttpServer | undefined;
  #admission: AdmissionServer | undefined;
  #gatewayStatus: GatewayStatusWriter | undefined;
  #firstSyncDone = false;
  #starting: Promise<void> | undefined;
  #readyWaiters: (() => void)[] = [];
  #lastSyncError: string | undefined;
  #state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(config: ControllerConfig, deps: ControllerDependencies) {
    this.config = config;
    this.#deps = deps;
    this.#logger = deps.logger;
    this.#parts = createControllerParts(config, deps, {
      isLeader: () => this.isLeader(),
      requestSync: (reason, forced) => this.#requestSync(reason, forced),
      externalNamesChanged: (keys) => {
        for (const key of keys) this.#pending.externalNames.add(key);
      },
      snapshot: () => this.#store?.snapshot(),
      keepSecrets: (keys) => this.#store?.keepSecrets(keys) ?? [],
      requestStatusSync: () => this.#leader?.requestStatusSync(),
    });
    this.metrics = this.#parts.metrics;
    this.dataPlane = this.#parts.dataPlane;
    this.routing = this.#parts.routing;
  }

  /** Gateways and HTTPRoutes into the table, when `--gateway-controller-name` is set. */
  get gatewayRouting(): GatewayRouting | undefined {
    return this.#parts.gatewayApi?.routing;
  }

  /** The admission webhook's port, once it listens. */
  get admissionPort(): number | undefined {
    return this.#admission?.port;
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
    return this.dataPlane.notServingReason();
  }

  /** Whether this replica leads. */
  isLeader(): boolean {
    return this.#leader?.isLeader() ?? false;
  }

  /** The store (after `start()`). */
  get store(): Store | undefined {
    return this.#store;
  }

  /** The route table as of the last sync (what nginx serves once the sync succeeded). */
  routeTable(): RouteTable {
    return this.routing.table();
  }

  /** The Event writer (tests flush it). */
  get events(): EventRecorder {
    return this.#parts.recorder;
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
    const { gatewayApi, routing, reports, l4 } = this.#parts;
    const checkNotStopped = () => {
      if (this.#state !== 'starting') throw new Error('the controller was stopped while starting');
    };
    // nginx starts serving 503 right away, and data from the first sync on.
    await this.dataPlane.prepare();
    checkNotStopped();
    this.#http = await startHttpServer({
      port: config.healthzPort,
      host: config.healthzHost,
      notReadyReason: () => this.notReadyReason(),
      registry: this.metrics.registry,
      streamedMetrics: this.#parts.requestMetrics,
      explain: (key) => this.explain(key),
      explainGatewayApi:
        gatewayApi === undefined ? undefined : (kind, key) => gatewayApi.explain(kind, key, routing),
      logger: this.#logger,
    });
    const store = this.#startStore();
    // nginx starts while the store lists; a failure here is retried by the first sync.
    const nginxStarting = this.dataPlane.start().then(
      (started) => {
        if (started) this.#parts.reporting.recordLoad();
      },
      (error: unknown) =>
        this.#logger.warn({ err: error }, 'nginx did not start; the first sync tries again'),
    );
    await store.start();
    await nginxStarting;
    checkNotStopped();
    // With --enable-ssl-passthrough the proxy takes the HTTPS port; nginx listens behind it on loopback.
    await l4.start();
    checkNotStopped();
    // The webhook judges against the listed IngressClasses and Secrets, so it starts only now.
    if (config.admissionWebhook !== undefined) {
      this.#admission = await startAdmissionServer({
        ...config.admissionWebhook,
        view: () => viewOfSnapshot(store.snapshot()),
        classConfig: config.classConfig,
        maxPathsPerIngress: config.maxPathsPerIngress,
        allowedSnippetDirectives: config.allowedSnippetDirectives,
        authAddressPolicy: () => routing.backendAddressPolicy,
        defaultBackend: config.defaultBackend,
        controllerConfigMap: config.configMap,
        annotationPrefix: config.annotationPrefix,
        hostOwnershipProblems: (object, hostnames, createdAt) =>
          routing.routingTable.hostOwnershipProblems(object, hostnames, createdAt),
        hostLimitProblems: (contribution) => routing.routingTable.hostLimitProblems(contribution),
        now: () => Date.now(),
        logger: this.#logger,
        readSecret: (key) => store.readSecret(key),
        secretAnnotations: secretAnnotationsOf(config.annotationPrefix),
      });
      checkNotStopped();
    }
    const queue = new SyncQueue({
      sync: (task) => this.#sync(task),
      // Retries start fast and stay within half a minute (client-go's 1000 s cap is long for a data plane).
      rateLimiter: maxOfRateLimiter<string>(
        exponentialFailureRateLimiter({ baseMs: 100, maxMs: 30_000 }),
        bucketRateLimiter({ qps: 10, burst: 100 }),
      ),
    });
    // A sync that throws (rather than answering an outcome) failed before the stage could answer.
    queue.on('syncError', ({ task, error }) => this.#recordSyncFailure(task, error));
    queue.on('requeue', ({ key, delayMs, reason }) =>
      this.#logger.debug({ key, delayMs, reason }, 'sync retry scheduled'),
    );
    this.#queue = queue;
    this.#leader = new LeaderRole({
      kubeConfig: this.#deps.kubeConfig,
      config,
      store,
      logger: this.#logger,
      metrics: this.metrics,
      listOwnedIngresses: () => this.#parts.sync.servedOwnedIngresses(),
      onLeadershipChange: (isLeader) => {
        // Leaders report Ingress problems as Events: the new leader reports them all.
        if (isLeader) reports.recordAll();
        if (isLeader) gatewayApi?.becameLeader();
        if (isLeader) l4.becameLeader();
      },
    });
    if (config.gatewayControllerName !== undefined) {
      this.#gatewayStatus = createGatewayStatusWriter(
        { ...config, gatewayControllerName: config.gatewayControllerName },
        this.#deps,
        () => store.snapshot(),
        () => this.isLeader(),
      );
      gatewayApi?.attachStatusWriter(this.#gatewayStatus);
    }
    this.#state = 'running';
    this.#requestSync('initial sync', true);
    queue.start();
    this.#leader.start();
  }

  /** The store, with change events entering the pipeline: relevance is decided here, once. */
  #startStore(): Store {
    const { config } = this;
    const store = createStore(this.#deps.kubeConfig, {
      ...storeNamespaceScopeOf(config),
      kinds: storeKindsOf(config),
      secretAnnotations: secretAnnotationsOf(config.annotationPrefix),
      ...(config.defaultSslCertificate === undefined ? {} : { keepSecrets: [config.defaultSslCertificate] }),
      isForeignClass: createForeignClassCheck(config),
    });
    this.#store = store;
    registerStoreSecretMetrics(this.metrics.registry, () => store.secretStats());
    store.on('change', (event) => {
      const isRelevant = recordChange(this.#pending, event, {
        snapshot: store.snapshot(),
        isServiceReferenced: (key) => this.routing.routingTable.isServiceReferenced(key),
        checksumEnabled: config.checksumEnabled,
        configMapKey: config.configMap,
        isReadByConfigMap: (key) => this.#parts.configMap?.isReading(key) ?? false,
        isSecretReadByConfigMap: (key) => this.#parts.configMap?.isReadingSecret(key) ?? false,
        ingressKeysOf: (change) => this.routing.ingresses.keysOf(change),
        gatewayKeysOf: this.#parts.gatewayApi?.routing.keysOf.bind(this.#parts.gatewayApi.routing),
        defaultCertificateKey: config.defaultSslCertificate,
      });
      // The layer-4 features read ConfigMaps and endpoints no route references.
      // Asked even when the routing wants the event: it marks what the next layer-4 sync reads.
      const isRelevantToL4 = this.#parts.l4.isRelevant(event);
      if (isRelevant || isRelevantToL4) this.#requestSync(`${event.kind} ${event.key} ${event.type}`, false);
    });
    store.on('error', (error) => this.#logger.warn({ err: error }, 'store: list or watch failed; retrying'));
    store.on('stale', (change) =>
      this.#logger.warn(change, 'store: informer is stale; serving the last known state'),
    );
    store.on('recovered', (change) => this.#logger.info(change, 'store: informer recovered'));
    this.#logger.info(
      {
        namespaces: config.watchNamespaces.length === 0 ? 'all' : config.watchNamespaces,
        ...(config.watchNamespaceSelector === '' ? {} : { namespaceSelector: config.watchNamespaceSelector }),
      },
      'waiting for the store to list',
    );
    return store;
  }

  /**
   * Stops the replica: the sync loop (after the running sync), the leader-only loops (clearing
   * the status if this is the last replica), the Lease (released unless `releaseLease` is false,
   * which is what a crash looks like to the others), nginx (gracefully), the store and the server.
   */
  async stop(options: { releaseLease?: boolean } = {}): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'stopping') return;
    const wasStarting = this.#state === 'starting';
    const wasRunning = this.#state === 'running';
    this.#state = 'stopping';
    this.#logger.info('stopping');
    // /healthz fails from now on; nginx keeps serving until load balancers have taken us out.
    if (wasRunning && this.config.shutdownGracePeriodMs > 0) {
      this.#logger.info(
        { graceMs: this.config.shutdownGracePeriodMs },
        'serving through the shutdown grace period',
      );
      await new Promise((resolve) => setTimeout(resolve, this.config.shutdownGracePeriodMs));
    }
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
    this.#parts.externalNames.stop();
    await step('gateway status', () => this.#gatewayStatus?.stop());
    await step('leader role', () => this.#leader?.stop({ release: options.releaseLease ?? true }));
    await step('ssl-passthrough proxy', () => this.#parts.l4.stop());
    await step('events', () => this.#parts.recorder.flush());
    await step('nginx', () => this.dataPlane.stop());
    await step('store', () => this.#store?.stop());
    await step('admission webhook', () => this.#admission?.stop());
    await step('healthz server', () => this.#http?.stop());
    this.#state = 'stopped';
    for (const resolve of this.#readyWaiters.splice(0)) resolve();
    this.#logger.info('stopped');
  }

  /** Explains an Ingress from the routing state of the last sync. */
  explain(key: string): IngressExplanation {
    if (!this.#parts.sync.isInitialized) {
      return {
        ingress: key,
        found: false,
        owned: false,
        explanation: 'The controller has not finished its first sync.',
        routes: [],
        problems: [],
      };
    }
    const checksum = this.#parts.sync.checksum;
    return explainIngress(
      this.routing,
      key,
      checksum === undefined ? undefined : { ok: checksum.ok, message: checksum.message },
    );
  }

  /** A summary of the routing state. */
  summary(): SyncSummary | undefined {
    const { sync, reports } = this.#parts;
    if (!sync.isInitialized) return undefined;
    const totals = reports.totals();
    const summary: SyncSummary = {
      owned: totals.owned,
      ignored: [...totals.ignoredByReason.values()].reduce((sum, count) => sum + count, 0),
      problems: totals.errors + totals.warnings,
    };
    const checksum = sync.checksum;
    if (checksum !== undefined) summary.checksum = { ok: checksum.ok, message: checksum.message };
    return summary;
  }

  #requestSync(reason: string, forced: boolean): void {
    this.#logger.debug({ reason }, 'sync requested');
    this.#queue?.enqueue(SYNC_KEY, { skippable: !forced });
  }

  // The SyncQueue boundary: the stage's outcome is reported, decides readiness, and becomes the
  // queue's result (served: done; otherwise retried with backoff).
  async #sync(task: SyncTask): Promise<SyncResult> {
    const store = this.#store;
    if (store === undefined || this.#state !== 'running') return { kind: 'done' };
    const stopTimer = this.metrics.syncDuration.startTimer();
    try {
      const view = viewOfSnapshot(store.snapshot());
      const outcome = await this.#parts.sync.sync(takePendingChanges(this.#pending), view);
      this.#parts.reporting.record(outcome);
      // Ready means nginx serves everything that was asked: an operator setting nginx refused
      // to reload with leaves it serving the last good nginx.conf, which is still ready (the
      // refusal is an Event and a metric, and the reload is tried again).
      if (outcome.kind !== 'held' && this.dataPlane.notServingReason() === undefined) this.#markReady();
      if (outcome.kind === 'served') this.#lastSyncError = undefined;
      else this.#recordSyncFailure(task, outcome.error);
      return queueResultOf(outcome);
    } finally {
      stopTimer();
    }
  }

  #recordSyncFailure(task: SyncTask, error: unknown): void {
    this.#lastSyncError = error instanceof Error ? error.message : String(error);
    this.#logger.warn(
      { err: error, retries: task.retries },
      'sync failed; the last good configuration keeps serving',
    );
  }

  #markReady(): void {
    if (!this.#firstSyncDone) {
      this.#firstSyncDone = true;
      const totals = this.#parts.reports.totals();
      this.#logger.info(
        { owned: totals.owned, problems: totals.errors + totals.warnings },
        'first configuration applied',
      );
      for (const resolve of this.#readyWaiters.splice(0)) resolve();
    }
  }
}
