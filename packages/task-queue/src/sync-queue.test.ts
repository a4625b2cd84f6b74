import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createFakeClock,
  exponentialFailureRateLimiter,
  InvalidSyncResultError,
  SyncQueue,
  SyncQueueShutDownError,
  type Clock,
  type SyncQueueOptions,
  type SyncRequeue,
  type SyncResult,
  type SyncTask,
} from './index.js';

/** `retry`, `later` (retryAfter 25 ms), `done` and `invalid` return a SyncResult; `ok` returns nothing. */
type Step = 'ok' | 'fail' | 'hold' | 'retry' | 'later' | 'done' | 'invalid';

const RESULTS: Partial<Record<Step, unknown>> = {
  retry: { kind: 'retry' } satisfies SyncResult,
  later: { kind: 'retryAfter', delayMs: 25 } satisfies SyncResult,
  done: { kind: 'done' } satisfies SyncResult,
  invalid: { kind: 'retryAfter', delayMs: -1 },
};

/**
 * A SyncQueue on a fake clock whose sync follows a script: succeed, fail, hold until released, or
 * return a result.
 */
function createHarness(options: Omit<Partial<SyncQueueOptions>, 'sync'> = {}) {
  const clock = createFakeClock({ now: 1_000 });
  const tasks: SyncTask[] = [];
  const steps: Step[] = [];
  const signals: AbortSignal[] = [];
  const log: string[] = [];
  const requeues: SyncRequeue[] = [];
  let release: (() => void) | undefined;
  const queue = new SyncQueue({
    clock,
    rateLimiter: exponentialFailureRateLimiter({ baseMs: 5, maxMs: 40 }),
    ...options,
    sync: async (task, signal) => {
      tasks.push(task);
      signals.push(signal);
      const step = steps.shift() ?? 'ok';
      if (step === 'fail') throw new Error(`sync of ${task.key} failed`);
      if (step === 'hold') await new Promise<void>((resolve) => (release = resolve));
      return RESULTS[step] as SyncResult | undefined;
    },
  });
  queue.on('syncStart', (task, startedAt) => log.push(`start ${task.key}@${startedAt}`));
  queue.on('syncEnd', ({ task }) => log.push(`end ${task.key}`));
  queue.on('syncError', ({ task }) => log.push(`error ${task.key}`));
  queue.on('requeue', (requeue) => {
    requeues.push(requeue);
    log.push(`requeue ${requeue.key} +${requeue.delayMs}`);
  });
  queue.on('skip', ({ task }) => log.push(`skip ${task.key}`));
  return {
    clock,
    queue,
    tasks,
    steps,
    signals,
    log,
    requeues,
    keys: () => tasks.map((task) => task.key),
    release: () => {
      release?.();
      release = undefined;
    },
    settle: () => clock.advanceAsync(0),
  };
}

