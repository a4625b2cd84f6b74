/**
 * Golden files: testdata/<case>.in.yaml → <case>.out.yaml (each Ingress's translation) and
 * <case>.table.yaml (the assembled route table). Run with UPDATE_GOLDEN=1 to rewrite them after
 * an intended change, then review the diff.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listGoldenCases, runGoldenCase, TESTDATA_DIR } from './testing/golden.js';

const update = process.env.UPDATE_GOLDEN === '1';

function compare(file: string, actual: string): void {
  const target = join(TESTDATA_DIR, file);
  if (update || !existsSync(target)) writeFileSync(target, actual);
  expect(actual).toBe(readFileSync(target, 'utf8'));
}

describe('translateIngress (golden)', () => {
  it('has golden cases', () => {
    expect(listGoldenCases().length).toBeGreaterThanOrEqual(8);
  });

  it.each(listGoldenCases())('translates %s as recorded', (name) => {
    const output = runGoldenCase(name);
    compare(`${name}.out.yaml`, output.translations);
    compare(`${name}.table.yaml`, output.table);
  });

  it.each(listGoldenCases())('translates %s identically twice', (name) => {
    expect(runGoldenCase(name)).toEqual(runGoldenCase(name));
  });
});
