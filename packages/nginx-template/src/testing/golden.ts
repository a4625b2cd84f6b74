/**
 * Test-only golden-file harness: `testdata/<case>.in.yaml` (Kubernetes objects, plus an optional
 * `kind: GoldenOptions` document) → `<case>.out.conf`, `<case>.problems.yaml` and
 * `<case>.backends.json`. Secret `stringData` values of the form `file:tls/x.crt` are read from
 * testdata, so certificates are not pasted into the manifests; the Secrets keep them in
 * `stringData`, as manifests on disk do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { backendsPayload } from '../backends-payload.js';
import { buildConfiguration } from '../build-configuration.js';
import { renderNginxConf, type RenderOptions } from '../render.js';
import type { BuildOptions, BuildResult, ConfigurationInput, ServiceReference } from '../types.js';

/** The testdata directory. */
export const TESTDATA_DIR = fileURLToPath(new URL('../../testdata/', import.meta.url));

/** Names of the golden cases (files `<name>.in.yaml`), sorted. */
export function listGoldenCases(): string[] {
  return readdirSync(TESTDATA_DIR)
    .filter((file) => file.endsWith('.in.yaml'))
    .map((file) => file.slice(0, -'.in.yaml'.length))
    .sort();
}

interface GoldenOptions {
  defaultBackend?: ServiceReference;
  build?: BuildOptions;
  render?: RenderOptions;
}

type KubeObject = {
  kind?: string;
  metadata?: unknown;
  stringData?: Record<string, string>;
  data?: Record<string, string>;
};

/** Replaces `file:` references in `stringData` by the file's text; stringData itself is read by buildConfiguration. */
function resolveFileReferences(object: KubeObject): KubeObject {
  if (object.stringData === undefined) return object;
  const stringData: Record<string, string> = {};
  for (const [key, value] of Object.entries(object.stringData)) {
    stringData[key] = value.startsWith('file:')
      ? readFileSync(join(TESTDATA_DIR, value.slice('file:'.length)), 'utf8')
      : value;
  }
  return { ...object, stringData };
}

/** What a golden case produces. */
export interface GoldenOutput {
  result: BuildResult;
  conf: string;
  problems: string;
  backends: string;
}

/** Builds and renders one case. */
export function renderGoldenCase(name: string): GoldenOutput {
  const documents = parseAllDocuments(readFileSync(join(TESTDATA_DIR, `${name}.in.yaml`), 'utf8'));
  const objects = documents
    .map((document) => document.toJS() as KubeObject)
    .filter((object) => object !== null);
  const options = (objects.find((object) => object.kind === 'GoldenOptions') ?? {}) as GoldenOptions;
  const ofKind = (kind: string) =>
    objects.filter((object) => object.kind === kind).map(resolveFileReferences);
  const input: ConfigurationInput = {
    ingresses: ofKind('Ingress') as never,
    services: ofKind('Service') as never,
    endpointSlices: ofKind('EndpointSlice') as never,
    secrets: ofKind('Secret') as never,
  };
  if (options.defaultBackend) input.defaultBackend = options.defaultBackend;
  const result = buildConfiguration(input, options.build ?? {});
  return {
    result,
    conf: renderNginxConf(result.configuration, options.render ?? {}),
    problems: stringify(result.problems),
    backends: `${JSON.stringify(JSON.parse(backendsPayload(result.configuration)), null, 2)}\n`,
  };
}
