/**
 * Runs every benchmark scenario (`bench/*.bench.ts`, or those whose name contains an argument)
 * one at a time in its own Node process, and — for a run of all of them — writes what they print
 * into bench/RESULTS.md with the machine, Node and nginx versions, date, the time each scenario
 * took, and a summary table of the system figures beside their in-run baselines and the peers'
 * published figures. Each scenario prints Markdown sections: a `## title` line, a table of
 * figures, and each ratio against its baseline measured in the same process.
 *
 * Before the system scenarios (`controller-*`) the controller and the packages it uses are built,
 * so they run the `ingresskit` users run (apps/controller/dist); if the build fails they run the
 * sources through tsx and RESULTS.md says so. Scale, through environment variables:
 *   BENCH_SCALE=quick   1,000 Ingresses only, 50 changes per latency series, 300 churn changes in 20 s
 *   BENCH_SIZES=1000,10000   Ingress counts of the system scenarios (default both)
 *   BENCH_CHANGES=N     changes per latency series (default 200; 10 edits and 100 moves at 10,000)
 *   BENCH_CONTROLLER=source|dist   skip the build and choose what runs
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { SummaryRow } from './lib/report.js';

const benchDir = import.meta.dirname;
const repoRoot = join(benchDir, '..');
const filters = process.argv.slice(2);
const scenarios = readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

const notes: string[] = [];
const env: NodeJS.ProcessEnv = { ...process.env };
if (scenarios.some((file) => file.startsWith('controller-')) && env.BENCH_CONTROLLER === undefined) {
  process.stderr.write('bench: building the controller and its packages\n');
  const build = spawnSync('pnpm', ['--filter', '@ingresskit/controller...', 'build'], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (build.status === 0) {
    env.BENCH_CONTROLLER = 'dist';
  } else {
    env.BENCH_CONTROLLER = 'source';
    process.stderr.write(`bench: the build failed; running the controller from source\n${build.stderr}\n`);
    notes.push(
      'The controller build failed, so the system scenarios ran the sources through tsx (about 1 s more ' +
        'start-up and over 100 MiB more RSS than the built controller).',
    );
  }
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
  const parts = [
    env.BENCH_SCALE ? `BENCH_SCALE=${env.BENCH_SCALE}` : '',
    env.BENCH_SIZES ? `BENCH_SIZES=${env.BENCH_SIZES}` : '',
    env.BENCH_CHANGES ? `BENCH_CHANGES=${env.BENCH_CHANGES}` : '',
  ].filter((part) => part !== '');
  return parts.length === 0 ? 'full (1,000 and 10,000 Ingresses)' : parts.join(', ');
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const lines = [
  '# Benchmark results',
  '',
  `Produced by \`pnpm bench${filters.length ? ' ' + filters.join(' ') : ''}\` on ${new Date().toISOString().slice(0, 10)} ` +
    `in ${Math.round(totalSeconds / 60)} min. Scale: ${describeScale()}. A shorter run: ` +
    '`BENCH_SCALE=quick pnpm bench` (1,000 Ingresses, fewer changes; see bench/run.ts).',
  `Machine: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}; ` +
    `Node ${process.version}; nginx ${readNginxVersion()}; controller: ${env.BENCH_CONTROLLER === 'dist' ? 'built (apps/controller/dist)' : 'sources through tsx'}.`,
  '',
  ...notes.flatMap((note) => [note, '']),
];
if (summary.length > 0) {
  lines.push(
    '## Summary: IngressKit beside its in-run baselines and the published figures of its peers',
    '',
    'Peer figures come from other machines and set-ups (see each source); they give the order of magnitude, ' +
      'not a race result. Every other figure below was measured in this run, on this machine. The package ' +
      'scenarios (store, task-queue, class-resolution, checksum, nginx-template, local-apiserver) follow the ' +
      'system scenarios in their own sections.',
    '',
    '| Scenario | Figure | IngressKit | In-run baseline | Ratio | Published peer figure | Source |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...summary.map(
      (row) =>
        `| ${cell(row.scenario)} | ${cell(row.figure)} | ${cell(row.ours)} | ${cell(row.baseline)} | ${cell(row.ratio)} | ` +
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
if (filters.length === 0)
  writeFileSync(join(benchDir, 'RESULTS.md'), `${lines.join('\n')}\n${ordered.join('\n')}`);
process.exitCode = durations.every((entry) => entry.ok) ? 0 : 1;
