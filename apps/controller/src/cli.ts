#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072 node --max-semi-space-size=2
/**
 * The process edge of ingresskit: argv and environment in, exit code out. SIGINT and SIGTERM ask
 * the running command to stop gracefully; a second signal exits at once.
 *
 * The first line sizes memory for a long-running controller (bench/RSS-DIAGNOSIS.md):
 * - `--max-semi-space-size=2` (MiB) caps V8's young generation. Node 24 lets it grow to 128 MiB
 *   under allocation bursts (a cold start of 10,000 Ingresses is one) and never gives it back.
 *   2 MiB keeps a cold start as fast as 8 did and holds 15 MiB less at ready.
 * - `MALLOC_ARENA_MAX=2` stops glibc from giving each of Node's threads its own malloc arena
 *   (up to 8 per core), which held 20 MiB of mostly free memory at 10,000 Ingresses.
 * - `MALLOC_MMAP_THRESHOLD_` and `MALLOC_TRIM_THRESHOLD_` at 128 KiB: glibc serves large blocks
 *   from mmap and gives freed memory back at once, instead of keeping it in the arenas (about 15 MiB
 *   at 10,000 Ingresses, with change latency unchanged).
 * The Dockerfile sets the same.
 */
import { unsupportedNodeReason } from './node-version.js';

const unsupported = unsupportedNodeReason(process.version);
if (unsupported !== undefined) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(1);
}
// Loaded only now: on an older Node the commands' dependencies would fail before any check ran.
const { runCli } = await import('./commands/index.js');

const controller = new AbortController();
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) {
    process.stderr.write(`ingresskit: ${signal} again, exiting now\n`);
    process.exit(130);
  }
  controller.abort(signal);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: controller.signal,
  cwd: process.cwd(),
});
process.off('SIGINT', onSignal);
process.off('SIGTERM', onSignal);
process.exitCode = exitCode;
