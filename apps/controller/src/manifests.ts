/** Reads Kubernetes manifests from disk for the offline `render` command. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type {
  ConfigMap,
  CustomObject,
  EndpointSlice,
  Ingress,
  IngressClass,
  Secret,
  Service,
} from '@ingresskit/store';
import { FlagError } from './errors.js';
import type { ClusterObjects } from './cluster-view.js';

/** A parsed manifest: any object with a kind. */
export interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  items?: unknown[];
}

/**
 * Reads every `.yaml`, `.yml` and `.json` file under `path` (a file or a directory, recursively,
 * in name order). `List` objects are flattened. Throws FlagError naming the file for YAML errors.
 */
export async function readManifests(path: string): Promise<Manifest[]> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) throw new FlagError(`--manifests: ${path} does not exist`);
  const files = info.isDirectory() ? await listFiles(path) : [path];
  const manifests: Manifest[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length > 0)
        throw new FlagError(`${file}: ${document.errors[0]?.message ?? 'invalid YAML'}`);
      const value: unknown = document.toJS();
      if (value !== null && typeof value === 'object') manifests.push(...flatten(value));
    }
  }
  return manifests;
}

/**
 * Sorts manifests into what a sync reads, filling what the API server would (a namespace of
 * `default`, a creation order) so the objects look as the store hands them out.
 */
export function toClusterObjects(manifests: readonly Manifest[]): ClusterObjects {
  const objects = {
    ingresses: [],
    ingressClasses: [],
    services: [],
    endpointSlices: [],
    secrets: [],
    ingressCheckSums: [],
    configMaps: [],
  } as {
    [K in keyof ClusterObjects]-?: unknown[];
  };
  manifests.forEach((manifest, index) => {
    const kind = manifest.kind;
    const namespaced = kind !== 'IngressClass';
    const metadata = {
      ...manifest.metadata,
      ...(namespaced ? { namespace: manifest.metadata?.namespace ?? 'default' } : {}),
      resourceVersion: String(index + 1),
      // Manifests apply in file order; a later object counts as newer for conflict resolution.
      creationTimestamp:
        (manifest.metadata as { creationTimestamp?: string } | undefined)?.creationTimestamp ??
        new Date(Date.UTC(2020, 0, 1, 0, 0, index)).toISOString().replace('.000', ''),
    };
    // A Secret's stringData stays as written: nginx-template and checksum read it (over data, as the
    // API server merges it), so nothing is converted here.
    const object = { ...manifest, metadata };
    if (kind === 'Ingress') objects.ingresses.push(object);
    else if (kind === 'IngressClass') objects.ingressClasses.push(object);
    else if (kind === 'Service') objects.services.push(object);
    else if (kind === 'EndpointSlice') objects.endpointSlices.push(object);
    else if (kind === 'Secret') objects.secrets.push(object);
    else if (kind === 'IngressCheckSum') objects.ingressCheckSums.push(object);
    else if (kind === 'ConfigMap') objects.configMaps.push(object);
  });
  return {
    ingresses: objects.ingresses as Ingress[],
    ingressClasses: objects.ingressClasses as IngressClass[],
    services: objects.services as Service[],
    endpointSlices: objects.endpointSlices as EndpointSlice[],
    secrets: objects.secrets as Secret[],
    ingressCheckSums: objects.ingressCheckSums as CustomObject[],
    configMaps: objects.configMaps as ConfigMap[],
  };
}

function flatten(manifest: Manifest): Manifest[] {
  if (typeof manifest.kind === 'string' && manifest.kind.endsWith('List') && Array.isArray(manifest.items)) {
    return manifest.items
      .filter((item): item is Manifest => item !== null && typeof item === 'object')
      .flatMap(flatten);
  }
  return [manifest];
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path)));
    else if (/\.(ya?ml|json)$/i.test(entry.name)) files.push(path);
  }
  return files;
}
