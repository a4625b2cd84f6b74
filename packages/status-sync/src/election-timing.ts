/**
 * Leader election timing: the defaults, the rules that keep two replicas from leading at once,
 * and the jittered pause between a candidate's attempts.
 */
import { InvalidStatusSyncOptionsError } from './errors.js';

/** ingress-nginx's (and client-go's usual) timing: lease 30 s, renew deadline 15 s, retry 7.5 s. */
export const defaultLeaderElectionTiming = {
  leaseDurationMs: 30_000,
  renewDeadlineMs: 15_000,
  retryPeriodMs: 7_500,
} as const;

/** Durations of one election, milliseconds. */
export interface LeaderElectionTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

// client-go's leaderelection.JitterFactor: candidates wait retryPeriod × [1, 2.2).
const jitterFactor = 1.2;

/**
 * Throws InvalidStatusSyncOptionsError unless `identity` is non-empty and lease duration > renew
 * deadline > retry period > 0.
 */
export function checkElectionOptions(identity: string, timing: LeaderElectionTiming): void {
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = timing;
  // An empty holderIdentity means "nobody holds the Lease".
  if (identity === '') throw new InvalidStatusSyncOptionsError('identity must not be empty');
  if (!(retryPeriodMs > 0)) {
    throw new InvalidStatusSyncOptionsError(`retryPeriodMs must be > 0, got ${retryPeriodMs}`);
  }
  if (!(renewDeadlineMs > retryPeriodMs)) {
    throw new InvalidStatusSyncOptionsError(
      `renewDeadlineMs (${renewDeadlineMs}) must be greater than retryPeriodMs (${retryPeriodMs})`,
    );
  }
  if (!(leaseDurationMs > renewDeadlineMs)) {
    throw new InvalidStatusSyncOptionsError(
      `leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs}), or two replicas could lead at once`,
    );
  }
}

/**
 * The pause before the next attempt: the retry period for the leader, so it renews on time;
 * stretched by up to 120 % (`random()` in [0, 1)) for candidates, so they do not all ask at once.
 */
export function computeNextAttemptDelay(
  retryPeriodMs: number,
  isLeading: boolean,
  random: () => number,
): number {
  // random() is drawn for candidates only, so the leader's renewals do not consume the sequence.
  return isLeading ? retryPeriodMs : retryPeriodMs * (1 + jitterFactor * random());
}
