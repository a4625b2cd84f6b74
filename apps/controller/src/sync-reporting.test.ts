import { describe, expect, it } from 'vitest';
import type { ChecksumVerdict } from './checksum-gate.js';
import { ChecksumMismatchError, NginxConfigTestError } from './errors.js';
import { EventRecorder, type EventSink } from './events.js';
import { createLogger } from './logger.js';
import { createControllerMetrics } from './metrics.js';
import { SyncReporting } from './sync-reporting.js';
import { queueResultOf, type SyncStageOutcome } from './sync-stage-outcome.js';

function createReporting() {
  const notes: { reason: string | undefined; note: string | undefined }[] = [];
  const sink: EventSink = {
    create: (_namespace, event) => {
      notes.push({ reason: event.reason, note: event.note });
      return Promise.resolve();
    },
    patchSeries: () => Promise.resolve(),
  };
  const recorder = new EventRecorder({
    sink,
    reportingController: 'ingresskit.dev/ingress-controller',
    reportingInstance: 'ingresskit-0',
  });
  const metrics = createControllerMetrics();
  const reporting = new SyncReporting({
    config: { podNamespace: 'ingresskit', podName: 'ingresskit-0', checksumEnabled: true },
    metrics,
    recorder,
    logger: createLogger({ level: 'silent' }),
    isLeader: () => true,
    runningConfigHash: () => undefined,
    now: () => 0,
  });
  const value = async (metric: { get(): Promise<{ values: { value: number; labels: object }[] }> }) =>
    (await metric.get()).values.map(({ labels, value }) => ({ labels, value }));
  return { reporting, metrics, recorder, notes, value };
}

const flush = { started: false, reloaded: false, pushed: true, refused: [] };

const mismatch: ChecksumVerdict = {
  ok: false,
  checked: true,
  message: 'the checksum differs',
  checksum: 'a',
  expected: 'b',
  diff: { localOnly: [], publishedOnly: [] },
  object: { kind: 'IngressCheckSum', namespace: 'default', name: 'published' },
  ids: [],
  skipped: [],
};

describe('SyncReporting.record', () => {
  it('counts a served sync and its push, and sets the gauges from the totals the outcome carries', async () => {
    const { reporting, metrics, value } = createReporting();
    reporting.record({
      kind: 'served',
      flush,
      totals: { owned: 3, ignoredByReason: new Map([['class-mismatch', 2]]), errors: 1, warnings: 0 },
    });
    expect(await value(metrics.syncs)).toEqual([{ labels: { result: 'success' }, value: 1 }]);
    expect(await value(metrics.dynamicUpdates)).toEqual([{ labels: { result: 'success' }, value: 1 }]);
    expect(await value(metrics.ownedIngresses)).toEqual([{ labels: {}, value: 3 }]);
    expect(await value(metrics.ignoredIngresses)).toEqual([
      { labels: { reason: 'class-mismatch' }, value: 2 },
    ]);
  });

  it('records the checksum verdict of a held sync as a failed check and a ChecksumMismatch Event', async () => {
    const { reporting, metrics, recorder, notes, value } = createReporting();
    reporting.record({ kind: 'held', error: new ChecksumMismatchError('differs'), checksum: mismatch });
    await recorder.flush();
    expect(await value(metrics.syncs)).toEqual([{ labels: { result: 'checksum-mismatch' }, value: 1 }]);
    expect(await value(metrics.checksumOk)).toEqual([{ labels: {}, value: 0 }]);
    expect(notes).toEqual([{ reason: 'ChecksumMismatch', note: 'the checksum differs' }]);
  });

  it('counts a failed reload and writes a ConfigTestFailed Event when nginx -t refused the configuration', async () => {
    const { reporting, metrics, recorder, notes, value } = createReporting();
    reporting.record({ kind: 'retry', error: new NginxConfigTestError('unknown directive') });
    await recorder.flush();
    expect(await value(metrics.syncs)).toEqual([{ labels: { result: 'error' }, value: 1 }]);
    expect(await value(metrics.reloads)).toEqual([{ labels: { result: 'failure' }, value: 1 }]);
    expect(notes.map((note) => note.reason)).toEqual(['ConfigTestFailed']);
  });
});

describe('queueResultOf', () => {
  it('is done for a served sync and a retry with backoff for a held or refused one', () => {
    const outcomes: SyncStageOutcome[] = [
      { kind: 'served', flush },
      { kind: 'held', error: new ChecksumMismatchError('differs') },
      { kind: 'retry', error: new Error('nginx did not answer') },
    ];
    expect(outcomes.map(queueResultOf)).toEqual([{ kind: 'done' }, { kind: 'retry' }, { kind: 'retry' }]);
  });
});
