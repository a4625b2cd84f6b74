/**
 * The work only one replica does: Lease leader election, publishing load-balancer addresses into
 * the status of owned Ingresses, and GatewayClass reconciliation. Every replica runs the elector;
 * StatusSync and the GatewayClass controller ask `isLeader()` before every write.
 */
import { GatewayClassController, type GatewayClassSource } from '@ingresskit/gateway-class';
import {
  LeaderElector,
  StatusSync,
  type OwnedIngress,
  type StatusAddressOptions,
} from '@ingresskit/status-sync';
import type { Store } from '@ingresskit/store';
import { CoordinationV1Api, CoreV1Api, NetworkingV1Api, type KubeConfig } from '@kubernetes/client-node';
import { namespacedKey } from '@ingresskit/kube-objects';
import type { ControllerConfig } from './config.js';
import { SUPPORTED_GATEWAY_FEATURES } from './gateway-routing.js';
import type { Logger } from './logger.js';
import type { ControllerMetrics } from './metrics.js';

/** Options of {@link LeaderRole}. */
export interface LeaderRoleOptions {
  kubeConfig: KubeConfig;
  config: ControllerConfig;
  store: Store;
  logger: Logger;
  metrics: ControllerMetrics;
  /** The Ingresses this replica owns now (after class resolution), with their cached status. */
  listOwnedIngresses: () => Iterable<OwnedIngress>;
  /** This replica started or stopped leading. */
  onLeadershipChange?: (isLeader: boolean) => void;
}

/** Runs the leader election and, on the leader, the Ingress status and GatewayClass loops. */
export class LeaderRole {
  readonly #options: LeaderRoleOptions;
  readonly #elector: LeaderElector;
  readonly #statusSync: StatusSync | undefined;
  readonly #gatewayClasses: GatewayClassController | undefined;
  #started = false;

