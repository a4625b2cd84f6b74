/**
 * The manifests loaded into the server: parsed from YAML or objects, read from a directory, and
 * ordered so dependencies come first.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ManifestError } from './errors.js';
import { isPlainObject, type KubeObject } from './objects.js';

/** What `apply()` accepts: one object, several, or YAML text (multi-document, `List` kinds flattened). */
export type ManifestInput = string | object | readonly object[];

/** Parses manifests into objects; throws `ManifestError` for bad YAML or an object without apiVersion/kind. */
export function parseManifests(input: ManifestInput): KubeObject[] {
  const raw: unknown[] =
    typeof input === 'string' ? parseYaml(input) : Array.isArray(input) ? [...(input as unknown[])] : [input];
  const objects: KubeObject[] = [];
  const visit = (value: unknown): void => {
    if (value === null || value === undefined) return;
    if (!isPlainObject(value)) throw new ManifestError(`a manifest must be an object, got ${typeof value}`);
    if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
      for (const item of value.items as unknown[]) visit(item);
      return;
    }
    if (typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') {
      throw new ManifestError(`a manifest needs apiVersion and kind: ${JSON.stringify(value).slice(0, 120)}`);
    }
    const metadata = isPlainObject(value.metadata) ? value.metadata : {};
    objects.push({ ...(value as KubeObject), metadata });
  };
  for (const value of raw) visit(value);
  return objects;
}

function parseYaml(text: string): unknown[] {
  const documents = parseAllDocuments(text);
  return documents.map((document) => {
    if (document.errors.length > 0) {
      throw new ManifestError(`invalid YAML: ${document.errors[0]?.message ?? 'parse error'}`, {
        cause: document.errors[0],
      });
    }
    return document.toJS() as unknown;
  });
}

/**
 * Orders manifests so dependencies exist first: Namespaces, then CustomResourceDefinitions, then
 * everything else in the given order.
 */
export function orderManifests(objects: readonly KubeObject[]): KubeObject[] {
  const rank = (object: KubeObject): number =>
    object.kind === 'Namespace' ? 0 : object.kind === 'CustomResourceDefinition' ? 1 : 2;
  return objects
    .map((object, index) => ({ object, index }))
    .sort((a, b) => rank(a.object) - rank(b.object) || a.index - b.index)
    .map(({ object }) => object);
}

/** Reads every `.yaml`, `.yml` and `.json` file under `dir` (recursively, in path order) as one YAML stream. */
export async function readManifestDirectory(dir: string): Promise<string> {
  const files = await listManifestFiles(dir);
  const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  return texts.map((text) => text.trim()).join('\n---\n');
}

async function listManifestFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listManifestFiles(path)));
    else if (/\.(ya?ml|json)$/i.test(entry.name)) files.push(path);
  }
  return files;
}
