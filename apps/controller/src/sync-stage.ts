/**
 * One sync, from the pending changes to what nginx serves: the controller ConfigMap, the routing
 * (with the Gateway API stage), the checksum gate, the data plane, then the Ingress reports. It
 * answers one value instead of throwing (sync-stage-outcome.ts): served, held back by the checksum
 * gate, or to be retried because the data plane did not take it, with what the reporting side
 * reads (the checksum verdict, the reports' totals). Either way the last good configuration keeps
 * serving.
 */
import { performance } from 'node:perf_hooks';
import {
  createDefaultCertificateContribution,
  parseTlsSecret,
  type TlsSecretResult,
} from '@ingresskit/ingress-routes';
import { ChecksumGate, type ChecksumVerdict } from './checksum-gate.js';
import type { ClusterView } from './cluster-view.js';
import type { ControllerConfig } from './config.js';
import type { ControllerConfigMap } from './controller-configmap.js';
import type { NginxDataPlane } from './data-plane.js';
import { ChecksumMismatchError, DataPlanePushError } from './errors.js';
import type { GatewayApiStage } from './gateway-api-stage.js';
import type { IngressReports } from './ingress-reports.js';
import type { IngressRouting } from './ingress-routing.js';
import type { L4Services } from './l4-services.js';
import type { Logger } from './logger.js';
import type { PendingChanges } from './pending-changes.js';
import type { SyncFindings, SyncStageOutcome } from './sync-stage-outcome.js';

/** The parts a sync strings together. */
export interface SyncStageOptions {
  config: Pick<ControllerConfig, 'checksumEnabled' | 'defaultSslCertificate'>;
  routing: IngressRouting;
  dataPlane: NginxDataPlane;
  configMap: ControllerConfigMap | undefined;
  gatewayApi: GatewayApiStage | undefined;
  /** Passthrough hosts and stream services; read from the view after a relevant event or an Ingress change. */
  l4?: L4Services | undefined;
  reports: IngressReports;
  logger: Logger;
  /** Owned Ingresses changed and nginx serves the change: the leader should publish their status. */
  requestStatusSync: () => void;
}

/** Runs one sync through every stage and answers its outcome. */
export class SyncStage {
  readonly #options: SyncStageOptions;
  readonly #checksumGate = new ChecksumGate();
  #initialized = false;
  #checksum: ChecksumVerdict | undefined;
  /** Ingresses that became ours and that nginx does not serve yet: no status is published for them. */
  readonly #unserved = new Set<string>();
  /** Owned Ingresses changed; status-sync is asked to run once nginx serves the change. */
  #statusDue = false;
  /** What the running sync found for the reporting side. */
  #findings: SyncFindings = {};

  constructor(options: SyncStageOptions) {
    this.#options = options;
  }

  /** Whether a sync has read the cluster (routing and reports hold its state from then on). */
  get isInitialized(): boolean {
    return this.#initialized;
  }

  /** The checksum gate's last verdict, when the gate is on. */
  get checksum(): ChecksumVerdict | undefined {
    return this.#checksum;
  }

