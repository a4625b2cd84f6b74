/**
 * The composition root of one controller replica: every part a sync strings together (routing,
 * data plane, ConfigMap and Gateway API stages, reports, metrics) built from the config in one
 * place, so the controller only starts, runs and stops them. `run` and `demo` both go through it.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { canonicalAddress, CLOUD_METADATA_NETWORKS } from '@ingresskit/ingress-routes';
import {
  createSystemLookup,
  ExternalNames,
  readHostsFile,
  readResolvConf,
  readSystemNameservers,
  type LookupName,
} from '@ingresskit/name-resolution';
import { resolveStatusAddresses } from '@ingresskit/status-sync';
import type { StoreSnapshot } from '@ingresskit/store';
import type { ControllerConfig } from './config.js';
import { ControllerConfigMap } from './controller-configmap.js';
import { NginxDataPlane } from './data-plane.js';
import { listenersOf, sslPassthroughRenderOptions } from './data-plane-render-options.js';
import { createEventsApiSink, EventRecorder, type EventSink } from './events.js';
import { GatewayApiStage } from './gateway-api-stage.js';
import { toGatewayAddresses } from './gateway-status.js';
import { GatewayStatusWriter } from './gateway-status-writer.js';
import { registerIngressNginxMetrics } from './ingress-nginx-metrics.js';
import { IngressReports } from './ingress-reports.js';
import { IngressRouting } from './ingress-routing.js';
import { L4Services, l4ConfigOf } from './l4-services.js';
import { routingOptionsOf } from './ingress-routing-options.js';
import { statusAddressOptionsOf } from './leader.js';
import type { Logger } from './logger.js';
import { createControllerMetrics, type ControllerMetrics } from './metrics.js';
import { registerNginxProcessMetrics } from './nginx-process-metrics.js';
import { listOwnPorts } from './own-ports.js';
import { createRequestMetrics } from './request-metrics.js';
import { requestCountingOf } from './request-metrics-options.js';
import { SyncReporting } from './sync-reporting.js';
import type { StreamedMetrics } from './streamed-metrics.js';
import { SyncStage } from './sync-stage.js';

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
  /**
   * How ExternalName host names are resolved (name-resolution's system lookup over /etc/resolv.conf
   * and /etc/hosts by default), how often again (30 s) and how long one lookup may take (10 s).
   */
  externalNames?: { lookup?: LookupName; refreshMs?: number; timeoutMs?: number };
}

/** What the parts ask of the running controller; bound late, as the parts exist before it starts. */
export interface ControllerLinks {
  isLeader(): boolean;
  /** Asks for a sync; a forced one is never skipped. */
  requestSync(reason: string, forced: boolean): void;
  /** ExternalName names (externalNameKey) whose addresses changed: the next sync pins their backends again. */
  externalNamesChanged(keys: Iterable<string>): void;
  /** The store's snapshot, once it started. */
  snapshot(): StoreSnapshot | undefined;
  /** Asks the store to keep these Secrets (the ones the controller ConfigMap names); those it reads. */
  keepSecrets(keys: readonly string[]): readonly string[];
  /** Owned Ingresses changed and nginx serves them: the leader should publish their status. */
  requestStatusSync(): void;
}

/** The parts of one replica; see the module comment. */
export interface ControllerParts {
  metrics: ControllerMetrics;
  /** Served on /metrics after the registry's; with `--enable-metrics`. */
  requestMetrics: StreamedMetrics | undefined;
  routing: IngressRouting;
  dataPlane: NginxDataPlane;
  externalNames: ExternalNames;
  recorder: EventRecorder;
  /** With `--configmap`. */
  configMap: ControllerConfigMap | undefined;
  reports: IngressReports;
  /** With `--gateway-controller-name`. */
  gatewayApi: GatewayApiStage | undefined;
  /** The ssl-passthrough proxy and the TCP/UDP services; idle unless their flags are set. */
  l4: L4Services;
  sync: SyncStage;
  reporting: SyncReporting;
}

