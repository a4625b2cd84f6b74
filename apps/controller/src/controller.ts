/**
 * One controller replica, as a chain of stages:
 *
 *   store change events ─▶ recordChange (relevance, keys) ─▶ SyncQueue (coalesce, retry)
 *     ─▶ IngressRouting (class resolution, translation, backends; route table delta)
 *        ← GatewayApiStage (Gateways and HTTPRoutes into the same table, when enabled)
 *     ─▶ checksum gate ─▶ NginxDataPlane (push the delta; reload only for a new nginx.conf)
 *     ─▶ IngressReports and GatewayApiStage (Events, logs, statuses once served) and metrics
 *
 * around which it runs the healthz server and the leader-only loops. A failed sync (checksum
 * mismatch, nginx refusing or not answering) leaves the last good configuration serving; what was
 * not pushed stays staged and the sync is retried with backoff.
 */
import {
  SyncQueue,
  bucketRateLimiter,
  exponentialFailureRateLimiter,
  maxOfRateLimiter,
} from '@ingresskit/task-queue';
import { createStore, type Store } from '@ingresskit/store';
import type { RouteTable } from '@ingresskit/route-model';
import { performance } from 'node:perf_hooks';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { resolveStatusAddresses } from '@ingresskit/status-sync';
import { ChecksumGate, type ChecksumVerdict } from './checksum-gate.js';
import { startAdmissionServer, type AdmissionServer } from './admission-server.js';
import {
  createDefaultCertificateContribution,
  parseTlsSecret,
  type TlsSecretResult,
} from '@ingresskit/ingress-routes';
import { viewOfSnapshot, type ClusterView } from './cluster-view.js';
import { secretAnnotationsOf, storeKindsOf, type ControllerConfig } from './config.js';
import {
  ChecksumMismatchError,
  DataPlanePushError,
  NginxConfigTestError,
  NginxReloadError,
  NginxStartError,
} from './errors.js';
import { createEventsApiSink, EventRecorder, type EventSink } from './events.js';
import { explainIngress, type IngressExplanation } from './explain.js';
import type { GatewayRouting } from './gateway-routing.js';
import { toGatewayAddresses, type GatewayStatusAddress } from './gateway-status.js';
import { GatewayStatusWriter } from './gateway-status-writer.js';
import { startHttpServer, type HttpServer } from './http-server.js';
import { IngressReports } from './ingress-reports.js';
import { IngressRouting } from './ingress-routing.js';
import { routingOptionsOf } from './ingress-routing-options.js';
import { readSystemNameservers } from './resolv-conf.js';
import { LeaderRole, statusAddressOptionsOf } from './leader.js';
import type { Logger } from './logger.js';
import { checksumToGaugeValue, createControllerMetrics, type ControllerMetrics } from './metrics.js';
import { registerIngressNginxMetrics } from './ingress-nginx-metrics.js';
import { registerRequestMetrics } from './request-metrics.js';
import { NginxDataPlane } from './data-plane.js';
import { listenersOf } from './data-plane-render-options.js';
import { ExternalNames, type LookupName } from './external-names.js';
import { GatewayApiStage } from './gateway-api-stage.js';
import { ControllerConfigMap } from './controller-configmap.js';
import { createPendingChanges, recordChange, takePendingChanges } from './pending-changes.js';

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
  /** How ExternalName host names are resolved (the system resolver by default), and how often again (30 s). */
  externalNames?: { lookup?: LookupName; refreshMs?: number };
}

