import { describe, expect, it } from 'vitest';
import { parseBootTime, parsePidIo, parsePidMemory, parsePidStat } from './process-stats.js';

describe('parsePidStat', () => {
  it('reads user plus system CPU seconds and the start time, counting fields after the name', () => {
    // A command name may hold spaces and parentheses.
    const stat =
      '4242 (nginx: a) b) S 4241 4241 4241 0 -1 4194624 900 0 0 0 150 75 0 0 20 0 1 0 123456 200000000 3000 18446744073709551615';
    expect(parsePidStat(stat, 1_700_000_000)).toEqual({
      cpuSeconds: 2.25,
      startTimeSeconds: 1_700_000_000 + 1234.56,
    });
  });

  it('answers undefined when the line is cut short', () => {
    expect(parsePidStat('4242 (nginx) S 1', 0)).toBeUndefined();
  });
});

describe('parsePidMemory', () => {
  it('reads VmRSS and VmSize in bytes', () => {
    expect(parsePidMemory('Name:\tnginx\nVmSize:\t   50000 kB\nVmRSS:\t    2020 kB\n')).toEqual({
      residentBytes: 2020 * 1024,
      virtualBytes: 50000 * 1024,
    });
  });

  it('counts 0 for a process without memory (a zombie)', () => {
    expect(parsePidMemory('Name:\tnginx\nState:\tZ (zombie)\n')).toEqual({
      residentBytes: 0,
      virtualBytes: 0,
    });
  });
});

describe('parsePidIo', () => {
  it('reads the storage bytes, not the bytes of every read and write', () => {
    const io = 'rchar: 6976\nwchar: 512\nsyscr: 10\nsyscw: 1\nread_bytes: 4096\nwrite_bytes: 8192\n';
    expect(parsePidIo(io)).toEqual({ readBytes: 4096, writeBytes: 8192 });
  });
});

describe('parseBootTime', () => {
  it("reads /proc/stat's btime", () => {
    expect(parseBootTime('cpu  1 2 3\nintr 5\nbtime 1764126000\nprocesses 9\n')).toBe(1764126000);
    expect(parseBootTime('cpu  1 2 3\n')).toBeUndefined();
  });
});