/** Builds the parts of a replica and registers their metrics. */
export function createControllerParts(
  config: ControllerConfig,
  deps: ControllerDependencies,
  links: ControllerLinks,
): ControllerParts {
  const { logger } = deps;
  const now = deps.now ?? Date.now;
  const metrics = deps.metrics ?? createControllerMetrics();
  const externalNames: ExternalNames = new ExternalNames({
    ...deps.externalNames,
    lookup:
      deps.externalNames?.lookup ??
      createSystemLookup({ resolvConf: readResolvConf(), hosts: readHostsFile() }),
    inUse: (namespace, hostname) => routing.routingTable.usesExternalName(namespace, hostname),
    onChange: (keys) => {
      links.externalNamesChanged(keys);
      links.requestSync('ExternalName addresses changed', false);
    },
    logger,
  });
  const routing: IngressRouting = new IngressRouting({
    ...routingOptionsOf(config, listenersOf(config), now),
    resolveExternalName: (namespace, hostname) => externalNames.resolution(namespace, hostname),
  });
  const dataPlane = createDataPlane(config, { logger, metrics, routing, links });
  // ingress-nginx's metric names and labels, for the dashboards and alerts its users have.
  const controllerLabels = {
    controller_namespace: config.podNamespace,
    controller_class: config.classConfig.controllerClass,
    controller_pod: config.podName,
  };
  registerIngressNginxMetrics(metrics.registry, metrics, controllerLabels, {
    table: () => routing.table(),
    ingress: (key) => links.snapshot()?.ingresses.get(key),
  });
  const requestMetrics = config.requestMetrics
    ? createRequestMetrics(
        { read: () => dataPlane.readRequestMetrics(), table: () => routing.table() },
        controllerLabels,
        config.requestMetricsOptions,
      )
    : undefined;
  if (config.requestMetrics) {
    const { unknownExclusions } = config.requestMetricsOptions;
    // ingress-nginx ignores them too (its own help names one): said once rather than refused.
    if (unknownExclusions.length > 0)
      logger.warn(
        { names: unknownExclusions },
        '--exclude-socket-metrics: not request metrics, ignored (only nginx_ingress_controller_requests and its histograms can be excluded)',
      );
    // ingress-nginx collects them with --enable-metrics only, as its request metrics.
    registerNginxProcessMetrics(
      metrics.registry,
      {
        pids: async () => {
          const master = dataPlane.masterPid;
          return master === undefined ? [] : [master, ...(await dataPlane.workerPids())];
        },
        readStatus: () => dataPlane.readNginxStatus(),
      },
      controllerLabels,
    );
  }
  const recorder = new EventRecorder({
    sink: deps.eventSink ?? createEventsApiSink(deps.kubeConfig),
    reportingController: config.classConfig.controllerClass,
    reportingInstance: config.podName,
    onWrite: (action) => metrics.events.inc({ action }),
    onError: (error, report) => {
      metrics.events.inc({ action: 'failed' });
      logger.warn(
        { err: error, reason: report.reason, regarding: report.regarding.name },
        'cannot write Event',
      );
    },
  });
  const isLeader = () => links.isLeader();
  const reports = new IngressReports({ recorder, logger, isLeader });
  const l4 = new L4Services(l4ConfigOf(config), {
    dataPlane,
    recorder,
    logger,
    isLeader,
    isOwned: (key) => routing.verdict(key)?.decision.owned === true,
    hostOwnershipProblems: (object, hostnames) =>
      routing.routingTable.hostOwnershipProblems(object, hostnames),
    servesHostname: (hostname) => routing.routingTable.servesHostname(hostname),
  });
  const configMap =
    config.configMap === undefined
      ? undefined
      : new ControllerConfigMap(config.configMap, {
          recorder,
          logger,
          isLeader,
          keepSecrets: (keys) => links.keepSecrets(keys),
        });
  const gatewayApi =
    config.gatewayControllerName === undefined
      ? undefined
      : new GatewayApiStage({
          controllerName: config.gatewayControllerName,
          allowCrossNamespaceHosts: config.allowCrossNamespaceHosts,
          now,
          recorder,
          logger,
          isLeader,
          identify: (kind, key) =>
            kind === 'Gateway' || kind === 'HTTPRoute'
              ? links.snapshot()?.get(kind, key)?.metadata
              : undefined,
        });
  const reporting = new SyncReporting({
    config,
    metrics,
    recorder,
    logger,
    isLeader,
    runningConfigHash: () => dataPlane.configuration?.configHash,
    now,
  });
  const sync = new SyncStage({
    config,
    routing,
    dataPlane,
    configMap,
    gatewayApi,
    l4,
    reports,
    logger,
    requestStatusSync: () => links.requestStatusSync(),
  });
  return {
    metrics,
    requestMetrics,
    routing,
    dataPlane,
    externalNames,
    recorder,
    configMap,
    reports,
    gatewayApi,
    l4,
    sync,
    reporting,
  };
}

