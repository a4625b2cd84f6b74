/**
 * The timers that look for lost data in nginx: a frequent check of its data instance (a restart
 * nobody saw) and a rarer check of its data's content digest (a drift).
 */

/** How often the data plane is checked for lost data (a restart nobody saw, a drift). */
export const DRIFT_CHECK_MS = 5_000;
/** How often nginx recomputes the digest of its data by default. */
export const CONTENT_CHECK_MS = 30_000;

/** The running drift checks; `stop()` cancels both timers and may be called more than once. */
export interface DriftChecks {
  stop(): void;
}

/**
 * Starts calling `checkInstance` every {@link DRIFT_CHECK_MS} and `checkContent` every
 * `contentCheckMs` ({@link CONTENT_CHECK_MS} by default). A check that fails (nginx answering
 * garbage, say) goes to `onError` and the next one runs as planned. The timers do not keep the
 * process alive.
 */
export function startDriftChecks(checks: {
  checkInstance: () => Promise<unknown>;
  checkContent: () => Promise<unknown>;
  onError: (error: unknown) => void;
  contentCheckMs?: number;
}): DriftChecks {
  const run = (check: () => Promise<unknown>) => () => void check().catch(checks.onError);
  const instanceTimer = setInterval(run(checks.checkInstance), DRIFT_CHECK_MS).unref();
  const contentTimer = setInterval(
    run(checks.checkContent),
    checks.contentCheckMs ?? CONTENT_CHECK_MS,
  ).unref();
  return {
    stop() {
      clearInterval(instanceTimer);
      clearInterval(contentTimer);
    },
  };
}
