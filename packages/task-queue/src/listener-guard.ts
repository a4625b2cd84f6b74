/**
 * The one guard against event listeners that throw: a listener's bug must never cut short the
 * loop that emits (a worker, a watch), and must never go unnoticed either.
 */

/**
 * Calls `call` (an emit, or one listener). A throw goes to `report`; when there is no `report`, or
 * it throws too, it becomes an uncaught exception on a later microtask (as Node's EventEmitter
 * would fail), outside the caller's loop.
 */
export function callGuarded(call: () => void, report?: (error: unknown) => void): void {
  try {
    call();
  } catch (error) {
    if (report === undefined) {
      rethrowLater(error);
      return;
    }
    try {
      report(error);
    } catch (reportError) {
      rethrowLater(reportError);
    }
  }
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