describe('SyncQueue', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('runs the sync for a queued task once started', async () => {
    const h = createHarness();
    h.queue.enqueue({ metadata: { namespace: 'shop', name: 'web' } }, { skippable: true });
    await h.settle();
    expect(h.tasks).toEqual([]);
    h.queue.start();
    await h.queue.onIdle();
    expect(h.tasks).toEqual([
      { key: 'shop/web', skippable: true, isRetry: false, enqueuedAt: 1_000, retries: 0 },
    ]);
    expect(h.log).toEqual(['start shop/web@1000', 'end shop/web']);
  });

  it('collapses a burst of skippable events during a running sync into one more sync', async () => {
    const h = createHarness();
    h.steps.push('hold');
    h.queue.enqueue('initial-sync');
    h.queue.start();
    await h.settle();
    for (let i = 0; i < 50; i++) {
      h.clock.advance(1);
      h.queue.enqueue(`ns/ing-${i}`, { skippable: true });
    }
    h.release();
    await h.queue.onIdle();
    expect(h.keys()).toEqual(['initial-sync', 'ns/ing-0']);
    expect(h.log.filter((line) => line.startsWith('skip'))).toHaveLength(49);
  });

  it('skips a skippable task when a sync that started after it succeeded', async () => {
    const h = createHarness();
    h.queue.enqueue('a', { skippable: true });
    h.clock.advance(1);
    h.queue.enqueue('b', { skippable: true });
    const skips: unknown[] = [];
    h.queue.on('skip', (skip) => skips.push(skip));
    h.queue.start();
    await h.queue.onIdle();
    expect(h.keys()).toEqual(['a']);
    expect(skips).toEqual([
      { task: expect.objectContaining({ key: 'b', skippable: true, enqueuedAt: 1_001 }), lastSync: 1_001 },
    ]);
  });

  it('does not skip a task enqueued after a sync started even in the same millisecond', async () => {
    const h = createHarness();
    h.steps.push('hold');
    h.queue.enqueue('a', { skippable: true });
    h.queue.start();
    await h.settle();
    h.queue.enqueue('b', { skippable: true });
    h.release();
    await h.queue.onIdle();
    expect(h.keys()).toEqual(['a', 'b']);
  });

  it('runs a second sync for a key enqueued again while its own sync runs', async () => {
    const h = createHarness();
    h.steps.push('hold');
    h.queue.enqueue('a', { skippable: true });
    h.queue.start();
    await h.settle();
    h.queue.enqueue('a', { skippable: true });
    h.queue.enqueue('a', { skippable: true });
    h.release();
    await h.queue.onIdle();
    expect(h.keys()).toEqual(['a', 'a']);
  });

  it('folds repeated events for a key into one waiting task', () => {
    const h = createHarness();
    for (let i = 0; i < 5; i++) h.queue.enqueue('a', { skippable: true });
    h.queue.enqueue('b', { skippable: true });
    expect(h.queue.len()).toBe(2);
  });

  it('never skips a forced task', async () => {
    const h = createHarness();
    h.queue.enqueue('a', { skippable: true });
    h.queue.enqueue('configmap-change', { skippable: false });
    h.queue.enqueue('template-change');
    h.queue.start();
    await h.queue.onIdle();
    expect(h.keys()).toEqual(['a', 'configmap-change', 'template-change']);
    expect(h.tasks[1]!.skippable).toBe(false);
  });

  it('keeps a task forced when a skippable event for the same key joins it', async () => {
    const h = createHarness();
    h.queue.enqueue('a', { skippable: true });
    h.queue.enqueue('b');
    h.queue.enqueue('b', { skippable: true });
    h.queue.start();
    await h.queue.onIdle();
    expect(h.keys()).toEqual(['a', 'b']);
  });

  it('retries a failed sync with a doubling delay until it succeeds', async () => {
    const h = createHarness();
    h.steps.push('fail', 'fail', 'fail');
    h.queue.enqueue('a', { skippable: true });
    h.queue.start();
    await h.queue.onIdle();
    expect(h.tasks).toHaveLength(1);
    await h.clock.advanceAsync(4);
    expect(h.tasks).toHaveLength(1);
    await h.clock.advanceAsync(1);
    expect(h.tasks).toHaveLength(2);
    await h.clock.advanceAsync(10);
    expect(h.tasks).toHaveLength(3);
    await h.clock.advanceAsync(20);
    expect(h.tasks).toHaveLength(4);
    expect(h.log.filter((line) => line.startsWith('requeue'))).toEqual([
      'requeue a +5',
      'requeue a +10',
      'requeue a +20',
    ]);
    expect(h.tasks.map((task) => [task.isRetry, task.retries])).toEqual([
      [false, 0],
      [true, 1],
      [true, 2],
      [true, 3],
    ]);
    expect(h.tasks[1]).toMatchObject({ skippable: false, enqueuedAt: 1_000 });
    // Success forgets the failures: the next failure starts over at the base delay.
    h.steps.push('fail');
    h.queue.enqueue('a', { skippable: true });
    await h.queue.onIdle();
    expect(h.log.at(-1)).toBe('requeue a +5');
  });

  it('runs a key again with backoff, without a syncError, when its sync returns retry', async () => {
    const h = createHarness();
    h.steps.push('retry', 'retry', 'done');
    h.queue.enqueue('a', { skippable: true });
    h.queue.start();
    await h.queue.onIdle();
    expect(h.queue.lastSync()).toBeUndefined();
    await h.clock.advanceAsync(5);
    await h.clock.advanceAsync(10);
    expect(h.log).toEqual([
      'start a@1000',
      'requeue a +5',
      'start a@1005',
      'requeue a +10',
      'start a@1015',
      'end a',
    ]);
    expect(h.requeues.map((requeue) => [requeue.reason, requeue.retries])).toEqual([
      ['retry', 1],
      ['retry', 2],
    ]);
    expect(h.tasks.map((task) => [task.isRetry, task.retries])).toEqual([
      [false, 0],
      [true, 1],
      [true, 2],
    ]);
    expect(h.queue.lastSync()).toBe(1_015);
  });

  it('runs a key again after the delay its sync returns with retryAfter, and starts its backoff over', async () => {
    const h = createHarness();
    h.steps.push('fail', 'fail', 'later', 'fail');
    h.queue.enqueue('a');
    h.queue.start();
    await h.clock.advanceAsync(5 + 10);
    expect(h.log.slice(-1)).toEqual(['requeue a +25']);
    expect(h.queue.lastSync()).toBeUndefined();
    await h.clock.advanceAsync(24);
    expect(h.tasks).toHaveLength(3);
    await h.clock.advanceAsync(1);
    expect(h.tasks).toHaveLength(4);
    expect(h.tasks[3]).toMatchObject({ isRetry: true, retries: 0 });
    expect(h.requeues.map((requeue) => [requeue.reason, requeue.delayMs])).toEqual([
      ['error', 5],
      ['error', 10],
      ['retryAfter', 25],
      ['error', 5],
    ]);
  });

  it('retries with backoff and reports a syncError when a sync returns something that is no SyncResult', async () => {
    const h = createHarness();
    const failures: unknown[] = [];
    h.queue.on('syncError', ({ error }) => failures.push(error));
    h.steps.push('invalid');
    h.queue.enqueue('a');
    h.queue.start();
    await h.queue.onIdle();
    expect(failures).toEqual([expect.any(InvalidSyncResultError)]);
    expect(h.log).toEqual(['start a@1000', 'error a', 'requeue a +5']);
    await h.clock.advanceAsync(5);
    expect(h.log.at(-1)).toBe('end a');
  });

  it('caps the retry delay at the limiter maximum when a sync keeps failing', async () => {
    const h = createHarness();
    h.steps.push(...Array<Step>(8).fill('fail'));
    h.queue.enqueue('a');
    h.queue.start();
    await h.clock.advanceAsync(1_000);
    const delays = h.log
      .filter((line) => line.startsWith('requeue'))
      .map((line) => Number(line.split('+')[1]));
    expect(delays).toEqual([5, 10, 20, 40, 40, 40, 40, 40]);
  });

  it('never skips a retry even when a later sync succeeded', async () => {
    const h = createHarness();
    h.steps.push('fail');
    h.queue.enqueue('a', { skippable: true });
    h.queue.start();
    await h.queue.onIdle();
    h.clock.advance(1);
    h.queue.enqueue('b', { skippable: true });
    await h.queue.onIdle();
    expect(h.queue.lastSync()).toBe(1_001);
    await h.clock.advanceAsync(5);
    expect(h.keys()).toEqual(['a', 'b', 'a']);
    expect(h.tasks[2]!.isRetry).toBe(true);
  });

  it('waits the minimum interval between sync starts and folds in events that arrive meanwhile', async () => {
    const h = createHarness({ minIntervalMs: 3_000 });
    h.queue.enqueue('a', { skippable: true });
    h.queue.start();
    await h.queue.onIdle();
    h.clock.advance(1);
    h.queue.enqueue('b', { skippable: true });
    await h.clock.advanceAsync(1_000);
    h.queue.enqueue('c', { skippable: true });
    h.queue.enqueue('d', { skippable: true });
    await h.clock.advanceAsync(1_998);
    expect(h.keys()).toEqual(['a']);
    await h.clock.advanceAsync(1);
    await h.queue.onIdle();
    expect(h.keys()).toEqual(['a', 'b']);
    expect(h.log).toContain('start b@4000');
    expect(h.log.slice(-2)).toEqual(['skip c', 'skip d']);
  });

  it('starts at once when the minimum interval has already passed', async () => {
    const h = createHarness({ minIntervalMs: 3_000 });
    h.queue.enqueue('a');
    h.queue.start();
    await h.queue.onIdle();
    h.clock.advance(5_000);
    h.queue.enqueue('b');
    await h.queue.onIdle();
    expect(h.log).toContain('start b@6000');
  });

  it('reports the start of the last successful sync as lastSync', async () => {
    const h = createHarness();
    expect(h.queue.lastSync()).toBeUndefined();
    h.steps.push('hold');
    h.queue.enqueue('a');
    h.queue.start();
    await h.settle();
    h.clock.advance(50);
    h.release();
    await h.queue.onIdle();
    expect(h.queue.lastSync()).toBe(1_000);
    h.steps.push('fail');
    h.queue.enqueue('b');
    await h.queue.onIdle();
    expect(h.queue.lastSync()).toBe(1_000);
  });

  it('reports sync duration and the error when a sync fails', async () => {
    const h = createHarness();
    const failures: unknown[] = [];
    h.queue.on('syncError', (failure) => failures.push(failure));
    h.steps.push('fail');
    h.queue.enqueue('a');
    h.queue.start();
    await h.queue.onIdle();
    expect(failures).toEqual([
      {
        task: expect.objectContaining({ key: 'a' }),
        startedAt: 1_000,
        durationMs: 0,
        error: new Error('sync of a failed'),
      },
    ]);
    expect(h.log).toEqual(['start a@1000', 'error a', 'requeue a +5']);
  });

  it('stops calling a listener after it unsubscribes', async () => {
    const h = createHarness();
    const listener = vi.fn();
    const unsubscribe = h.queue.on('syncEnd', listener);
    h.queue.enqueue('a');
    h.queue.start();
    await h.queue.onIdle();
    unsubscribe();
    h.queue.enqueue('b');
    await h.queue.onIdle();
    expect(listener).toHaveBeenCalledOnce();
  });

  it('keeps working and rethrows asynchronously when a listener throws', async () => {
    const h = createHarness();
    const rethrown: (() => void)[] = [];
    vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((callback) => rethrown.push(callback));
    h.queue.on('syncStart', () => {
      throw new Error('listener broke');
    });
    h.queue.enqueue('a');
    h.queue.enqueue('b');
    h.queue.start();
    await h.queue.onIdle();
    vi.restoreAllMocks();
    expect(h.keys()).toEqual(['a', 'b']);
    expect(h.log.filter((line) => line.startsWith('end'))).toEqual(['end a', 'end b']);
    expect(rethrown).toHaveLength(2);
    expect(() => rethrown[0]!()).toThrow('listener broke');
  });

  it('keeps syncing new events when the clock steps back (ingress-nginx #14374)', async () => {
    let now = Date.UTC(2040, 0, 1);
    const fake = createFakeClock();
    const clock: Clock = { now: () => now, setTimer: (ms, callback) => fake.setTimer(ms, callback) };
    const tasks: string[] = [];
    const queue = new SyncQueue({ clock, sync: (task) => void tasks.push(task.key) });
    queue.enqueue('a', { skippable: true });
    queue.start();
    await queue.onIdle();
    now = Date.UTC(2026, 0, 1);
    queue.enqueue('b', { skippable: true });
    await queue.onIdle();
    expect(tasks).toEqual(['a', 'b']);
    await queue.shutDown();
  });

  it('drops and reports enqueues after it shuts down', async () => {
    const h = createHarness();
    const dropped: string[] = [];
    h.queue.on('drop', (key) => dropped.push(key));
    h.queue.start();
    await h.queue.shutDown();
    expect(h.queue.enqueue('a', { skippable: true })).toBe(false);
    expect(h.queue.isShuttingDown()).toBe(true);
    expect(dropped).toEqual(['a']);
    expect(h.tasks).toEqual([]);
  });

  it('waits for the running sync and drops queued tasks when it shuts down without drain', async () => {
    const h = createHarness();
    h.steps.push('hold');
    h.queue.enqueue('a');
    h.queue.start();
    await h.settle();
    h.queue.enqueue('b');
    let isShutDown = false;
    const stopped = h.queue.shutDown().then(() => {
      isShutDown = true;
    });
    await h.settle();
    expect(isShutDown).toBe(false);
    expect(h.signals[0]!.aborted).toBe(false);
    h.release();
    await stopped;
    expect(h.keys()).toEqual(['a']);
    expect(h.log).toEqual(['start a@1000', 'end a']);
  });

  it('runs the queued tasks before stopping when it shuts down with drain', async () => {
    const h = createHarness();
    h.steps.push('hold');
    h.queue.enqueue('a');
    h.queue.start();
    await h.settle();
    h.queue.enqueue('b');
    h.queue.enqueue('c', { skippable: true });
    const stopped = h.queue.shutDown({ drain: true });
    h.release();
    await stopped;
    // c was enqueued before b's sync started, so the skipping rule still applies while draining.
    expect(h.keys()).toEqual(['a', 'b']);
    expect(h.log.at(-1)).toBe('skip c');
  });

  it('does not retry a sync that fails while it shuts down', async () => {
    const h = createHarness();
    h.steps.push('hold');
    h.queue.enqueue('a');
    h.queue.start();
    await h.settle();
    const stopped = h.queue.shutDown({ abortRunning: true });
    expect(h.signals[0]!.aborted).toBe(true);
    expect(h.signals[0]!.reason).toBeInstanceOf(SyncQueueShutDownError);
    h.steps.length = 0;
    h.release();
    await stopped;
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('aborts the running sync when it shuts down with abortRunning', async () => {
    const clock = createFakeClock();
    const queue = new SyncQueue({
      clock,
      sync: (_task, signal) =>
        new Promise<void>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason as Error)),
        ),
    });
    const errors: unknown[] = [];
    queue.on('syncError', ({ error }) => errors.push(error));
    queue.enqueue('a');
    queue.start();
    await clock.advanceAsync(0);
    await queue.shutDown({ abortRunning: true });
    expect(errors).toEqual([expect.any(SyncQueueShutDownError)]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('leaves no timer behind when it shuts down with retries and an interval wait pending', async () => {
    const h = createHarness({ minIntervalMs: 3_000 });
    h.steps.push('fail');
    h.queue.enqueue('a');
    h.queue.start();
    await h.queue.onIdle();
    h.queue.enqueue('b');
    await h.settle();
    expect(h.clock.pendingTimers()).toBe(2);
    await h.queue.shutDown();
    expect(h.clock.pendingTimers()).toBe(0);
    await h.clock.advanceAsync(10_000);
    expect(h.keys()).toEqual(['a']);
  });

  it('resolves onIdle and shutDown when it was never started', async () => {
    const h = createHarness();
    h.queue.enqueue('a');
    const idle = h.queue.onIdle();
    await h.queue.shutDown();
    await expect(idle).resolves.toBeUndefined();
    expect(h.tasks).toEqual([]);
  });

  it('rejects a negative minimum interval', () => {
    expect(() => createHarness({ minIntervalMs: -1 })).toThrow(/minIntervalMs/);
  });
});
