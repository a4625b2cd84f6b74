/**
 * Golden files: testdata/<case>.in.yaml → <case>.out.conf (+ .problems.yaml, .backends.json).
 * Run with UPDATE_GOLDEN=1 to rewrite them after an intended change, then review the diff.
 * golden.integration.test.ts checks every .out.conf with `nginx -t`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listGoldenCases, renderGoldenCase, TESTDATA_DIR } from './testing/golden.js';

const update = process.env.UPDATE_GOLDEN === '1';

function compare(file: string, actual: string): void {
  const target = join(TESTDATA_DIR, file);
  if (update || !existsSync(target)) writeFileSync(target, actual);
  expect(actual).toBe(readFileSync(target, 'utf8'));
}

describe('renderNginxConf (golden)', () => {
  it('has golden cases', () => {
    expect(listGoldenCases().length).toBeGreaterThanOrEqual(8);
  });

  it.each(listGoldenCases())('renders %s as recorded', (name) => {
    const output = renderGoldenCase(name);
    compare(`${name}.out.conf`, output.conf);
    compare(`${name}.problems.yaml`, output.problems);
    compare(`${name}.backends.json`, output.backends);
  });

  it.each(listGoldenCases())('renders %s identically twice', (name) => {
    expect(renderGoldenCase(name).conf).toBe(renderGoldenCase(name).conf);
  });
});
