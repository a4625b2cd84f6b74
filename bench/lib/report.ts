/**
 * What the system scenarios share besides measuring: their scale (set by environment variables so
 * a quick run is possible), the summary rows `bench/run.ts` gathers into the table at the top of
 * RESULTS.md: the old and the new data plane side by side, with the acceptance target, an in-run
 * reference and the closest published figure of a peer.
 */
import { appendFileSync } from 'node:fs';
import type { Anchor } from './anchors.js';
import type { Side } from './baseline.js';

/** One line of the summary table. */
export interface SummaryRow {
  scenario: string;
  /** What was measured, with its scale, e.g. `cold start, 10,000 Ingresses`. */
  figure: string;
  /** The old data plane's figure (baseline side) with its unit; undefined when it did not run. */
  old?: string;
  /** The new data plane's figure (current side) with its unit; undefined when it did not run. */
  new?: string;
  /** new ÷ old, e.g. `0.02×`. */
  ratio?: string;
  /** The acceptance target of the new figure, e.g. `p99 < 50 ms`, and whether this run met it. */
  target?: string;
  met?: boolean;
  /** An in-run reference with its unit (a floor, native nginx), when there is one. */
  reference?: string;
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
 * The Ingress counts the system scenarios run at: BENCH_SIZES (comma-separated; 100000 is opt-in
 * this way), or 1,000 only with BENCH_SCALE=quick, else 1,000 and 10,000.
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

/** `a / b` as `1.23×` (three significant digits below 0.1). */
export function formatRatio(a: number, b: number): string {
  const ratio = a / b;
  if (!Number.isFinite(ratio)) return '—';
  return `${ratio.toLocaleString('en-US', ratio < 0.1 ? { maximumSignificantDigits: 2 } : { maximumFractionDigits: 2 })}×`;
}

/**
 * The old / new / ratio cells of a summary row from what each side measured: `describe` writes a
 * cell, the ratio is new ÷ old of `value`; a side that did not run stays empty.
 */
export function sideCells<T>(
  bySide: ReadonlyMap<Side, T>,
  value: (measured: T) => number,
  describe: (measured: T) => string,
): Pick<SummaryRow, 'old' | 'new' | 'ratio'> {
  const old = bySide.get('baseline');
  const current = bySide.get('current');
  return {
    ...(old === undefined ? {} : { old: describe(old) }),
    ...(current === undefined ? {} : { new: describe(current) }),
    ...(old === undefined || current === undefined ? {} : { ratio: formatRatio(value(current), value(old)) }),
  };
}

/** The target cells of a summary row: `text`, met when `value` (of the new side) passes `isMet`. */
export function checkTarget(
  text: string,
  value: number | undefined,
  isMet: (value: number) => boolean,
): Pick<SummaryRow, 'target' | 'met'> {
  return value === undefined || Number.isNaN(value) ? { target: text } : { target: text, met: isMet(value) };
}
