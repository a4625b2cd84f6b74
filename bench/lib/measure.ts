/** Small shared helpers for benchmark scenarios: timing, percentiles, memory and Markdown output. */
import { performance } from 'node:perf_hooks';

/** Runs `fn` once and returns its result with the elapsed milliseconds. */
export async function timeIt<T>(fn: () => T | Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await fn();
  return { result, ms: performance.now() - start };
}

/** Runs `fn` `iterations` times after `warmup` runs and returns operations per second. */
export async function opsPerSecond(
  fn: () => unknown,
  iterations: number,
  warmup = Math.ceil(iterations / 10),
) {
  for (let i = 0; i < warmup; i++) await fn();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  return (iterations / (performance.now() - start)) * 1000;
}

/** The p-th percentile (0–100) of `samples`, nearest-rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Heap and RSS in MiB after a full GC when the process runs with --expose-gc. */
export function memoryMiB(): { heapUsed: number; rss: number } {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed / 2 ** 20, rss: usage.rss / 2 ** 20 };
}

/** Formats a number with at most `digits` significant decimals and thousands separators. */
export function formatNumber(value: number, digits = 1): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** Prints a Markdown section: `## title`, an optional paragraph, then a table. */
export function printSection(title: string, rows: Record<string, string | number>[], note?: string): void {
  const columns = Object.keys(rows[0] ?? {});
  const lines = [`## ${title}`, ''];
  if (note) lines.push(note, '');
  lines.push(`| ${columns.join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`);
  for (const row of rows) lines.push(`| ${columns.map((column) => String(row[column] ?? '')).join(' | ')} |`);
  process.stdout.write(lines.join('\n') + '\n\n');
}

/** A small deterministic generator in [0, 1), so every run makes the same choices. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
