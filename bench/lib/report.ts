/**
 * What the system scenarios share besides measuring: their scale (set by environment variables so
 * a quick run is possible), the summary rows `bench/run.ts` gathers into the table at the top of
 * RESULTS.md, and a table that puts our figures beside the peers' published ones.
 */
import { appendFileSync } from 'node:fs';
import type { Anchor } from './anchors.js';
import { printSection } from './measure.js';

/** One line of the summary table. */
export interface SummaryRow {
  scenario: string;
  /** What was measured, with its scale, e.g. `cold start, 10,000 Ingresses`. */
  figure: string;
  /** Our figure with its unit. */
  ours: string;
  /** The in-run baseline with its unit, when there is one. */
  baseline?: string;
  /** ours ÷ baseline, e.g. `1.8×`. */
  ratio?: string;
  /** The closest published figure of a peer. */
  anchor?: Anchor;
}

/**
 * Hands a summary row to `bench/run.ts` (through the file it names in BENCH_SUMMARY_FILE); does
 * nothing when the scenario runs on its own.
 */
export function recordSummary(row: SummaryRow): void {
  const file = process.env.BENCH_SUMMARY_FILE;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}

/**
 * The Ingress counts the system scenarios run at: BENCH_SIZES (comma-separated), or 1,000 only
 * with BENCH_SCALE=quick, else 1,000 and 10,000.
 */
export function readSizes(): number[] {
  const sizes = process.env.BENCH_SIZES;
  if (sizes)
    return sizes
      .split(',')
      .map((size) => Number(size.trim()))
      .filter((size) => size > 0);
  return process.env.BENCH_SCALE === 'quick' ? [1_000] : [1_000, 10_000];
}

/** Whether BENCH_SCALE=quick asks for a short run. */
export function isQuick(): boolean {
  return process.env.BENCH_SCALE === 'quick';
}

/** Prints `rows` of (figure, ours, peer anchor, source) as a Markdown section. */
export function printComparison(
  title: string,
  rows: { figure: string; ours: string; anchor: Anchor }[],
): void {
  printSection(
    title,
    rows.map((row) => ({
      'IngressKit (this run)': `${row.figure}: ${row.ours}`,
      'Published peer figure': row.anchor.figure,
      Source: row.anchor.source,
    })),
  );
}

/** `a / b` as `1.23×`. */
export function formatRatio(a: number, b: number): string {
  return `${(a / b).toLocaleString('en-US', { maximumFractionDigits: 2 })}×`;
}