/** A summary of the routing state, for tests and the demo. */
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
  readonly dataPlane: NginxDataPlane;
  readonly routing: IngressRouting;
  /** The Gateway API stage, when `--gateway-controller-name` is set. */
  readonly #gatewayApi: GatewayApiStage | undefined;
  readonly #configMap: ControllerConfigMap | undefined;
  readonly #deps: ControllerDependencies;
  readonly #logger: Logger;
  readonly #recorder: EventRecorder;
  readonly #reports: IngressReports;
  readonly #checksumGate = new ChecksumGate();
  readonly #pending = createPendingChanges();
  readonly #externalNames: ExternalNames;
  #checksum: ChecksumVerdict | undefined;
  #store: Store | undefined;
  #queue: SyncQueue | undefined;
  #leader: LeaderRole | undefined;
  #http: HttpServer | undefined;
  #admission: AdmissionServer | undefined;
  #initialized = false;
  #firstSyncDone = false;
  /** Ingresses that became ours and that nginx does not serve yet: no status is published for them. */
  readonly #unserved = new Set<string>();
  /** Owned Ingresses changed; status-sync is asked to run once nginx serves the change. */
  #statusDue = false;
  #gatewayStatus: GatewayStatusWriter | undefined;
  #starting: Promise<void> | undefined;
  #readyWaiters: (() => void)[] = [];
  #lastSyncError: string | undefined;
  #state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(config: ControllerConfig, deps: ControllerDependencies) {
    this.config = config;
    this.#deps = deps;
    this.#logger = deps.logger;
    const now = deps.now ?? Date.now;
    this.metrics = deps.metrics ?? createControllerMetrics();
    this.#externalNames = new ExternalNames({
      ...deps.externalNames,
      inUse: (hostname) => this.routing.usesExternalName(hostname),
      onChange: (hostnames) => {
        for (const hostname of hostnames) this.#pending.externalNames.add(hostname);
        this.#requestSync('ExternalName addresses changed', false);
      },
      logger: deps.logger,
    });
    this.routing = new IngressRouting({
      ...routingOptionsOf(config, listenersOf(config), now),
      resolveExternalName: (hostname) => this.#externalNames.resolution(hostname),
    });
    this.dataPlane = new NginxDataPlane({
      binary: config.nginxBinary,
      prefix: config.nginxPrefix,
      httpPort: config.httpPort,
      httpsPort: config.httpsPort,
      ...(config.listenAddresses === undefined ? {} : { listenAddresses: config.listenAddresses }),
      workerProcesses: config.workerProcesses,
      accessLog: config.accessLog,
      renderOptions: {
        sharedDictSize: config.luaSharedDictSize,
        // auth-url host names are resolved by nginx; its answers are checked like backends'.
        resolvers: readSystemNameservers(),
        localAuthPeers: config.backendAddressPolicy.allowLocalAddresses,
        requestMetrics: config.requestMetrics,
      },
      // --sync-rate-limit protects nginx from reload storms; pushes of data are never throttled.
      reloadMinIntervalMs: config.syncRateLimit > 0 ? 1000 / config.syncRateLimit : 0,
      listeners: listenersOf(config),
      readTable: () => this.routing.table(),
      logger: deps.logger,
      onRestart: () => this.metrics.nginxRestarts.inc(),
      onDrift: (reason) => {
        this.metrics.dataPlaneDrifts.inc();
        this.#logger.warn({ reason }, "nginx's data is not what was pushed; pushing everything again");
        this.#requestSync('data plane drift', true);
      },
    });
    // ingress-nginx's metric names and labels, for the dashboards and alerts its users have.
    const controllerLabels = {
      controller_namespace: config.podNamespace,
      controller_class: config.classConfig.controllerClass,
      controller_pod: config.podName,
    };
    registerIngressNginxMetrics(this.metrics.registry, this.metrics, controllerLabels, {
      table: () => this.routing.table(),
      ingress: (key) => this.#store?.snapshot().ingresses.get(key),
    });
    if (config.requestMetrics) {
      registerRequestMetrics(
        this.metrics.registry,
        { read: () => this.dataPlane.readRequestMetrics(), table: () => this.routing.table() },
        controllerLabels,
      );
    }
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
    this.#reports = new IngressReports({
      recorder: this.#recorder,
      logger: deps.logger,
      isLeader: () => this.isLeader(),
    });
    this.#configMap =
      config.configMap === undefined
        ? undefined
        : new ControllerConfigMap(config.configMap, {
            recorder: this.#recorder,
            logger: deps.logger,
            isLeader: () => this.isLeader(),
          });
    this.#gatewayApi =
      config.gatewayControllerName === undefined
        ? undefined
        : new GatewayApiStage({
            controllerName: config.gatewayControllerName,
            allowCrossNamespaceHosts: config.allowCrossNamespaceHosts,
            now,
            recorder: this.#recorder,
            logger: deps.logger,
            isLeader: () => this.isLeader(),
            identify: (kind, key) =>
              kind === 'Gateway' || kind === 'HTTPRoute'
                ? this.#store?.snapshot().get(kind, key)?.metadata
                : undefined,
          });
  }

  /** Gateways and HTTPRoutes into the table, when `--gateway-controller-name` is set. */
  get gatewayRouting(): GatewayRouting | undefined {
    return this.#gatewayApi?.routing;
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
    // nginx starts serving 503 right away, and data from the first sync on.
    await this.dataPlane.prepare();
    checkNotStopped();
    this.#http = await startHttpServer({
      port: config.healthzPort,
      host: config.healthzHost,
      notReadyReason: () => this.notReadyReason(),
      registry: this.metrics.registry,
      explain: (key) => this.explain(key),
      explainGatewayApi:
        this.#gatewayApi === undefined
          ? undefined
          : (kind, key) => this.#gatewayApi!.explain(kind, key, this.routing),
      logger: this.#logger,
    });
    const store = createStore(this.#deps.kubeConfig, {
      namespaces: config.watchNamespaces,
      kinds: storeKindsOf(this.config),
      secretAnnotations: secretAnnotationsOf(config.annotationPrefix),
      ...(config.defaultSslCertificate === undefined ? {} : { keepSecrets: [config.defaultSslCertificate] }),
    });
    this.#store = store;
    store.on('change', (event) => {
      const isRelevant = recordChange(this.#pending, event, {
        snapshot: store.snapshot(),
        isServiceReferenced: (key) => this.routing.isServiceReferenced(key),
        checksumEnabled: config.checksumEnabled,
        gatewayApiEnabled: this.#gatewayApi !== undefined,
        configMapKey: config.configMap,
        defaultCertificateKey: config.defaultSslCertificate,
      });
      if (isRelevant) this.#requestSync(`${event.kind} ${event.key} ${event.type}`, false);
    });
    store.on('error', (error) => this.#logger.warn({ err: error }, 'store: list or watch failed; retrying'));
    store.on('stale', (change) =>
      this.#logger.warn(change, 'store: informer is stale; serving the last known state'),
    );
    store.on('recovered', (change) => this.#logger.info(change, 'store: informer recovered'));
    this.#logger.info(
      { namespaces: config.watchNamespaces.length === 0 ? 'all' : config.watchNamespaces },
      'waiting for the store to list',
    );
    // nginx starts while the store lists; a failure here is retried by the first sync.
    const nginxStarting = this.dataPlane.start().then(
      (started) => {
        if (started) this.#recordLoad();
      },
      (error: unknown) =>
        this.#logger.warn({ err: error }, 'nginx did not start; the first sync tries again'),
    );
    await store.start();
    await nginxStarting;
    checkNotStopped();
    // The webhook judges against the listed IngressClasses and Secrets, so it starts only now.
    if (config.admissionWebhook !== undefined) {
      this.#admission = await startAdmissionServer({
        ...config.admissionWebhook,
        view: () => viewOfSnapshot(store.snapshot()),
        classConfig: config.classConfig,
        maxPathsPerIngress: config.maxPathsPerIngress,
        authAddressPolicy: routingOptionsOf(config, [], () => Date.now()).backendAddressPolicy,
        annotationPrefix: config.annotationPrefix,
        hostOwnershipProblems: (object, hostnames) => this.routing.hostOwnershipProblems(object, hostnames),
        now: () => Date.now(),
        logger: this.#logger,
      });
      checkNotStopped();
    }

    const queue = new SyncQueue({
      sync: () => this.#sync(),
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
      listOwnedIngresses: () => this.#ownedIngresses(),
      onLeadershipChange: (isLeader) => {
        // Leaders report Ingress problems as Events: the new leader reports them all.
        if (isLeader) this.#reports.recordAll();
        if (isLeader) this.#gatewayApi?.becameLeader();
      },
    });
    if (config.gatewayControllerName !== undefined) {
      const coreApi = this.#deps.kubeConfig.makeApiClient(CoreV1Api);
      this.#gatewayStatus = new GatewayStatusWriter({
        kubeConfig: this.#deps.kubeConfig,
        controllerName: config.gatewayControllerName,
        isLeader: () => this.isLeader(),
        readCached: (kind, key) => store.snapshot().get(kind, key),
        listCachedRoutes: () => store.snapshot().httpRoutes.values(),
        resolveAddresses: () => this.#resolveGatewayAddresses(coreApi),
        logger: this.#logger,
        ...(this.#deps.now === undefined ? {} : { now: this.#deps.now }),
      });
      this.#gatewayApi?.attachStatusWriter(this.#gatewayStatus);
    }
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
    this.#externalNames.stop();
    await step('gateway status', () => this.#gatewayStatus?.stop());
    await step('leader role', () => this.#leader?.stop({ release: options.releaseLease ?? true }));
    await step('events', () => this.#recorder.flush());
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
    if (!this.#initialized) {
      return {
        ingress: key,
        found: false,
        owned: false,
        explanation: 'The controller has not finished its first sync.',
        routes: [],
        problems: [],
      };
    }
    const checksum = this.#checksum;
    return explainIngress(
      this.routing,
      key,
      checksum === undefined ? undefined : { ok: checksum.ok, message: checksum.message },
    );
  }

  /** A summary of the routing state. */
  summary(): SyncSummary | undefined {
    if (!this.#initialized) return undefined;
    const totals = this.#reports.totals();
    const summary: SyncSummary = {
      owned: totals.owned,
      ignored: [...totals.ignoredByReason.values()].reduce((sum, count) => sum + count, 0),
      problems: totals.errors + totals.warnings,
    };
    if (this.#checksum !== undefined)
      summary.checksum = { ok: this.#checksum.ok, message: this.#checksum.message };
    return summary;
  }

  // Every request shares one key: waiting requests merge into one sync (which takes every pending
  // change) and failures retry on one backoff.
  #requestSync(reason: string, forced: boolean): void {
    this.#logger.debug({ reason }, 'sync requested');
    this.#queue?.enqueue(SYNC_KEY, { skippable: !forced });
  }

  *#ownedIngresses() {
    for (const verdict of this.routing.verdicts()) {
      if (verdict.decision.owned && !this.#unserved.has(verdict.key)) yield verdict.ingress;
    }
  }

  async #sync(): Promise<void> {
    const store = this.#store;
    if (store === undefined || this.#state !== 'running') return;
    const stopTimer = this.metrics.syncDuration.startTimer();
    try {
      await this.#syncOnce(viewOfSnapshot(store.snapshot()));
      this.metrics.syncs.inc({ result: 'success' });
    } catch (error) {
      this.metrics.syncs.inc({
        result: error instanceof ChecksumMismatchError ? 'checksum-mismatch' : 'error',
      });
      this.#recordFailure(error);
      throw error;
    } finally {
      stopTimer();
    }
  }

  async #syncOnce(view: ClusterView): Promise<void> {
    const changes = takePendingChanges(this.#pending);
    const routing = this.routing;
    if (this.#configMap !== undefined && (changes.configMap || !this.#initialized)) {
      const change = this.#configMap.read(view);
      if (change.translation !== undefined) {
        routing.setTranslationDefaults(change.translation);
        changes.allIngresses = true;
      }
      if (change.nginx !== undefined) this.dataPlane.setConfigMapSettings(change.nginx);
    }
    const initializing = !this.#initialized;
    if (!this.#initialized) {
      routing.initialize(view);
      this.#initialized = true;
      changes.allIngresses = true;
    } else if (changes.allIngresses) {
      routing.setIngressClasses(view);
    }
    if (initializing || changes.defaultCertificate) this.#setDefaultCertificate(view);
    const startedAt = performance.now();
    routing.updateIngresses(
      view,
      changes.allIngresses ? [...view.ingressKeys(), ...changes.ingresses] : changes.ingresses,
    );
    routing.updateServices(view, changes.services);
    routing.updateExternalNames(view, changes.externalNames);
    if (changes.gatewayApi || changes.allIngresses) this.#gatewayApi?.route(view, routing);
    const delta = routing.commit();
    this.#gatewayApi?.report(routing);
    const routedAt = performance.now();
    this.dataPlane.stage(delta);
    this.#reportAffected();
    const stagedAt = performance.now();

    if (this.config.checksumEnabled) this.#verifyChecksum(view);
    let result = await this.dataPlane.flush();
    // The data plane refused routes (its regex engine said no): leave exactly those out and push again.
    while (result.refused.length > 0 && routing.refuseRoutes(view, result.refused)) {
      this.dataPlane.stage(routing.commit());
      this.#reportAffected();
      result = await this.dataPlane.flush();
    }
    if (result.refused.length > 0)
      throw new DataPlanePushError('the data plane refused routes it had refused before');
    routing.setRefusedCertificates(this.dataPlane.refusedCertificates());
    this.#reportAffected();
    // nginx serves what was staged: only now may Ingress status say so.
    this.#unserved.clear();
    if (this.#statusDue) {
      this.#statusDue = false;
      this.#leader?.requestStatusSync();
    }
    this.#gatewayApi?.served();
    if (result.reloaded || result.started) this.#recordLoad();
    if (result.pushed) this.metrics.dynamicUpdates.inc({ result: 'success' });
    this.#logger.debug(
      {
        hosts: delta.virtualHosts.upsert.length + delta.virtualHosts.remove.length,
        backends: delta.backends.upsert.length + delta.backends.remove.length,
        routeMs: Math.round(routedAt - startedAt),
        stageMs: Math.round(stagedAt - routedAt),
        flushMs: Math.round(performance.now() - stagedAt),
        ...result,
      },
      'sync applied',
    );
    const running = this.dataPlane.configuration;
    if (running !== undefined) this.metrics.configHash.set(checksumToGaugeValue(running.checksum));
    this.#lastSyncError = undefined;
    if (!this.#firstSyncDone) {
      this.#firstSyncDone = true;
      const totals = this.#reports.totals();
      this.#logger.info(
        { owned: totals.owned, problems: totals.errors + totals.warnings },
        'first configuration applied',
      );
      for (const resolve of this.#readyWaiters.splice(0)) resolve();
    }
  }

  /** `--default-ssl-certificate` into the table, or the self-signed fallback while it cannot be served. */
  #setDefaultCertificate(view: ClusterView): void {
    const key = this.config.defaultSslCertificate;
    if (key === undefined) return;
    const secret = view.secret(key);
    const result: TlsSecretResult =
      secret === undefined ? { ok: false, message: 'does not exist' } : parseTlsSecret(secret);
    if (!result.ok) {
      this.#logger.warn(
        { secret: key, reason: result.message },
        'the default certificate is not served; the self-signed one is',
      );
    }
    this.routing.setContribution(
      view,
      createDefaultCertificateContribution(result.ok ? result.certificate : undefined),
    );
  }

  async #resolveGatewayAddresses(coreApi: CoreV1Api): Promise<GatewayStatusAddress[]> {
    try {
      return toGatewayAddresses(await resolveStatusAddresses(statusAddressOptionsOf(this.config), coreApi));
    } catch (error) {
      // Conditions matter more than addresses: publish them without addresses and say why.
      this.#logger.warn({ err: error }, 'cannot resolve Gateway status addresses; publishing none');
      return [];
    }
  }

  // Loading nginx.conf at a start counts as a reload, as in ingress-nginx's metrics.
  #recordLoad(): void {
    this.metrics.reloads.inc({ result: 'success' });
    this.metrics.lastReloadSuccessful.set(1);
    this.metrics.lastReloadSuccessTimestamp.set(Date.now() / 1000);
    const running = this.dataPlane.configuration;
    if (running !== undefined) this.metrics.configHash.set(checksumToGaugeValue(running.checksum));
  }

  #recordFailure(error: unknown): void {
    if (error instanceof DataPlanePushError) {
      this.metrics.dynamicUpdates.inc({ result: 'failure' });
      return;
    }
    if (
      !(error instanceof NginxConfigTestError) &&
      !(error instanceof NginxReloadError) &&
      !(error instanceof NginxStartError)
    )
      return;
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

  // Reports, checksum ids and metrics follow the Ingresses whose verdict or problems changed.
  #reportAffected(): void {
    const affected = this.routing.takeAffectedIngresses();
    if (affected.size === 0) return;
    let ownershipChanged = false;
    for (const key of affected) {
      const verdict = this.routing.verdict(key);
      const owned = verdict?.decision.owned === true;
      if (this.#reports.update(key, verdict, owned ? this.routing.problemsOf(key) : [])) {
        ownershipChanged = true;
        if (owned) this.#unserved.add(key);
      }
      if (this.config.checksumEnabled) this.#checksumGate.update(key, owned ? verdict.ingress : undefined);
    }
    if (ownershipChanged) this.#statusDue = true;
    const totals = this.#reports.totals();
    this.metrics.ownedIngresses.set(totals.owned);
    this.metrics.ignoredIngresses.reset();
    for (const [reason, count] of totals.ignoredByReason)
      this.metrics.ignoredIngresses.set({ reason }, count);
    this.metrics.problems.set({ severity: 'error' }, totals.errors);
    this.metrics.problems.set({ severity: 'warning' }, totals.warnings);
  }

  #verifyChecksum(view: ClusterView): void {
    const checksum = this.#checksumGate.verify(view.ingressCheckSums());
    this.#checksum = checksum;
    this.metrics.checksumOk.set(checksum.ok ? 1 : 0);
    this.metrics.checksumChecks.inc({
      result: !checksum.checked ? 'unchecked' : checksum.ok ? 'match' : 'mismatch',
    });
    if (checksum.ok) return;
    this.#logger.error(
      {
        checksum: checksum.checksum,
        expected: checksum.expected,
        localOnly: checksum.diff.localOnly,
        publishedOnly: checksum.diff.publishedOnly,
      },
      'Ingress checksum mismatch: keeping the last good configuration',
    );
    if (checksum.object !== undefined && this.isLeader()) {
      this.#recorder.record({
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
    throw new ChecksumMismatchError(checksum.message);
  }
}
