import { describe, expect, it } from 'vitest';
import { createFakeClock, type FakeClock } from '@ingresskit/task-queue';
import { describeInformer, type StalenessChange, StalenessTracker } from './informer-health.js';
import type { Reflector } from './reflector.js';

/** The parts of a Reflector that health reads. */
function fakeReflector(unhealthySince: number | undefined): Reflector {
  return {
    kind: 'Ingress',
    namespace: 'shop',
    phase: 'backoff',
    hasSynced: false,
    resourceVersion: '',
    lastEventAt: undefined,
    unhealthySince,
    lastError: undefined,
  } as unknown as Reflector;
}

function createTracker(clock: FakeClock, signal = new AbortController().signal) {
  const reports: [string, StalenessChange][] = [];
  const tracker = new StalenessTracker({
    clock,
    staleAfterMs: 1000,
    signal,
    onStale: (change) => reports.push(['stale', change]),
    onRecovered: (change) => reports.push(['recovered', change]),
  });
  return { tracker, reports };
}

describe('StalenessTracker', () => {
  it('reports stale once after staleAfterMs and recovered when the reflector is healthy again', () => {
    const clock = createFakeClock();
    const { tracker, reports } = createTracker(clock);
    const reflector = fakeReflector(0);
    tracker.track(reflector);
    tracker.track(reflector);
    clock.advance(999);
    expect(reports).toEqual([]);
    clock.advance(1);
    expect(reports).toEqual([['stale', { kind: 'Ingress', namespace: 'shop', since: 0 }]]);
    (reflector as { unhealthySince: number | undefined }).unhealthySince = undefined;
    tracker.track(reflector);
    expect(reports[1]).toEqual(['recovered', { kind: 'Ingress', namespace: 'shop', since: 0 }]);
  });

  it('reports nothing when the reflector recovers or is forgotten before staleAfterMs', () => {
    const clock = createFakeClock();
    const { tracker, reports } = createTracker(clock);
    const recovering = fakeReflector(0);
    const retired = fakeReflector(0);
    tracker.track(recovering);
    tracker.track(retired);
    (recovering as { unhealthySince: number | undefined }).unhealthySince = undefined;
    tracker.track(recovering);
    tracker.forget(retired);
    clock.advance(5000);
    expect(reports).toEqual([]);
    expect(clock.pendingDelays()).toEqual([]);
  });

  it('cancels pending reports when stopped', () => {
    const clock = createFakeClock();
    const { tracker } = createTracker(clock);
    tracker.track(fakeReflector(0));
    tracker.stop();
    expect(clock.pendingDelays()).toEqual([]);
  });
});

describe('describeInformer', () => {
  it('marks an informer stale when it has been unhealthy for staleAfterMs', () => {
    expect(describeInformer(fakeReflector(100), 1099, 1000).stale).toBe(false);
    expect(describeInformer(fakeReflector(100), 1100, 1000).stale).toBe(true);
    expect(describeInformer(fakeReflector(undefined), 5000, 1000).stale).toBe(false);
  });
});
