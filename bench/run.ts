/**
 * Runs every benchmark scenario (`bench/*.bench.ts`, or those whose name contains an argument)
 * one at a time in its own Node process, and writes what they print into bench/RESULTS.md (a run
 * of some scenarios: bench/.out/RESULTS.partial.md) with the machine, Node and nginx versions, date, the time each scenario
 * took, and a summary table: the old data plane (baseline, commit ac9a183) and the new one
 * (current working tree) side by side, their ratio, the acceptance target of the new figure, an
 * in-run reference where there is one, and the peers' published figures. Each scenario prints
 * Markdown sections and hands its summary rows over through BENCH_SUMMARY_FILE.
 *
 * Before the system scenarios (`controller-*`) both controllers are built (see lib/baseline.ts):
 * the baseline in a git worktree under bench/.out/baseline (reused when already built), the
 * current one in place. A side that does not build is skipped with a note. Environment:
 *   BENCH_SIDES=baseline,current   the sides to run (default both)
 *   BENCH_SCALE=quick   1,000 Ingresses only, 50 changes per latency series, 30 s of churn,
 *                       200 syncs for memory at 1,000, 5 s throughput runs
 *   BENCH_SIZES=1000,10000[,100000]   Ingress counts of the system scenarios (100,000: new side only)
 *   BENCH_CHANGES=N     changes per latency series
 *   BENCH_POLL_MS=2     poll interval of the change-latency probes
 *   BENCH_CHURN_SECONDS=600, BENCH_CHURN_RATE=2   churn duration and changes per second
 *   BENCH_MEMORY_SIZES=10000, BENCH_MEMORY_SYNCS=1000, BENCH_MEMORY_SECONDS=900
 *   BENCH_THROUGHPUT_REPS=3, BENCH_THROUGHPUT_SECONDS=10, BENCH_PIN=off | proxy=0,backend=1,load=1
 *   BENCH_CONTROLLER=source|dist   the current side: skip its build and run src through tsx or dist
 *   BENCH_NODE_OPTIONS="--max-semi-space-size=16"   Node options of both controllers (none by default)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  BASELINE_COMMIT,
  buildCurrent,
  prepareBaseline,
  readSides,
  type PreparedSide,
} from './lib/baseline.js';
import type { SummaryRow } from './lib/report.js';

const benchDir = import.meta.dirname;
const filters = process.argv.slice(2);
const scenarios = readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

const notes: string[] = [];
const env: NodeJS.ProcessEnv = { ...process.env };
const sideNotes: string[] = [];
if (scenarios.some((file) => file.startsWith('controller-'))) {
  const prepared: PreparedSide[] = [];
  for (const side of readSides()) {
    if (side === 'baseline') {
      process.stderr.write(`bench: preparing the baseline controller (${BASELINE_COMMIT})\n`);
      prepared.push(prepareBaseline((line) => process.stderr.write(`${line}\n`)));
    } else if (env.BENCH_CONTROLLER === undefined) {
      process.stderr.write('bench: building the current controller and its packages\n');
      const built = buildCurrent();
      prepared.push(built);
      if (built.ok) env.BENCH_CONTROLLER = 'dist';
    } else prepared.push({ side, ok: true, note: `BENCH_CONTROLLER=${env.BENCH_CONTROLLER}` });
  }
  for (const side of prepared) {
    if (side.ok) continue;
    process.stderr.write(
      `bench: the ${side.side} controller did not build; skipping that side\n${side.reason}\n`,
    );
    const lines = side.reason.split('\n').filter((line) => line.trim() !== '');
    const firstError = lines.find((line) => /\berror\b/i.test(line)) ?? lines.at(-1) ?? '';
    notes.push(
      `The ${side.side === 'baseline' ? `old (${BASELINE_COMMIT})` : 'current'} controller did not build, so its side ` +
        `was skipped; its cells are empty. First error: \`${firstError.replace(/^\S+ build: /, '').trim()}\``,
    );
  }
  env.BENCH_SIDES = prepared
    .filter((side) => side.ok)
    .map((side) => side.side)
    .join(',');
  sideNotes.push(
    ...prepared.map((side) =>
      side.side === 'baseline'
        ? `old: ${side.ok ? `worktree of ${BASELINE_COMMIT} in bench/.out/baseline, apps/controller/dist` : 'not built'}`
        : `new: ${!side.ok ? 'not built' : env.BENCH_CONTROLLER === 'dist' ? 'apps/controller/dist' : 'apps/controller/src through tsx'}`,
    ),
  );
}

const work = mkdtempSync(join(tmpdir(), 'ingresskit-bench-run-'));
const summaryFile = join(work, 'summary.jsonl');
writeFileSync(summaryFile, '');
env.BENCH_SUMMARY_FILE = summaryFile;

const sections: string[] = [];
const durations: { file: string; seconds: number; ok: boolean }[] = [];
const runStart = performance.now();
for (const file of scenarios) {
  process.stderr.write(`bench: ${file}\n`);
  const start = performance.now();
  const run = spawnSync(
    process.execPath,
    ['--conditions=@ingresskit/source', '--import', 'tsx', '--expose-gc', join(benchDir, file)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024, env },
  );
  const ok = run.status === 0;
  durations.push({ file, seconds: (performance.now() - start) / 1000, ok });
  sections.push(
    ok ? run.stdout.trim() + '\n' : `## ${file}\n\nFailed with exit code ${run.status ?? run.signal}.\n`,
  );
  process.stdout.write(run.stdout);
}
const totalSeconds = (performance.now() - runStart) / 1000;
const summary = readFileSync(summaryFile, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as SummaryRow);
rmSync(work, { recursive: true, force: true });

/** A Markdown table cell: no pipes, no line breaks. */
function cell(text: string | undefined): string {
  return (text ?? '—').replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function readNginxVersion(): string {
  const run = spawnSync('/usr/sbin/nginx', ['-v'], { encoding: 'utf8' });
  return (run.stderr || run.stdout).trim().replace(/^nginx version: (nginx\/)?/, '') || 'unknown';
}

function describeScale(): string {
  const parts = Object.keys(process.env)
    .filter((name) => name.startsWith('BENCH_') && name !== 'BENCH_SUMMARY_FILE')
    .sort()
    .map((name) => `${name}=${process.env[name]}`);
  return parts.length === 0
    ? 'full (1,000 and 10,000 Ingresses, 10 min of churn per side and size)'
    : parts.join(', ');
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const lines = [
  '# Benchmark results',
  '',
  `Produced by \`pnpm bench${filters.length ? ' ' + filters.join(' ') : ''}\` on ${new Date().toISOString().slice(0, 10)} ` +
    `in ${Math.round(totalSeconds / 60)} min. Scale: ${describeScale()}. A shorter run: ` +
    '`BENCH_SCALE=quick pnpm bench` (1,000 Ingresses, fewer changes, 30 s of churn; see bench/run.ts).',
  `Machine: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}; ` +
    `Node ${process.version}; nginx ${readNginxVersion()}; controllers: ${sideNotes.join('; ') || 'none run'}.`,
  '',
  ...notes.flatMap((note) => [note, '']),
];
if (summary.length > 0) {
  lines.push(
    '## Summary: the old and the new data plane side by side',
    '',
    `Old: the controller of commit ${BASELINE_COMMIT} (every Ingress change renders nginx.conf, runs \`nginx -t\` and ` +
      'reloads; endpoints go to a Lua balancer). New: the working tree (routes, certificates and backends pushed to ' +
      'Lua as data, no reload). Both ran in this run, on this machine, through the same `ingresskit run` command ' +
      'line; new ÷ old below 1× means the new figure is smaller. The target is the acceptance criterion of the new ' +
      'figure. Peer figures come from other machines and set-ups (see each source); they give the order of ' +
      'magnitude, not a race result. The package scenarios follow the system scenarios in their own sections.',
    '',
    '| Scenario | Figure | Old (' +
      BASELINE_COMMIT +
      ') | New | New ÷ old | Target (new) | Met | In-run reference | Published peer figure | Source |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...summary.map(
      (row) =>
        `| ${cell(row.scenario)} | ${cell(row.figure)} | ${cell(row.old)} | ${cell(row.new)} | ${cell(row.ratio)} | ` +
        `${cell(row.target)} | ${row.met === undefined ? '—' : row.met ? 'yes' : '**no**'} | ${cell(row.reference)} | ` +
        `${cell(row.anchor?.figure)} | ${cell(row.anchor?.source)} |`,
    ),
    '',
  );
}
lines.push(
  '## Scenarios run',
  '',
  '| Scenario | Seconds | Result |',
  '| --- | --- | --- |',
  ...durations.map(
    (entry) => `| ${entry.file} | ${entry.seconds.toFixed(0)} | ${entry.ok ? 'ok' : 'failed'} |`,
  ),
  `| total | ${totalSeconds.toFixed(0)} | |`,
  '',
);
// System scenarios first: they are what the summary refers to.
const ordered = [
  ...sections.filter((_, i) => durations[i]!.file.startsWith('controller-')),
  ...sections.filter((_, i) => !durations[i]!.file.startsWith('controller-')),
];
// A partial run (some scenarios) leaves RESULTS.md alone and writes its own page under bench/.out.
const resultsFile =
  filters.length === 0 ? join(benchDir, 'RESULTS.md') : join(benchDir, '.out', 'RESULTS.partial.md');
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(resultsFile, `${lines.join('\n')}\n${ordered.join('\n')}`);
process.stderr.write(`bench: wrote ${resultsFile}\n`);
process.exitCode = durations.every((entry) => entry.ok) ? 0 : 1;
