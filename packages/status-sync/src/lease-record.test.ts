import { describe, expect, it } from 'vitest';
import { buildHolderSpec, buildReleasedSpec, isObservationValid, readLeaseRecord } from './lease-record.js';

const at = Date.UTC(2024, 0, 1);

describe('buildHolderSpec', () => {
  it('starts a new Lease at zero transitions when there is no previous record', () => {
    expect(buildHolderSpec('pod-a', 30_000, at, undefined)).toEqual({
      holderIdentity: 'pod-a',
      leaseDurationSeconds: 30,
      acquireTime: '2024-01-01T00:00:00.000000Z',
      renewTime: '2024-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
  });

  it('keeps acquireTime and the transition count when the holder renews', () => {
    const previous = readLeaseRecord(buildHolderSpec('pod-a', 30_000, at, undefined));
    const renewed = buildHolderSpec('pod-a', 30_000, at + 5_000, previous);
    expect(renewed.acquireTime).toBe('2024-01-01T00:00:00.000000Z');
    expect(renewed.renewTime).toBe('2024-01-01T00:00:05.000000Z');
    expect(renewed.leaseTransitions).toBe(0);
  });

  it('counts one more transition when another replica takes over', () => {
    const previous = readLeaseRecord(buildHolderSpec('pod-a', 30_000, at, undefined));
    const taken = buildHolderSpec('pod-b', 30_000, at + 40_000, previous);
    expect(taken.acquireTime).toBe('2024-01-01T00:00:40.000000Z');
    expect(taken.leaseTransitions).toBe(1);
  });
});

describe('buildReleasedSpec', () => {
  it('empties the holder and shortens the duration to 1 s when a Lease is given up', () => {
    const held = buildHolderSpec('pod-a', 30_000, at, undefined);
    expect(buildReleasedSpec(held, at + 1_000)).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      renewTime: '2024-01-01T00:00:01.000000Z',
      leaseTransitions: 0,
    });
  });
});

describe('isObservationValid', () => {
  const record = readLeaseRecord({ holderIdentity: 'pod-a', leaseDurationSeconds: 10 });

  it("measures expiry from when the record was observed, with the record's duration", () => {
    const observed = { record, key: 'k', observedAt: at };
    expect(isObservationValid(observed, 30_000, at + 9_999)).toBe(true);
    expect(isObservationValid(observed, 30_000, at + 10_000)).toBe(false);
  });

  it('falls back to the default duration when the record has none', () => {
    const observed = { record: readLeaseRecord({ holderIdentity: 'pod-a' }), key: 'k', observedAt: at };
    expect(isObservationValid(observed, 30_000, at + 29_999)).toBe(true);
  });
});
