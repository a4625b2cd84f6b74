/** The errors of @ingresskit/store, and the HTTP status an error carries. */
import type { ResourceKind } from './resources.js';

/** An API request answered with a non-success status; carries the Status `reason` when the body had one. */
export class ApiStatusError extends Error {
  override readonly name = 'ApiStatusError';
  readonly code = 'ERR_API_STATUS' as const;

  constructor(
    readonly statusCode: number,
    readonly reason: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Which step of mirroring a kind failed. */
export type InformerPhase = 'list' | 'watch' | 'fetch';

/**
 * A list, watch or Secret read failed. The store keeps retrying on its own; this is reported
 * through the `error` event so the application can log it, count it or alert on it.
 */
export class InformerError extends Error {
  override readonly name = 'InformerError';
  readonly code = 'ERR_INFORMER_FAILED' as const;
  /** HTTP status of the failed request, when there was a response. */
  readonly statusCode: number | undefined;

  constructor(
    readonly kind: ResourceKind,
    readonly namespace: string | undefined,
    readonly phase: InformerPhase,
    /** Consecutive failures of this informer, this one included. */
    readonly attempt: number,
    /** Delay before the next attempt. */
    readonly retryInMs: number,
    options: { cause: unknown },
  ) {
    const status = statusCodeOf(options.cause);
    const where = namespace === undefined ? kind : `${kind} in ${namespace}`;
    super(
      `${phase} of ${where} failed${status === undefined ? '' : ` with ${status}`}: ${describeCause(options.cause)}; retry ${attempt} in ${retryInMs} ms`,
      options,
    );
    this.statusCode = status;
  }
}

/** `start()` was called after `stop()`, or `stop()` ran while `start()` was waiting for the first sync. */
export class StoreStoppedError extends Error {
  override readonly name = 'StoreStoppedError';
  readonly code = 'ERR_STORE_STOPPED' as const;

  constructor(message = 'the store has been stopped') {
    super(message);
  }
}

// A store event listener threw: task-queue's ListenerError, reported through `error` so the other
// listeners still run; re-exported because it was this package's public name.
export { ListenerError } from '@ingresskit/task-queue';

/** The store cannot be set up: the kube config names no current cluster, or an option does not parse. */
export class StoreConfigError extends Error {
  override readonly name = 'StoreConfigError';
  readonly code = 'ERR_STORE_CONFIG' as const;
}

/** The HTTP status carried by an error from client-node or this package, if any. */
export function statusCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const record = error as { statusCode?: unknown; code?: unknown };
  if (typeof record.statusCode === 'number') return record.statusCode;
  if (typeof record.code === 'number') return record.code;
  return undefined;
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
    return `${cause.message}${inner}`;
  }
  return String(cause);
}
