/** A deadline on one request, on the injected clock: a hung request never stalls the sync. */
import type { Clock } from '@ingresskit/task-queue';
import { RequestTimeoutError } from './errors.js';

/**
 * Settles like `promise`, or rejects with `RequestTimeoutError` after `timeoutMs` on `clock`. A late
 * settlement of `promise` is dropped (its rejection is observed, so it never goes unhandled).
 */
export function withTimeout<T>(
  promise: Promise<T>,
  timeoutMs: number,
  clock: Clock,
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimer(timeoutMs, () => {
      reject(new RequestTimeoutError(`${what} took longer than ${timeoutMs} ms`));
    });
    promise.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
