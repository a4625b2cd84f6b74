/**
 * Lease record arithmetic, pure: what a Lease says, whether an observed holder is still valid, and
 * the spec to write when taking, renewing or giving up a Lease.
 */
import type { V1LeaseSpec, V1MicroTime } from '@kubernetes/client-node';
import { formatMicroTime } from './micro-time.js';

/** The fields of a Lease spec that election decides on, with times as the server's text. */
export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number | undefined;
  readonly acquireTime: string | undefined;
  readonly renewTime: string | undefined;
  readonly leaseTransitions: number;
}

/** A record as one replica saw it; `key` identifies the record's content. */
export interface LeaseObservation {
  readonly record: LeaseRecord;
  readonly key: string;
  /** When this replica first saw `record`, on its own clock: expiry is measured from here, not renewTime. */
  readonly observedAt: number;
}

/** The record of `spec`; an absent holder reads as '' (nobody holds the Lease). */
export function readLeaseRecord(spec: V1LeaseSpec | undefined): LeaseRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds,
    acquireTime: microTimeText(spec?.acquireTime),
    renewTime: microTimeText(spec?.renewTime),
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
}

/**
 * True while the observed record has not outlived its `leaseDurationSeconds` (or
 * `defaultDurationMs` when the record has none) since `observedAt`, at clock reading `now`.
 */
export function isObservationValid(
  observed: LeaseObservation,
  defaultDurationMs: number,
  now: number,
): boolean {
  const seconds = observed.record.leaseDurationSeconds;
  const durationMs = seconds !== undefined && seconds > 0 ? seconds * 1000 : defaultDurationMs;
  return observed.observedAt + durationMs > now;
}

/**
 * The spec that makes `identity` the holder at `now` (epoch ms): a renewal of `previous` keeps its
 * acquireTime and transition count, a takeover counts one more transition, a new Lease starts at 0.
 */
export function buildHolderSpec(
  identity: string,
  leaseDurationMs: number,
  now: number,
  previous: LeaseRecord | undefined,
): V1LeaseSpec {
  const time = formatMicroTime(new Date(now));
  const isRenewal = previous?.holderIdentity === identity;
  return {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
    acquireTime: asMicroTime(isRenewal && previous.acquireTime !== undefined ? previous.acquireTime : time),
    renewTime: asMicroTime(time),
    leaseTransitions: previous === undefined ? 0 : previous.leaseTransitions + (isRenewal ? 0 : 1),
  };
}

/**
 * `spec` given up at `now` (epoch ms): empty holder and a 1 s duration, as client-go's
 * ReleaseOnCancel, so candidates take over at their next attempt instead of waiting for expiry.
 */
export function buildReleasedSpec(spec: V1LeaseSpec | undefined, now: number): V1LeaseSpec {
  const time = asMicroTime(formatMicroTime(new Date(now)));
  return { ...spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: time, renewTime: time };
}

// client-node 2.0.1 does not convert V1MicroTime on the way in or out (the type is missing from its
// serializer's type map), so read values are the server's strings and written strings go out verbatim.
function microTimeText(value: unknown): string | undefined {
  if (value instanceof Date) return formatMicroTime(value);
  return typeof value === 'string' ? value : undefined;
}

function asMicroTime(text: string): V1MicroTime {
  return text as unknown as V1MicroTime;
}
