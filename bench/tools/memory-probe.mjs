// Preloaded into a controller (`node --import=<this file>`) by bench/tools/rss-diagnosis.ts: appends
// one JSON line of Node's own memory accounting to $MEMORY_PROBE_FILE every 500 ms and on SIGWINCH
// (after a full GC when the process runs with --expose-gc), so that RSS can be split into the V8
// heap, external memory and what neither accounts for (native allocations); and, from V8's
// GCProfiler, cumulative GC counts, bytes allocated (heap used before each GC minus after the
// previous one) and bytes promoted by scavenges. Changes nothing else.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { GCProfiler, getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  const gc = { scavenges: 0, markCompacts: 0, allocated: 0, promoted: 0, lastUsedAfter: undefined };
  let profiler = new GCProfiler();
  profiler.start();
  const space = (stats, name) => stats.heapSpaceStatistics.find((entry) => entry.spaceName === name);
  const collect = () => {
    const data = profiler.stop();
    profiler = new GCProfiler();
    profiler.start();
    for (const entry of data?.statistics ?? []) {
      const before = entry.beforeGC.heapStatistics.usedHeapSize;
      const after = entry.afterGC.heapStatistics.usedHeapSize;
      gc.allocated += Math.max(0, before - (gc.lastUsedAfter ?? before));
      gc.lastUsedAfter = after;
      if (entry.gcType === 'Scavenge' || entry.gcType === 'MinorMarkSweep') {
        gc.scavenges += 1;
        gc.promoted += Math.max(
          0,
          space(entry.afterGC, 'old_space').spaceUsedSize - space(entry.beforeGC, 'old_space').spaceUsedSize,
        );
      } else if (entry.gcType === 'MarkSweepCompact') gc.markCompacts += 1;
    }
  };
  const write = (reason) => {
    collect();
    const usage = process.memoryUsage();
    const heap = getHeapStatistics();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size]),
    );
    appendFileSync(
      file,
      `${JSON.stringify({
        time: Date.now(),
        reason,
        rss: usage.rss,
        heapTotal: usage.heapTotal,
        heapUsed: usage.heapUsed,
        external: usage.external,
        arrayBuffers: usage.arrayBuffers,
        physical: heap.total_physical_size,
        malloced: heap.malloced_memory,
        spaces,
        gc: { ...gc, lastUsedAfter: undefined },
      })}\n`,
    );
  };
  setInterval(() => write('interval'), 500).unref();
  process.on('SIGWINCH', () => {
    globalThis.gc?.();
    write('gc');
  });
}
