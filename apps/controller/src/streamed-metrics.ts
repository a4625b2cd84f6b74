/**
 * Metrics served on /metrics after the registry's as text chunks, never held whole, and the
 * writing of chunks to a response that waits whenever the client reads slower than they come.
 */
import type { Writable } from 'node:stream';

/** Metrics whose Prometheus text is written in chunks. */
export interface StreamedMetrics {
  /** The full names of the metrics it serves, for `?name=`. */
  readonly names: readonly string[];
  /** Reads the values once, then yields the text of the metrics in `names` (all when undefined). */
  read(names?: ReadonlySet<string>): Promise<Iterable<string>>;
}

/**
 * Writes `chunks` to `output`, waiting for 'drain' whenever `write` says its buffer is full;
 * stops early, resolving false, when the output closes (the client went away).
 */
export async function writeChunks(output: Writable, chunks: Iterable<string>): Promise<boolean> {
  for (const chunk of chunks) {
    if (output.destroyed) return false;
    if (!output.write(chunk) && !(await drained(output))) return false;
  }
  return !output.destroyed;
}

/** True on 'drain', false on 'close'. */
function drained(output: Writable): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (isDrained: boolean) => () => {
      output.off('drain', onDrain);
      output.off('close', onClose);
      resolve(isDrained);
    };
    const onDrain = settle(true);
    const onClose = settle(false);
    output.on('drain', onDrain);
    output.on('close', onClose);
  });
}
