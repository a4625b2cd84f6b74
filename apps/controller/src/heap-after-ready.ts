/**
 * Once the controller serves its first configuration, V8 is told to favour memory over speed
 * (its `--optimize-for-size`), for the rest of the process.
 *
 * Why after the cold start and not from the first line: the cold start lists and translates every
 * object at once, and under `--optimize-for-size` it costs about twice the CPU (bench/RSS-DIAGNOSIS.md).
 * In the steady state the cost does not show (change latency at 10,000 Ingresses unchanged) while
 * V8 collects its old generation long before it reaches the limit the cold start left it, and
 * gives freed pages back at once: the steady RSS at 10,000 Ingresses goes from 200–250 MiB,
 * growing between mark-compacts, to about 165 MiB and flat.
 *
 * It is a process-wide setting, so only the `ingresskit` command makes it (runController), never
 * the Controller class a library user embeds in a process of their own.
 */
import { setFlagsFromString } from 'node:v8';

/** The V8 flag set once the first configuration is served. */
export const STEADY_STATE_V8_FLAG = '--optimize-for-size';

/** Switches V8 to its memory-saving heuristics; they apply from its next garbage collection. */
export function optimizeHeapForSize(): void {
  setFlagsFromString(STEADY_STATE_V8_FLAG);
}
