/**
 * Golden files: testdata/<case>.in.yaml → <case>.out.conf (+ .update.json, .problems.yaml).
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

describe('renderNginxConf and createDataPlaneUpdate (golden)', () => {
  it('has golden cases', () => {
    expect(listGoldenCases().length).toBeGreaterThanOrEqual(5);
  });

  it.each(listGoldenCases())('renders %s as recorded', (name) => {
    const output = renderGoldenCase(name);
    compare(`${name}.out.conf`, output.conf);
    compare(`${name}.update.json`, output.update);
    compare(`${name}.problems.yaml`, output.problems);
  });

  it.each(listGoldenCases())('renders %s identically twice', (name) => {
    const first = renderGoldenCase(name);
    const second = renderGoldenCase(name);
    expect(second.conf).toBe(first.conf);
    expect(second.update).toBe(first.update);
  });
});
