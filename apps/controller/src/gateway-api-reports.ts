/**
 * Gateway API problems told to their owners: what the translation could not serve as written and
 * what host ownership left out of an HTTPRoute become a log line and, on the leader, an Event on
 * the Gateway or HTTPRoute (as Ingress problems do), each once while it lasts. The statuses say
 * the same; Events are what `kubectl describe` and alerting read.
 */
import type { Problem } from '@ingresskit/route-model';
import { namespacedKey } from '@ingresskit/kube-objects';
import type { EventRecorder, EventReport, EventSubject } from './events.js';
import { formatFieldProblem } from './explain.js';
import type { Logger } from './logger.js';

/** Options of {@link GatewayApiReports}. */
export interface GatewayApiReportsOptions {
  recorder: EventRecorder;
  logger: Logger;
  isLeader: () => boolean;
  /** The uid and resourceVersion of the object as the store has it, so the Event links to it. */
  identify: (kind: string, key: string) => { uid?: string; resourceVersion?: string } | undefined;
}

const GATEWAY_API_VERSION = 'gateway.networking.k8s.io/v1';
/** The kinds Events are written for (the translation only reports problems of these anyway). */
const EVENT_KINDS = new Set(['Gateway', 'HTTPRoute']);

/** Logs Gateway API problems and, on the leader, writes them as Events, once while each lasts. */
export class GatewayApiReports {
  readonly #options: GatewayApiReportsOptions;
  /** The reports of the last update, by their text. */
  #current = new Map<string, EventReport>();

  constructor(options: GatewayApiReportsOptions) {
    this.#options = options;
  }

  /** Replaces the reported problems with `problems`: new ones are logged, and recorded on the leader. */
  update(problems: readonly Problem[]): void {
    const next = new Map<string, EventReport>();
    for (const problem of problems) {
      const report = this.#reportOf(problem);
      next.set(
        `${report.regarding.kind} ${report.regarding.namespace ?? ''}/${report.regarding.name}\n${report.note}`,
        report,
      );
    }
    const isLeader = this.#options.isLeader();
    for (const [key, report] of next) {
      if (this.#current.has(key)) continue;
      this.#options.logger.warn(
        {
          object: `${report.regarding.kind} ${report.regarding.namespace ?? ''}/${report.regarding.name}`,
          problem: report.note,
        },
        'Gateway API object not served as written',
      );
      if (isLeader && EVENT_KINDS.has(report.regarding.kind)) this.#options.recorder.record(report);
    }
    this.#current = next;
  }

  /** Records every current problem as an Event (this replica just became the leader). */
  recordAll(): void {
    for (const report of this.#current.values()) {
      if (EVENT_KINDS.has(report.regarding.kind)) this.#options.recorder.record(report);
    }
  }

  #reportOf(problem: Problem): EventReport {
    const { kind, namespace, name } = problem.object;
    const identity = this.#options.identify(kind, namespacedKey(namespace, name));
    const regarding: EventSubject = {
      apiVersion: GATEWAY_API_VERSION,
      kind,
      namespace,
      name,
      ...(identity?.uid === undefined ? {} : { uid: identity.uid }),
      ...(identity?.resourceVersion === undefined ? {} : { resourceVersion: identity.resourceVersion }),
    };
    return {
      regarding,
      type: 'Warning',
      reason: problem.severity === 'error' ? 'InvalidConfiguration' : 'ConfigurationWarning',
      action: 'Sync',
      note: formatFieldProblem(problem),
    };
  }
}