function createDataPlane(
  config: ControllerConfig,
  parts: { logger: Logger; metrics: ControllerMetrics; routing: IngressRouting; links: ControllerLinks },
): NginxDataPlane {
  const { logger, metrics, routing, links } = parts;
  return new NginxDataPlane({
    binary: config.nginxBinary,
    prefix: config.nginxPrefix,
    httpPort: config.httpPort,
    httpsPort: config.httpsPort,
    ...(config.listenAddresses === undefined ? {} : { listenAddresses: config.listenAddresses }),
    workerProcesses: config.workerProcesses,
    accessLog: config.accessLog,
    renderOptions: {
      sharedDictSize: config.luaSharedDictSize,
      regexMatchesPerRequest: config.maxRegexMatchesPerRequest,
      // auth-url host names are resolved by nginx; its answers are checked like backends'.
      resolvers: readSystemNameservers(),
      localAuthPeers: config.backendAddressPolicy.allowLocalAddresses,
      // The rest of the backend address policy, for auth services' answers to host names nginx
      // resolved: metadata networks, this pod's addresses and the controller's ports.
      authPeerRules: {
        refusedNetworks: CLOUD_METADATA_NETWORKS.map((network) => network.cidr),
        ownAddresses: [...config.backendAddressPolicy.forbiddenAddresses]
          .map(canonicalAddress)
          .filter((address) => address !== undefined),
        ownPorts: [...listOwnPorts(config)],
      },
      requestMetrics: config.requestMetrics,
      requestCounting: requestCountingOf(config.requestMetricsOptions),
      ...(config.sslPassthrough
        ? sslPassthroughRenderOptions(config.httpsPort, config.sslPassthroughProxyPort)
        : {}),
    },
    // --sync-rate-limit protects nginx from reload storms; pushes of data are never throttled.
    reloadMinIntervalMs: config.syncRateLimit > 0 ? 1000 / config.syncRateLimit : 0,
    listeners: listenersOf(config),
    readTable: () => routing.table(),
    logger,
    onRestart: () => metrics.nginxRestarts.inc(),
    onDrift: (reason) => {
      metrics.dataPlaneDrifts.inc();
      logger.warn({ reason }, "nginx's data is not what was pushed; pushing everything again");
      links.requestSync('data plane drift', true);
    },
  });
}

/** The leader's writer of Gateway and HTTPRoute statuses, reading the store's cache. */
export function createGatewayStatusWriter(
  config: ControllerConfig & { gatewayControllerName: string },
  deps: ControllerDependencies,
  snapshot: () => StoreSnapshot,
  isLeader: () => boolean,
): GatewayStatusWriter {
  const coreApi = deps.kubeConfig.makeApiClient(CoreV1Api);
  return new GatewayStatusWriter({
    kubeConfig: deps.kubeConfig,
    controllerName: config.gatewayControllerName,
    isLeader,
    readCached: (kind, key) => snapshot().get(kind, key),
    listCachedRoutes: () => snapshot().httpRoutes.values(),
    resolveAddresses: async () => {
      try {
        return toGatewayAddresses(await resolveStatusAddresses(statusAddressOptionsOf(config), coreApi));
      } catch (error) {
        // Conditions matter more than addresses: publish them without addresses and say why.
        deps.logger.warn({ err: error }, 'cannot resolve Gateway status addresses; publishing none');
        return [];
      }
    },
    logger: deps.logger,
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
}