  /** The owned Ingresses nginx serves, whose status may say so. */
  *servedOwnedIngresses() {
    for (const verdict of this.#options.routing.verdicts()) {
      if (verdict.decision.owned && !this.#unserved.has(verdict.key)) yield verdict.ingress;
    }
  }

  /** Brings routing and nginx up to `view` for `changes`; see the module comment. Never rejects. */
  async sync(changes: PendingChanges, view: ClusterView): Promise<SyncStageOutcome> {
    this.#findings = {};
    let outcome: SyncStageOutcome;
    try {
      outcome = await this.#sync(changes, view);
    } catch (error) {
      outcome = { kind: 'retry', error };
    }
    const findings = this.#findings;
    this.#findings = {};
    return { ...outcome, ...findings };
  }

  async #sync(changes: PendingChanges, view: ClusterView): Promise<SyncStageOutcome> {
    const { routing, dataPlane, configMap, gatewayApi } = this.#options;
    if (configMap !== undefined && (changes.configMap || !this.#initialized)) {
      const change = configMap.read(view);
      if (change.translation !== undefined) {
        routing.setTranslationDefaults(view, change.translation);
        changes.allIngresses = true;
      }
      if (change.nginx !== undefined) {
        dataPlane.setConfigMapSettings(change.nginx);
        this.#options.l4?.setConfigMapSettings(change.nginx);
      }
    }
    const initializing = !this.#initialized;
    if (initializing) {
      routing.initialize(view);
      this.#initialized = true;
      changes.allIngresses = true;
    } else if (changes.allIngresses) {
      routing.setIngressClasses(view);
    }
    // The stream services' ports are the controller's own: when they change, every backend and
    // auth URL is judged again.
    const { l4 } = this.#options;
    if (l4 !== undefined && routing.setOwnPorts(view, l4.ownPorts(view))) changes.allIngresses = true;
    if (initializing || changes.defaultCertificate) this.#setDefaultCertificate(view);
    const startedAt = performance.now();
    routing.updateIngresses(
      view,
      changes.allIngresses ? [...view.ingressKeys(), ...changes.ingresses] : changes.ingresses,
    );
    routing.routingTable.updateServices(view, changes.services);
    routing.routingTable.updateExternalNames(view, changes.externalNames);
    if (changes.gatewayApi.size > 0 || changes.allIngresses)
      gatewayApi?.route(view, routing, changes.gatewayApi);
    const delta = routing.commit();
    gatewayApi?.report(routing);
    const routedAt = performance.now();
    dataPlane.stage(delta);
    this.#reportAffected();
    const stagedAt = performance.now();

    if (this.#options.config.checksumEnabled) {
      const checksum = this.#checksumGate.verify(view.ingressCheckSums());
      this.#checksum = checksum;
      this.#findings.checksum = checksum;
      if (!checksum.ok) return { kind: 'held', error: new ChecksumMismatchError(checksum.message) };
    }
    // A Gateway can take a host, so Gateway API changes may change who passes through too.
    this.#options.l4?.sync(view, {
      ingresses:
        initializing || changes.allIngresses || changes.ingresses.size > 0 || changes.gatewayApi.size > 0,
    });
    let flush = await dataPlane.flush();
    // The data plane refused routes (its regex engine said no): leave exactly those out and push again.
    while (flush.refused.length > 0 && routing.routingTable.refuseRoutes(view, flush.refused)) {
      dataPlane.stage(routing.commit());
      this.#reportAffected();
      flush = await dataPlane.flush();
    }
    if (flush.refused.length > 0) {
      return {
        kind: 'retry',
        error: new DataPlanePushError('the data plane refused routes it had refused before'),
      };
    }
    routing.routingTable.setRefusedCertificates(dataPlane.refusedCertificates());
    this.#reportAffected();
    // nginx serves what was staged: only now may Ingress status say so.
    this.#unserved.clear();
    if (this.#statusDue) {
      this.#statusDue = false;
      this.#options.requestStatusSync();
    }
    gatewayApi?.served();
    this.#options.logger.debug(
      {
        hosts: delta.virtualHosts.upsert.length + delta.virtualHosts.remove.length,
        backends: delta.backends.upsert.length + delta.backends.remove.length,
        routeMs: Math.round(routedAt - startedAt),
        stageMs: Math.round(stagedAt - routedAt),
        flushMs: Math.round(performance.now() - stagedAt),
        ...flush,
      },
      'sync applied',
    );
    return { kind: 'served', flush };
  }

  /** `--default-ssl-certificate` into the table, or the self-signed fallback while it cannot be served. */
  #setDefaultCertificate(view: ClusterView): void {
    const key = this.#options.config.defaultSslCertificate;
    if (key === undefined) return;
    const secret = view.secret(key);
    const result: TlsSecretResult =
      secret === undefined ? { ok: false, message: 'does not exist' } : parseTlsSecret(secret);
    if (!result.ok) {
      this.#options.logger.warn(
        { secret: key, reason: result.message },
        'the default certificate is not served; the self-signed one is',
      );
    }
    this.#options.routing.setContribution(
      view,
      createDefaultCertificateContribution(result.ok ? result.certificate : undefined),
    );
  }

  // Reports, checksum ids and metrics follow the Ingresses whose verdict or problems changed.
  #reportAffected(): void {
    const { routing, reports } = this.#options;
    const affected = routing.takeAffectedIngresses();
    if (affected.size === 0) return;
    let ownershipChanged = false;
    for (const key of affected) {
      const verdict = routing.verdict(key);
      const owned = verdict?.decision.owned === true;
      if (reports.update(key, verdict, owned ? routing.problemsOf(key) : [])) {
        ownershipChanged = true;
        if (owned) this.#unserved.add(key);
      }
      if (this.#options.config.checksumEnabled)
        this.#checksumGate.update(key, owned ? verdict.ingress : undefined);
    }
    if (ownershipChanged) this.#statusDue = true;
    this.#findings.totals = reports.totals();
  }
}
