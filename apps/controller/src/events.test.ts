import type { EventsV1Event } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { EventRecorder, dedupKey, type EventReport, type EventSink } from './events.js';

interface FakeSink extends EventSink {
  created: { namespace: string; event: EventsV1Event }[];
  patched: { namespace: string; name: string; series: { count: number; lastObservedTime: string } }[];
  failNextPatchWith?: number;
  failCreates?: boolean;
}

function createFakeSink(): FakeSink {
  const sink: FakeSink = {
    created: [],
    patched: [],
    create(namespace, event) {
      if (sink.failCreates) return Promise.reject(Object.assign(new Error('forbidden'), { code: 403 }));
      sink.created.push({ namespace, event });
      return Promise.resolve();
    },
    patchSeries(namespace, name, series) {
      const code = sink.failNextPatchWith;
      if (code !== undefined) {
        sink.failNextPatchWith = undefined;
        return Promise.reject(Object.assign(new Error(`HTTP ${code}`), { code }));
      }
      sink.patched.push({ namespace, name, series });
      return Promise.resolve();
    },
  };
  return sink;
}

const broken: EventReport = {
  regarding: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    namespace: 'shop',
    name: 'cart',
    uid: 'u-1',
    resourceVersion: '7',
  },
  type: 'Warning',
  reason: 'InvalidConfiguration',
  action: 'Sync',
  note: 'metadata.annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]: must be whole seconds',
};

function createRecorder(
  sink: EventSink,
  clock = { ms: Date.UTC(2026, 0, 1, 12, 0, 0, 123) },
  options: { cacheSize?: number } = {},
) {
  const errors: unknown[] = [];
  const recorder = new EventRecorder({
    sink,
    reportingController: 'ingresskit.dev/ingress-controller',
    reportingInstance: 'ingresskit-0',
    now: () => new Date(clock.ms),
    onError: (error) => errors.push(error),
    ...options,
  });
  return { recorder, clock, errors };
}

describe('EventRecorder', () => {
  it('creates one events.k8s.io/v1 Event with a six-digit eventTime when a report is new', async () => {
    const sink = createFakeSink();
    const { recorder } = createRecorder(sink);
    recorder.record(broken);
    await recorder.flush();
    expect(sink.created).toHaveLength(1);
    const { namespace, event } = sink.created[0]!;
    expect(namespace).toBe('shop');
    expect(event).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      type: 'Warning',
      reason: 'InvalidConfiguration',
      action: 'Sync',
      note: broken.note,
      reportingController: 'ingresskit.dev/ingress-controller',
      reportingInstance: 'ingresskit-0',
      regarding: { kind: 'Ingress', namespace: 'shop', name: 'cart', uid: 'u-1' },
    });
    expect(event.eventTime).toBe('2026-01-01T12:00:00.123000Z');
    expect(event.metadata?.name).toMatch(/^cart\.[0-9a-f]+$/);
  });

  it('updates the series of the existing Event instead of creating another when the same report repeats', async () => {
    const sink = createFakeSink();
    const { recorder, clock } = createRecorder(sink);
    recorder.record(broken);
    clock.ms += 5_000;
    recorder.record({ ...broken, regarding: { ...broken.regarding, resourceVersion: '8' } });
    clock.ms += 5_000;
    recorder.record(broken);
    await recorder.flush();
    expect(sink.created).toHaveLength(1);
    expect(sink.patched.map((patch) => patch.series.count)).toEqual([2, 3]);
    expect(sink.patched[1]).toMatchObject({ namespace: 'shop', name: sink.created[0]!.event.metadata?.name });
    expect(sink.patched[1]!.series.lastObservedTime).toBe('2026-01-01T12:00:10.123000Z');
  });

  it('creates separate Events when the object, reason or note differ', async () => {
    const sink = createFakeSink();
    const { recorder } = createRecorder(sink);
    recorder.record(broken);
    recorder.record({ ...broken, note: 'another problem' });
    recorder.record({ ...broken, reason: 'Ignored', type: 'Normal' });
    recorder.record({ ...broken, regarding: { ...broken.regarding, name: 'checkout', uid: 'u-2' } });
    await recorder.flush();
    expect(sink.created).toHaveLength(4);
    expect(new Set(sink.created.map((entry) => entry.event.metadata?.name)).size).toBe(4);
    expect(sink.patched).toHaveLength(0);
  });

  it('creates a new Event when the one it would update is gone', async () => {
    const sink = createFakeSink();
    const { recorder } = createRecorder(sink);
    recorder.record(broken);
    await recorder.flush();
    sink.failNextPatchWith = 404;
    recorder.record(broken);
    await recorder.flush();
    expect(sink.created).toHaveLength(2);
  });

  it('starts a new Event when a repeat comes after the series window', async () => {
    const sink = createFakeSink();
    const { recorder, clock } = createRecorder(sink);
    recorder.record(broken);
    clock.ms += 2 * 3_600_000;
    recorder.record(broken);
    await recorder.flush();
    expect(sink.created).toHaveLength(2);
  });

  it('reports a failed write and goes on when the API refuses it', async () => {
    const sink = createFakeSink();
    const { recorder, errors } = createRecorder(sink);
    sink.failCreates = true;
    recorder.record(broken);
    await recorder.flush();
    sink.failCreates = false;
    recorder.record(broken);
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(sink.created).toHaveLength(1);
    expect(recorder.pending()).toBe(0);
  });

  it('forgets the least recently used Events when the cache is full', async () => {
    const sink = createFakeSink();
    const { recorder } = createRecorder(sink, undefined, { cacheSize: 2 });
    recorder.record(broken);
    recorder.record({ ...broken, note: 'b' });
    recorder.record({ ...broken, note: 'c' });
    recorder.record(broken);
    await recorder.flush();
    expect(sink.created).toHaveLength(4);
  });

  it('puts Events about cluster-scoped objects into the default namespace', async () => {
    const sink = createFakeSink();
    const { recorder } = createRecorder(sink);
    recorder.record({
      ...broken,
      regarding: { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', name: 'nginx' },
    });
    await recorder.flush();
    expect(sink.created[0]?.namespace).toBe('default');
  });

  it('cuts a note longer than the API allows when recording it', async () => {
    const sink = createFakeSink();
    const { recorder } = createRecorder(sink);
    recorder.record({ ...broken, note: 'x'.repeat(5000) });
    await recorder.flush();
    expect(Buffer.byteLength(sink.created[0]!.event.note ?? '')).toBeLessThanOrEqual(1024);
  });
});

describe('dedupKey', () => {
  it('ignores the resourceVersion when two reports are otherwise equal', () => {
    expect(dedupKey(broken)).toBe(
      dedupKey({ ...broken, regarding: { ...broken.regarding, resourceVersion: '99' } }),
    );
    expect(dedupKey(broken)).not.toBe(dedupKey({ ...broken, note: 'other' }));
  });
});
