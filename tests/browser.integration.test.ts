/**
 * route-model, class-resolution and checksum's pure entry say they run in a browser. This bundles them for the browser
 * (any Node built-in they reached for would fail the build), runs route-model's README example, a
 * few routing decisions and class decisions with their explanations in headless Chromium, and
 * compares what the browser answers with what Node answers for the same calls: the reference
 * router and the class resolver must say the same thing wherever they run.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from './browser-scenario.js';

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ingresskit-browser-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('route-model, class-resolution and checksum in a browser', () => {
  it('bundles without Node built-ins, and routes, resolves classes and computes checksums in Chromium exactly as in Node', async () => {
    const entry = join(dir, 'entry.ts');
    await writeFile(
      entry,
      `import { runScenario } from ${JSON.stringify(new URL('./browser-scenario.ts', import.meta.url).pathname)};\n` +
        `document.body.textContent = JSON.stringify(runScenario());\n`,
    );
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      conditions: ['@ingresskit/source'],
      write: false,
      logLevel: 'silent',
    });
    const script = result.outputFiles[0]!.text;
    expect(script).not.toMatch(/require\(["']node:/);
    const page = join(dir, 'index.html');
    await writeFile(
      page,
      `<!doctype html><html><body><script>${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`,
    );
    const { stdout } = await run(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--dump-dom',
        `file://${page}`,
      ],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const body = /<body>([\s\S]*)<\/body>/.exec(stdout)?.[1] ?? '';
    const inBrowser = JSON.parse(
      body
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>'),
    ) as unknown;
    const inNode = runScenario();
    expect(inNode.answers.length).toBeGreaterThan(5);
    expect(inNode.classDecisions.map((decision) => decision.owned)).toEqual([true, false, false, true, true]);
    expect(inNode.checksum.ids).toEqual(['27555-1', '9-2', '10-3']);
    expect(inNode.checksum.verification).toMatchObject({ ok: false });
    expect(inBrowser).toEqual(inNode);
  }, 90_000);
});
