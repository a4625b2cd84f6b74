/**
 * Once the controller serves its first configuration, V8 is told to favour memory over speed
 * (its `--optimize-for-size`) for the rest of the process, and the start's garbage is collected
 * once the start's burst of work is over.
 *
 * Why after the cold start and not from the first line: the cold start lists and translates every
 * object at once, and under `--optimize-for-size` it costs about twice the CPU (bench/RSS-DIAGNOSIS.md).
 * In the steady state the syncs do not get slower, while V8 collects its old generation long
 * before the limit the cold start left it and gives freed pages back at once: at 10,000 Ingresses
 * the RSS over 1,000 syncs stays near 170 MiB instead of about 200, or more between mark-compacts.
 *
 * It is a process-wide setting, so only the `ingresskit` command makes it (runController), never
 * the Controller class a library user embeds in a process of their own.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The V8 flag set once the first configuration is served. */
export const STEADY_STATE_V8_FLAG = '--optimize-for-size';

/**
 * When the start counts as over: the first second the event loop was busy less than half the time
 * (the start keeps it busy all the time; a steady stream of changes does not).
 */
const QUIET_UTILIZATION = 0.5;
/** Waiting for that second stops after this long (a controller kept busy from the start on). */
const QUIET_WAIT_MS = 5 * 60_000;

/**
 * Switches V8 to its memory-saving heuristics now, and collects the garbage once at the first
 * quiet second from now: the leader writes every Ingress's status right after the first sync, and
 * the garbage of that and of the cold start (about as much as the live heap) would otherwise stay
 * until the old generation next fills, hundreds of syncs later. Stops waiting at `signal`.
 */
export function optimizeHeapForSize(signal: AbortSignal): void {
  setFlagsFromString(STEADY_STATE_V8_FLAG);
  let last = performance.eventLoopUtilization();
  const started = performance.now();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (busy >= QUIET_UTILIZATION && performance.now() - started < QUIET_WAIT_MS) return;
    stop();
    collectGarbage();
  }, 1_000);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    signal.removeEventListener('abort', stop);
  };
  signal.addEventListener('abort', stop, { once: true });
}

/** V8's `gc()` of node's --expose-gc, with its options. */
type ExposedGc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * One full collection that also gives the freed pages back (V8's "last resort" flavour; a plain
 * full collection leaves the heap's committed size as it was). It pauses the process once, some
 * tens of ms at 10,000 Ingresses.
 */
function collectGarbage(): void {
  let gc = (globalThis as { gc?: ExposedGc }).gc;
  if (gc === undefined) {
    // Without node's --expose-gc, the flag set now gives contexts created from now on a `gc`.
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as ExposedGc;
  }
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
