import { describe, expect, it } from 'vitest';
import { mergeConditions, type Condition } from './conditions.js';

const t0 = '2026-01-01T00:00:00Z';
const t1 = '2026-01-02T00:00:00Z';

function condition(overrides: Partial<Condition> & Pick<Condition, 'type'>): Condition {
  return {
    status: 'True',
    reason: overrides.type,
    message: '',
    observedGeneration: 1,
    lastTransitionTime: t0,
    ...overrides,
  };
}

describe('mergeConditions', () => {
  it('replaces the API server default Pending condition when the controller decides', () => {
    const pending = condition({
      type: 'Accepted',
      status: 'Unknown',
      reason: 'Pending',
      message: 'Waiting for controller',
      observedGeneration: undefined,
      lastTransitionTime: '1970-01-01T00:00:00Z',
    });
    const accepted = condition({ type: 'Accepted', lastTransitionTime: t1 });
    expect(mergeConditions([pending], [accepted])).toEqual([accepted]);
  });

  it('appends types that are not present yet, in the desired order', () => {
    const accepted = condition({ type: 'Accepted' });
    const version = condition({ type: 'SupportedVersion' });
    expect(mergeConditions(undefined, [accepted, version])).toEqual([accepted, version]);
    expect(mergeConditions([], [accepted, version])).toEqual([accepted, version]);
  });

  it('keeps conditions of other types untouched and in place', () => {
    const foreign = condition({ type: 'example.net/Ready', status: 'False', observedGeneration: 9 });
    const old = condition({ type: 'Accepted', status: 'False', reason: 'InvalidParameters' });
    const desired = condition({ type: 'Accepted', lastTransitionTime: t1 });
    const merged = mergeConditions([foreign, old], [desired]);
    expect(merged).toEqual([foreign, desired]);
    expect(merged[0]).toBe(foreign);
  });

  it('keeps lastTransitionTime when the status is unchanged but takes the new reason and message', () => {
    const old = condition({ type: 'Accepted', status: 'False', reason: 'InvalidParameters', message: 'a' });
    const desired = condition({
      type: 'Accepted',
      status: 'False',
      reason: 'UnsupportedVersion',
      message: 'b',
      observedGeneration: 2,
      lastTransitionTime: t1,
    });
    expect(mergeConditions([old], [desired])).toEqual([{ ...desired, lastTransitionTime: t0 }]);
  });

  it('takes the new lastTransitionTime when the status changes', () => {
    const old = condition({ type: 'Accepted', status: 'False', reason: 'InvalidParameters' });
    const desired = condition({ type: 'Accepted', status: 'True', lastTransitionTime: t1 });
    expect(mergeConditions([old], [desired])[0]?.lastTransitionTime).toBe(t1);
  });

  it('never overwrites a condition that has a higher observedGeneration', () => {
    const newer = condition({ type: 'Accepted', status: 'False', observedGeneration: 5 });
    const stale = condition({
      type: 'Accepted',
      status: 'True',
      observedGeneration: 4,
      lastTransitionTime: t1,
    });
    const version = condition({ type: 'SupportedVersion', observedGeneration: 4 });
    expect(mergeConditions([newer], [stale, version])).toEqual([newer, version]);
  });

  it('overwrites a condition whose observedGeneration is equal or lower', () => {
    const same = condition({ type: 'Accepted', status: 'False', observedGeneration: 4 });
    const desired = condition({
      type: 'Accepted',
      status: 'True',
      observedGeneration: 4,
      lastTransitionTime: t1,
    });
    expect(mergeConditions([same], [desired])).toEqual([desired]);
  });

  it('never duplicates a type, collapsing duplicates already present', () => {
    const first = condition({ type: 'Accepted', status: 'False' });
    const second = condition({ type: 'Accepted', status: 'Unknown' });
    const desired = condition({ type: 'Accepted', lastTransitionTime: t1 });
    const merged = mergeConditions([first, second], [desired, desired]);
    expect(merged.filter((c) => c.type === 'Accepted')).toHaveLength(1);
    expect(merged).toEqual([desired]);
  });

  it('does not mutate its inputs', () => {
    const existing = [condition({ type: 'Accepted', status: 'False' })];
    const desired = [condition({ type: 'Accepted', lastTransitionTime: t1 })];
    const frozenExisting = structuredClone(existing);
    const frozenDesired = structuredClone(desired);
    mergeConditions(existing, desired);
    expect(existing).toEqual(frozenExisting);
    expect(desired).toEqual(frozenDesired);
  });
});
