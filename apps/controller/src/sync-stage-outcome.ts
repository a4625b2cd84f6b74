/**
 * What one sync of the sync stage came to, as one value: the stage answers it and calls nothing
 * else, sync-reporting.ts turns it into metrics and Events, and the controller into readiness and
 * the SyncQueue's result. Both sides import it; neither imports the other.
 */
import type { SyncResult } from '@ingresskit/task-queue';
import type { ChecksumVerdict } from './checksum-gate.js';
import type { DataPlaneFlush } from './data-plane.js';
import type { ChecksumMismatchError } from './errors.js';
import type { ReportTotals } from './ingress-reports.js';

/** What a sync found besides its outcome, for the reporting side. */
export interface SyncFindings {
  /** The checksum gate's verdict, when the gate is on and the sync reached it. */
  checksum?: ChecksumVerdict;
  /** The reports' totals, when the verdict or problems of an Ingress changed during the sync. */
  totals?: ReportTotals;
}

/**
 * What one sync came to. `held` and `retry` leave the last good configuration serving and are
 * retried with backoff: the published checksum may catch up, nginx may take it next time.
 */
export type SyncStageOutcome = SyncFindings &
  (
    | { kind: 'served'; flush: DataPlaneFlush }
    | { kind: 'held'; error: ChecksumMismatchError }
    | { kind: 'retry'; error: unknown }
  );

/**
 * The SyncQueue's answer to an outcome: served is done; held and retry run again with backoff
 * (nothing is terminal: what was not pushed stays staged for the retry).
 */
export function queueResultOf(outcome: SyncStageOutcome): SyncResult {
  return outcome.kind === 'served' ? { kind: 'done' } : { kind: 'retry' };
}
