/**
 * Golden files: testdata/<case>.in.yaml → <case>.out.conf (+ .catalogue.conf, .update.json,
 * .problems.yaml); the catalogue regions of nginx.conf are recorded once, in .catalogue.conf.
 * Run with UPDATE_GOLDEN=1 to rewrite them after an intended change, then review the diff.
 * golden.integration.test.ts checks every .out.conf with `nginx -t`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  condenseCatalogue,
  listCatalogues,
  listGoldenCases,
  renderGoldenCase,
  TESTDATA_DIR,
} from './testing/golden.js';

const update = process.env.UPDATE_GOLDEN === '1';

function compare(file: string, actual: string): void {
  const target = join(TESTDATA_DIR, file);
  if (update || !existsSync(target)) {
    mkdirSync(join(target, '..'), { recursive: true });
    writeFileSync(target, actual);
  }
  expect(actual).toBe(readFileSync(target, 'utf8'));
}

describe('renderNginxConf and createDataPlaneUpdate (golden)', () => {
  it('has golden cases', () => {
    expect(listGoldenCases().length).toBeGreaterThanOrEqual(5);
  });

  it.each(listGoldenCases())('renders %s as recorded', (name) => {
    const output = renderGoldenCase(name);
    compare(`${name}.out.conf`, condenseCatalogue(output.conf));
    for (const [file, body] of listCatalogues(output.conf)) compare(file, body);
    compare(`${name}.update.json`, output.update);
    compare(`${name}.problems.yaml`, output.problems);
  });

  it('records no catalogue no case renders', () => {
    const used = new Set(
      listGoldenCases().flatMap((name) => [...listCatalogues(renderGoldenCase(name).conf).keys()]),
    );
    const recorded = readdirSync(join(TESTDATA_DIR, 'catalogues')).map((file) => `catalogues/${file}`);
    if (update)
      for (const file of recorded.filter((file) => !used.has(file))) rmSync(join(TESTDATA_DIR, file));
    else expect(recorded.filter((file) => !used.has(file))).toEqual([]);
  });

  it.each(listGoldenCases())('renders %s identically twice', (name) => {
    const first = renderGoldenCase(name);
    const second = renderGoldenCase(name);
    expect(second.conf).toBe(first.conf);
    expect(second.update).toBe(first.update);
  });
});
