/**
 * What a sync tells operators besides the per-Ingress reports, read from the sync stage's outcome
 * once the sync is over: the sync, reload, dynamic-update, checksum and ownership metrics
 * (ingress-nginx's meanings), the log line of a held configuration, and Warning Events when nginx
 * fails a configuration or the checksum gate holds one back.
 */
import type { ChecksumVerdict } from './checksum-gate.js';
import type { ControllerConfig } from './config.js';
import { DataPlanePushError, NginxConfigTestError, NginxReloadError, NginxStartError } from './errors.js';
import type { EventRecorder } from './events.js';
import type { ReportTotals } from './ingress-reports.js';
import type { Logger } from './logger.js';
import { configHashToGaugeValue, type ControllerMetrics } from './metrics.js';
import type { SyncStageOutcome } from './sync-stage-outcome.js';

/** Options of {@link SyncReporting}. */
export interface SyncReportingOptions {
  config: Pick<ControllerConfig, 'podNamespace' | 'podName' | 'checksumEnabled'>;
  metrics: ControllerMetrics;
  recorder: EventRecorder;
  logger: Logger;
  isLeader: () => boolean;
  /** The hash of the configuration nginx runs, if it runs one. */
  runningConfigHash: () => string | undefined;
  /** Wall clock in ms. */
  now: () => number;
}

/** Turns a sync's outcome into metrics, a log line and Warning Events. */
export class SyncReporting {
  readonly #options: SyncReportingOptions;

  constructor(options: SyncReportingOptions) {
    this.#options = options;
    // Without the gate nothing holds a configuration back.
    if (!options.config.checksumEnabled) options.metrics.checksumOk.set(1);
  }

  /** nginx loaded an nginx.conf; loading one at a start counts as a reload, as in ingress-nginx's metrics. */
  recordLoad(): void {
    const { metrics } = this.#options;
    metrics.reloads.inc({ result: 'success' });
    metrics.lastReloadSuccessful.set(1);
    metrics.lastReloadSuccessTimestamp.set(this.#options.now() / 1000);
    this.#recordRunningChecksum();
  }

  /**
   * Records a finished sync: its checksum verdict and report totals when it has them, then its
   * outcome; a configuration nginx failed is also a Warning Event on the Pod.
   */
  record(outcome: SyncStageOutcome): void {
    if (outcome.checksum !== undefined) this.#recordChecksum(outcome.checksum);
    if (outcome.totals !== undefined) this.#recordTotals(outcome.totals);
    this.#recordOutcome(outcome);
  }

  #recordOutcome(outcome: SyncStageOutcome): void {
    const { metrics, config } = this.#options;
    if (outcome.kind === 'served') {
      metrics.syncs.inc({ result: 'success' });
      if (outcome.flush.reloaded || outcome.flush.started) this.recordLoad();
      if (outcome.flush.pushed) metrics.dynamicUpdates.inc({ result: 'success' });
      this.#recordRunningChecksum();
      return;
    }
    metrics.syncs.inc({ result: outcome.kind === 'held' ? 'checksum-mismatch' : 'error' });
    const { error } = outcome;
    if (error instanceof DataPlanePushError) {
      metrics.dynamicUpdates.inc({ result: 'failure' });
      return;
    }
    if (
      !(error instanceof NginxConfigTestError) &&
      !(error instanceof NginxReloadError) &&
      !(error instanceof NginxStartError)
    )
      return;
    metrics.reloads.inc({ result: 'failure' });
    metrics.lastReloadSuccessful.set(0);
    this.#options.recorder.record({
      regarding: { apiVersion: 'v1', kind: 'Pod', namespace: config.podNamespace, name: config.podName },
      type: 'Warning',
      reason: error instanceof NginxConfigTestError ? 'ConfigTestFailed' : 'ReloadFailed',
      action: 'Reload',
      note: error.message,
    });
  }

  /** The checksum gate's verdict: metrics, and on a mismatch an error log and (leader only) an Event. */
  #recordChecksum(checksum: ChecksumVerdict): void {
    const { metrics } = this.#options;
    metrics.checksumOk.set(checksum.ok ? 1 : 0);
    metrics.checksumChecks.inc({
      result: !checksum.checked ? 'unchecked' : checksum.ok ? 'match' : 'mismatch',
    });
    if (checksum.ok) return;
    this.#options.logger.error(
      {
        checksum: checksum.checksum,
        expected: checksum.expected,
        localOnly: checksum.diff.localOnly,
        publishedOnly: checksum.diff.publishedOnly,
      },
      'Ingress checksum mismatch: keeping the last good configuration',
    );
    if (checksum.object !== undefined && this.#options.isLeader()) {
      this.#options.recorder.record({
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
  }

  /** The ownership and problem gauges, from the reports' running totals. */
  #recordTotals(totals: ReportTotals): void {
    const { metrics } = this.#options;
    metrics.ownedIngresses.set(totals.owned);
    metrics.ignoredIngresses.reset();
    for (const [reason, count] of totals.ignoredByReason) metrics.ignoredIngresses.set({ reason }, count);
    metrics.problems.set({ severity: 'error' }, totals.errors);
    metrics.problems.set({ severity: 'warning' }, totals.warnings);
  }

  #recordRunningChecksum(): void {
    const configHash = this.#options.runningConfigHash();
    if (configHash !== undefined) this.#options.metrics.configHash.set(configHashToGaugeValue(configHash));
  }
}
