/**
 * optimizeHeapForSize changes V8's flags for the whole process, so it runs in a child process:
 * after a burst of garbage like the start's, the first quiet second gives the heap's freed pages back.
 */
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const moduleUrl = pathToFileURL(new URL('./heap-after-ready.ts', import.meta.url).pathname).href;

/** A child that fills the old generation with garbage, calls optimizeHeapForSize and reports. */
const script = `
import { optimizeHeapForSize } from ${JSON.stringify(moduleUrl)};
import { setTimeout as sleep } from 'node:timers/promises';
const MiB = 2 ** 20;
// Objects that live long enough to be promoted, then die: the old generation grows.
let kept = [];
for (let i = 0; i < 400_000; i++) kept.push({ i, text: 'garbage ' + i, list: [i, i + 1] });
await sleep(50);
kept = undefined;
const before = process.memoryUsage().heapTotal;
const controller = new AbortController();
optimizeHeapForSize(controller.signal);
await sleep(2_500);
console.log(JSON.stringify({ before: before / MiB, after: process.memoryUsage().heapTotal / MiB }));
controller.abort();
`;

describe('optimizeHeapForSize', () => {
  it('gives the freed heap back at the first quiet second', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('../../..', import.meta.url).pathname,
    });
    const { before, after } = JSON.parse(stdout) as { before: number; after: number };
    expect(before).toBeGreaterThan(40);
    expect(after).toBeLessThan(before / 2);
  });
});
