/**
 * Test-only golden-file harness: `testdata/<case>.in.yaml` holds `options` (RenderOptions) and a
 * route `table`; it gives `<case>.out.conf` (nginx.conf), `<case>.update.json` (the full push,
 * pretty-printed) and `<case>.problems.yaml`. Certificate PEM values of the form `file:tls/x.crt`
 * are read from testdata, so certificates are not pasted into the cases.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteTable } from '@ingresskit/route-model';
import { parse, stringify } from 'yaml';
import { buildConfiguration, type BuildResult } from '../build-configuration.js';
import { createDataPlaneUpdate } from '../data-plane-update.js';
import { renderNginxConf } from '../render.js';
import type { RenderOptions } from '../settings.js';

/** The testdata directory. */
export const TESTDATA_DIR = fileURLToPath(new URL('../../testdata/', import.meta.url));

/** Names of the golden cases (files `<name>.in.yaml`), sorted. */
export function listGoldenCases(): string[] {
  return readdirSync(TESTDATA_DIR)
    .filter((file) => file.endsWith('.in.yaml'))
    .map((file) => file.slice(0, -'.in.yaml'.length))
    .sort();
}

const CATALOGUE = /( *# catalogue: begin[^\n]*\n)([\s\S]*?)( *# catalogue: end\n)/g;

function digestOf(body: string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

/**
 * `conf` with each catalogue region (profile, body reader and error page locations, the same for
 * every route table) shortened to one line naming its size and digest, so a golden nginx.conf
 * shows what a case changes; the full text of each is recorded once (`catalogues/<digest>.conf`).
 */
export function condenseCatalogue(conf: string): string {
  return conf.replace(CATALOGUE, (_, begin: string, body: string, end: string) => {
    const indent = /^ */.exec(begin)![0];
    return `${begin}${indent}# ... ${body.split('\n').length - 1} lines: catalogues/${digestOf(body)}.conf\n${end}`;
  });
}

/** The catalogue regions of `conf` by the golden file that records each. */
export function listCatalogues(conf: string): Map<string, string> {
  const regions = new Map<string, string>();
  for (const match of conf.matchAll(CATALOGUE))
    regions.set(`catalogues/${digestOf(match[2]!)}.conf`, match[2]!);
  return regions;
}

/** What a golden case produces. */
export interface GoldenOutput {
  options: RenderOptions;
  result: BuildResult;
  conf: string;
  update: string;
  problems: string;
}

function readFileReference(value: string): string {
  return value.startsWith('file:')
    ? readFileSync(join(TESTDATA_DIR, value.slice('file:'.length)), 'utf8')
    : value;
}

/** Builds and renders one case. */
export function renderGoldenCase(name: string): GoldenOutput {
  const input = parse(readFileSync(join(TESTDATA_DIR, `${name}.in.yaml`), 'utf8')) as {
    options: RenderOptions;
    table: RouteTable;
  };
  const table: RouteTable = {
    ...input.table,
    certificates: input.table.certificates.map((certificate) => ({
      ...certificate,
      certificatePem: readFileReference(certificate.certificatePem),
      privateKeyPem: readFileReference(certificate.privateKeyPem),
    })),
  };
  const result = buildConfiguration(table, input.options);
  return {
    options: input.options,
    result,
    conf: renderNginxConf(result.configuration),
    update: `${JSON.stringify(JSON.parse(createDataPlaneUpdate(table)), null, 2)}\n`,
    problems: stringify(result.problems),
  };
}
