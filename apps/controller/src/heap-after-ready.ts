/**
 * Once the controller serves its first configuration, V8 is told to favour memory over speed
 * (its `--optimize-for-size`) for the rest of the process, and collects the cold start's garbage.
 *
 * Why after the cold start and not from the first line: the cold start lists and translates every
 * object at once, and under `--optimize-for-size` it costs about twice the CPU (bench/RSS-DIAGNOSIS.md).
 * In the steady state the syncs do not get slower, while V8 collects its old generation long
 * before the limit the cold start left it and gives freed pages back at once: at 10,000 Ingresses
 * the RSS over 1,000 syncs stays near 170 MiB instead of climbing between mark-compacts.
 *
 * It is a process-wide setting, so only the `ingresskit` command makes it (runController), never
 * the Controller class a library user embeds in a process of their own.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The V8 flag set once the first configuration is served. */
export const STEADY_STATE_V8_FLAG = '--optimize-for-size';

/** Switches V8 to its memory-saving heuristics and collects the cold start's garbage. */
export function optimizeHeapForSize(): void {
  setFlagsFromString(STEADY_STATE_V8_FLAG);
  collectGarbage();
}

/**
 * One full collection, once: the cold start leaves about as much garbage as there is live heap,
 * which V8's memory reducer would otherwise return only after a while. It pauses the process once
 * (tens of ms at 10,000 Ingresses), right after the first sync.
 */
function collectGarbage(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed();
  // Without node's --expose-gc, the flag set now gives contexts created from now on a `gc`.
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
