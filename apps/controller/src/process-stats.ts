/**
 * What Linux's /proc tells of a process: CPU time, memory, storage I/O and start time, as
 * ingress-nginx's nginx_process_* metrics show them. The parsers are pure; one reader does the I/O.
 */
import { readFile } from 'node:fs/promises';

/** One process at one moment. */
export interface ProcessStats {
  pid: number;
  /** Seconds since 1970 when the process started. */
  startTimeSeconds: number;
  /** User and system CPU time. */
  cpuSeconds: number;
  residentBytes: number;
  virtualBytes: number;
  /** Bytes read from and written to storage (not sockets); 0 when /proc/PID/io cannot be read. */
  readBytes: number;
  writeBytes: number;
}

// Clock ticks per second of /proc's times (USER_HZ): 100 on every Linux architecture, whatever the
// kernel's own tick; procfs readers (process-exporter's too) take it as a constant.
const TICKS_PER_SECOND = 100;

/** The boot time (`btime`, seconds since 1970) from /proc/stat; undefined when it has none. */
export function parseBootTime(procStat: string): number | undefined {
  const match = /^btime (\d+)$/m.exec(procStat);
  return match === null ? undefined : Number(match[1]);
}

/**
 * CPU seconds and start time from /proc/PID/stat, whose command name (in parentheses) may hold
 * spaces and parentheses: fields are counted after its last `)`. Undefined when it does not parse.
 */
export function parsePidStat(
  text: string,
  bootTimeSeconds: number,
): { cpuSeconds: number; startTimeSeconds: number } | undefined {
  // After the name: state (field 3), …, utime (14), stime (15), …, starttime (22).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, starttime] = [fields[11], fields[12], fields[19]].map(Number) as [
    number,
    number,
    number,
  ];
  if (![utime, stime, starttime].every(Number.isFinite)) return undefined;
  return {
    cpuSeconds: (utime + stime) / TICKS_PER_SECOND,
    startTimeSeconds: bootTimeSeconds + starttime / TICKS_PER_SECOND,
  };
}

/** Resident and virtual memory from /proc/PID/status (VmRSS, VmSize, in kB); 0 for what it lacks. */
export function parsePidMemory(text: string): { residentBytes: number; virtualBytes: number } {
  const kilobytes = (key: string) => Number(new RegExp(`^${key}:\\s*(\\d+) kB$`, 'm').exec(text)?.[1] ?? 0);
  return { residentBytes: kilobytes('VmRSS') * 1024, virtualBytes: kilobytes('VmSize') * 1024 };
}

/** Storage bytes read and written from /proc/PID/io; 0 for what it lacks. */
export function parsePidIo(text: string): { readBytes: number; writeBytes: number } {
  const value = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { readBytes: value('read_bytes'), writeBytes: value('write_bytes') };
}

/** Reads /proc/stat's boot time; undefined off Linux. */
export async function readBootTime(): Promise<number | undefined> {
  return parseBootTime(await readFile('/proc/stat', 'utf8').catch(() => ''));
}

/** Reads a process's stats; undefined when it is gone (or this is not Linux). */
export async function readProcessStats(
  pid: number,
  bootTimeSeconds: number,
): Promise<ProcessStats | undefined> {
  const read = (file: string) => readFile(`/proc/${pid}/${file}`, 'utf8');
  try {
    const [stat, status] = await Promise.all([read('stat'), read('status')]);
    const times = parsePidStat(stat, bootTimeSeconds);
    if (times === undefined) return undefined;
    // /proc/PID/io needs the right to trace the process: a container may not grant it.
    const io = parsePidIo(await read('io').catch(() => ''));
    return { pid, ...times, ...parsePidMemory(status), ...io };
  } catch {
    return undefined;
  }
}
