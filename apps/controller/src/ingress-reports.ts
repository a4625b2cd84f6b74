/**
 * What the controller tells the owner of each Ingress: why it is ignored, or what is wrong with
 * it. Reports are kept per Ingress and replaced when that Ingress is looked at again, so a sync
 * costs what its changes cost, not the size of the cluster. Every replica logs a report the first
 * time it appears; the leader also writes it as a Kubernetes Event (once per appearance, and all of
 * them again when it becomes the leader). The counts behind the metrics are kept the same way.
 */
import type { NotOwnedReason } from '@ingresskit/class-resolution';
import type { Problem } from '@ingresskit/route-model';
import { isIgnoreReasonReported } from './event-policy.js';
import { dedupKey, type EventRecorder, type EventReport } from './events.js';
import { formatFieldProblem } from './explain.js';
import type { IngressVerdict } from './ingress-verdict.js';
import type { Logger } from './logger.js';

/** What is reported about one Ingress that has something to report (most have nothing). */
interface ReportsOfIngress {
  reports: Map<string, EventReport>;
  /** Debug-level notes (ignored for another controller): logged, never an Event. */
  quiet: Map<string, EventReport>;
  ignoreReason?: NotOwnedReason;
  errors: number;
  warnings: number;
}

/** Totals for the metrics. */
export interface ReportTotals {
  owned: number;
  ignoredByReason: ReadonlyMap<string, number>;
  errors: number;
  warnings: number;
}

/** The Event subject of an Ingress. */
export function ingressSubject(ingress: IngressVerdict['ingress']): EventReport['regarding'] {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    namespace: ingress.metadata.namespace,
    name: ingress.metadata.name,
    uid: ingress.metadata.uid,
    resourceVersion: ingress.metadata.resourceVersion,
  };
}

/** The reports about one Ingress: its ignore reason, or its problems. */
export function reportsOf(verdict: IngressVerdict, problems: readonly Problem[]): EventReport[] {
  const regarding = ingressSubject(verdict.ingress);
  if (!verdict.decision.owned) {
    return [
      {
        regarding,
        type: isIgnoreReasonReported(verdict.decision.reason) ? 'Warning' : 'Normal',
        reason: 'Ignored',
        action: 'ClassResolution',
        note: `${verdict.decision.message} ${verdict.decision.hint}`,
      },
    ];
  }
  return problems.map((problem) => ({
    regarding,
    type: 'Warning',
    reason: problem.severity === 'error' ? 'InvalidConfiguration' : 'ConfigurationWarning',
    action: 'Sync',
    note: formatFieldProblem(problem),
  }));
}

/** Keeps each Ingress's report, logs new ones and, on the leader, writes them as Events. */
export class IngressReports {
  readonly #recorder: EventRecorder;
  readonly #logger: Logger;
  readonly #isLeader: () => boolean;
  /** Only Ingresses with something to report: at 10,000 Ingresses an entry each would cost megabytes. */
  readonly #byIngress = new Map<string, ReportsOfIngress>();
  readonly #owned = new Set<string>();
  readonly #ignored = new Map<string, number>();
  #errors = 0;
  #warnings = 0;

  constructor(options: { recorder: EventRecorder; logger: Logger; isLeader: () => boolean }) {
    this.#recorder = options.recorder;
    this.#logger = options.logger;
    this.#isLeader = options.isLeader;
  }

  /**
   * Replaces what is reported about the Ingress `key` (undefined: it is gone). New reports are
   * logged, and recorded as Events when this replica leads. Returns whether the Ingress became
   * owned or stopped being owned.
   */
  update(key: string, verdict: IngressVerdict | undefined, problems: readonly Problem[]): boolean {
    const previous = this.#byIngress.get(key);
    if (previous !== undefined) this.#count(previous, -1);
    const wasOwned = this.#owned.has(key);
    const owned = verdict?.decision.owned === true;
    if (owned) this.#owned.add(key);
    else this.#owned.delete(key);
    const reports = verdict === undefined ? [] : reportsOf(verdict, problems);
    if (reports.length === 0) {
      this.#byIngress.delete(key);
      return wasOwned !== owned;
    }
    const entry: ReportsOfIngress = {
      reports: new Map(),
      quiet: new Map(),
      errors: problems.filter((problem) => problem.severity === 'error').length,
      warnings: problems.filter((problem) => problem.severity === 'warning').length,
    };
    if (verdict !== undefined && !verdict.decision.owned) entry.ignoreReason = verdict.decision.reason;
    for (const report of reports) {
      (report.type === 'Normal' ? entry.quiet : entry.reports).set(dedupKey(report), report);
    }
    this.#byIngress.set(key, entry);
    this.#count(entry, 1);
    const isLeader = this.#isLeader();
    for (const [dedup, report] of entry.quiet) {
      if (!previous?.quiet.has(dedup)) this.#log(report, 'debug');
    }
    for (const [dedup, report] of entry.reports) {
      if (previous?.reports.has(dedup)) continue;
      this.#log(report, 'warn');
      if (isLeader) this.#recorder.record(report);
    }
    return wasOwned !== owned;
  }

  /** Records every current report as an Event (this replica just became the leader). */
  recordAll(): void {
    for (const entry of this.#byIngress.values()) {
      for (const report of entry.reports.values()) this.#recorder.record(report);
    }
  }

  /** Totals over every Ingress looked at so far. */
  totals(): ReportTotals {
    return {
      owned: this.#owned.size,
      ignoredByReason: this.#ignored,
      errors: this.#errors,
      warnings: this.#warnings,
    };
  }

  #count(entry: ReportsOfIngress, sign: 1 | -1): void {
    if (entry.ignoreReason !== undefined) {
      const count = (this.#ignored.get(entry.ignoreReason) ?? 0) + sign;
      if (count === 0) this.#ignored.delete(entry.ignoreReason);
      else this.#ignored.set(entry.ignoreReason, count);
    }
    this.#errors += sign * entry.errors;
    this.#warnings += sign * entry.warnings;
  }

  #log(report: EventReport, level: 'warn' | 'debug'): void {
    const regarding = report.regarding;
    this.#logger[level](
      {
        regarding: `${regarding.kind} ${regarding.namespace ?? ''}/${regarding.name}`,
        reason: report.reason,
      },
      report.note,
    );
  }
}
