/**
 * Runs every benchmark scenario (`bench/*.bench.ts`, or those whose name contains an argument)
 * one at a time in its own Node process, and writes what they print into bench/RESULTS.md with the
 * machine, Node version and date. Each scenario prints a Markdown section: a `## title` line,
 * a table of figures, and each ratio against its baseline measured in the same process.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

const benchDir = import.meta.dirname;
const filters = process.argv.slice(2);
const scenarios = readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

const sections: string[] = [];
let failed = 0;
for (const file of scenarios) {
  process.stderr.write(`bench: ${file}\n`);
  const run = spawnSync(
    process.execPath,
    ['--conditions=@ingresskit/source', '--import', 'tsx', '--expose-gc', join(benchDir, file)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) {
    failed += 1;
    sections.push(`## ${file}\n\nFailed with exit code ${run.status ?? run.signal}.\n`);
  } else {
    sections.push(run.stdout.trim() + '\n');
  }
  process.stdout.write(run.stdout);
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const header = [
  '# Benchmark results',
  '',
  `Produced by \`pnpm bench${filters.length ? ' ' + filters.join(' ') : ''}\` on ${new Date().toISOString().slice(0, 10)}.`,
  `Machine: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}.`,
  '',
].join('\n');
if (filters.length === 0) writeFileSync(join(benchDir, 'RESULTS.md'), `${header}\n${sections.join('\n')}`);
process.exitCode = failed === 0 ? 0 : 1;
