import { describe, expect, it } from 'vitest';
import { createProcessTotals } from './nginx-process-metrics.js';
import type { ProcessStats } from './process-stats.js';

const process = (pid: number, cpuSeconds: number, readBytes = 0, startTimeSeconds = 1000): ProcessStats => ({
  pid,
  startTimeSeconds,
  cpuSeconds,
  residentBytes: 0,
  virtualBytes: 0,
  readBytes,
  writeBytes: 0,
});

describe('createProcessTotals', () => {
  it('keeps what workers that exited used, so the totals never go down across a reload', () => {
    const totals = createProcessTotals();
    expect(totals.add([process(1, 1), process(2, 3, 100)])).toEqual({
      cpuSeconds: 4,
      readBytes: 100,
      writeBytes: 0,
    });
    // A reload: worker 2 is gone, worker 3 is new.
    expect(totals.add([process(1, 1.5), process(3, 0.5, 10)])).toEqual({
      cpuSeconds: 5,
      readBytes: 110,
      writeBytes: 0,
    });
  });

  it('counts a reused PID as a new process', () => {
    const totals = createProcessTotals();
    totals.add([process(7, 10)]);
    expect(totals.add([process(7, 2, 0, 2000)]).cpuSeconds).toBe(12);
  });
});