  constructor(options: LeaderRoleOptions) {
    this.#options = options;
    const { config, kubeConfig, logger, metrics } = options;
    const ttl = config.electionTtlMs;
    this.#elector = new LeaderElector({
      coordinationApi: kubeConfig.makeApiClient(CoordinationV1Api),
      namespace: config.podNamespace,
      electionId: config.electionId,
      identity: config.podName,
      // ingress-nginx's proportions: lease 30 s, renew deadline 15 s, retry 7.5 s.
      leaseDurationMs: ttl,
      renewDeadlineMs: ttl / 2,
      retryPeriodMs: ttl / 4,
    });
    const isLeader = () => this.#elector.isLeader();
    metrics.leader.set({ name: config.electionId }, 0);
    this.#elector.on('started-leading', () => {
      logger.info({ lease: namespacedKey(config.podNamespace, config.electionId) }, 'started leading');
      metrics.leader.set({ name: config.electionId }, 1);
      this.#statusSync?.requestSync();
      this.#gatewayClasses?.resync();
      options.onLeadershipChange?.(true);
    });
    this.#elector.on('stopped-leading', (reason) => {
      logger.info({ reason }, 'stopped leading');
      metrics.leader.set({ name: config.electionId }, 0);
      options.onLeadershipChange?.(false);
    });
    this.#elector.on('new-leader', (identity) => logger.info({ leader: identity }, 'new leader observed'));
    this.#elector.on('attempt-failed', (error) =>
      logger.warn({ err: error }, 'leader election attempt failed'),
    );

    if (config.updateStatus) {
      const addresses = statusAddressOptionsOf(config);
      this.#statusSync = new StatusSync({
        networkingApi: kubeConfig.makeApiClient(NetworkingV1Api),
        coreApi: kubeConfig.makeApiClient(CoreV1Api),
        addresses,
        isLeader,
        listOwnedIngresses: options.listOwnedIngresses,
        updateStatusOnShutdown: config.updateStatusOnShutdown,
      });
      this.#statusSync.on('synced', (result) => {
        if (result.written.length > 0 || result.failed.length > 0) {
          logger.info(
            { addresses: result.addresses, written: result.written, failed: result.failed.map((f) => f.key) },
            'Ingress status published',
          );
        }
      });
      // Also emitted when stop() cannot tell whether to clear the status: this is its only log line.
      this.#statusSync.on('sync-failed', (error) =>
        logger.warn({ err: error }, 'Ingress status sync failed; the published status stays as it is'),
      );
    }

    if (config.gatewayControllerName !== undefined) {
      this.#gatewayClasses = new GatewayClassController({
        controllerName: config.gatewayControllerName,
        kubeConfig,
        isLeader,
        source: createGatewayClassSource(options.store),
        supportedFeatures: SUPPORTED_GATEWAY_FEATURES,
      });
      this.#gatewayClasses.on('reconciled', (result) => {
        if (result.outcome === 'updated')
          logger.info({ gatewayClass: result.name, finalizer: result.finalizer }, 'GatewayClass reconciled');
      });
      this.#gatewayClasses.on('error', (error, name) =>
        logger.warn({ err: error, gatewayClass: name }, 'GatewayClass reconcile failed'),
      );
    }
  }

  /** Whether this replica leads now. */
  isLeader(): boolean {
    return this.#elector.isLeader();
  }

  /** The holder this replica last saw, if any. */
  leader(): string | undefined {
    return this.#elector.leader();
  }

  /** Starts competing for the Lease, and the leader-only loops (which write only while leading). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#elector.start();
    this.#statusSync?.start();
    this.#gatewayClasses?.start();
  }

  /** Asks for a status sync soon (owned Ingresses changed). */
  requestStatusSync(): void {
    if (this.#started) this.#statusSync?.requestSync();
  }

  /**
   * Stops the loops, clears the published status when this is the last replica (and asked to),
   * then gives up the Lease (`release: false` leaves it to expire, as a crash would).
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    const { config, logger } = this.#options;
    if (this.#statusSync !== undefined) {
      // Never rejects; when it could not decide, the sync-failed listener has logged why.
      const { cleared, reason, failed } = await this.#statusSync.stop();
      logger.info({ cleared, reason, failed: failed.map((f) => f.key) }, 'status sync stopped');
    }
    try {
      await this.#gatewayClasses?.stop();
    } finally {
      // Never rejects either: a Lease that cannot be released expires, as after a crash.
      const { released, error } = await this.#elector.stop({ release: options.release ?? true });
      const lease = namespacedKey(config.podNamespace, config.electionId);
      if (error !== undefined)
        logger.warn({ err: error, lease }, 'cannot release the Lease; another replica leads once it expires');
      else if (released) logger.info({ lease }, 'Lease released');
    }
  }
}

/** Where published addresses come from, for Ingress and Gateway status alike. */
export function statusAddressOptionsOf(
  config: Pick<
    ControllerConfig,
    'podNamespace' | 'podName' | 'reportNodeInternalIp' | 'publishStatusAddress' | 'publishService'
  >,
): StatusAddressOptions {
  return {
    controllerPod: { namespace: config.podNamespace, name: config.podName },
    reportNodeInternalIp: config.reportNodeInternalIp,
    ...(config.publishStatusAddress === '' ? {} : { publishStatusAddress: config.publishStatusAddress }),
    ...(config.publishService === '' ? {} : { publishService: config.publishService }),
  };
}

/** The GatewayClass controller's view of the store. */
function createGatewayClassSource(store: Store): GatewayClassSource {
  return {
    listGatewayClasses: () => store.snapshot().gatewayClasses.values(),
    listGatewaysForClass: (name) => store.snapshot().gatewaysForGatewayClass(name),
    listCustomResourceDefinitions: () => store.snapshot().customResourceDefinitions.values(),
    getParametersObject: (ref) =>
      ref.kind === 'ConfigMap' && ref.namespace !== undefined
        ? store.snapshot().configMaps.get(namespacedKey(ref.namespace, ref.name))
        : undefined,
    subscribe: (listener) => {
      const onChange = (event: { kind: string; oldObject?: unknown; newObject?: unknown }) =>
        listener({ kind: event.kind, oldObject: event.oldObject, newObject: event.newObject });
      store.on('change', onChange);
      return () => {
        store.off('change', onChange);
      };
    },
    hasSynced: () => store.hasSynced(),
  };
}
