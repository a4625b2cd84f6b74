/** Thrown when a queue, limiter or clock is given an option it cannot work with (a negative delay, qps ≤ 0). */
export class InvalidOptionError extends Error {
  override readonly name = 'InvalidOptionError';
  readonly code = 'ERR_TASK_QUEUE_INVALID_OPTION' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Thrown by a fake clock's `advance` when timers keep scheduling timers that are already due. */
export class TimerLoopError extends Error {
  override readonly name = 'TimerLoopError';
  readonly code = 'ERR_TASK_QUEUE_TIMER_LOOP' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The abort reason a `SyncQueue` gives the running sync when it shuts down with `abortRunning`. */
export class SyncQueueShutDownError extends Error {
  override readonly name = 'SyncQueueShutDownError';
  readonly code = 'ERR_SYNC_QUEUE_SHUT_DOWN' as const;

  constructor(message = 'the sync queue is shutting down', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An event listener threw; reported where the emitter reports errors, so the emitting loop goes on. */
export class ListenerError extends Error {
  override readonly name = 'ListenerError';
  readonly code = 'ERR_LISTENER_FAILED' as const;

  /** `source` names the listener, e.g. `a store event listener`; the message is `<source> threw`. */
  constructor(source: string, options: { cause: unknown }) {
    super(`${source} threw`, options);
  }
}

/** A sync function returned something that is no SyncResult; the queue retries it as if it had thrown this. */
export class InvalidSyncResultError extends Error {
  override readonly name = 'InvalidSyncResultError';
  readonly code = 'ERR_SYNC_QUEUE_INVALID_RESULT' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
