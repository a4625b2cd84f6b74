import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { findImports } from './module-imports.js';

/**
 * The layering rules of docs/architecture.md, checked from every package.json and every source
 * import. Layers point down only:
 *   L0  pure libraries: no Kubernetes client at runtime (types only); runtime dependencies only on
 *       L0 base packages (`"base": true`: route-model and the like), which depend on nothing internal;
 *   L1  libraries with I/O: runtime dependencies on L0 only;
 *   dev local-apiserver: used by tests, the demo and benchmarks; may use L0;
 *   app apps/controller: composes everything; nothing depends on it.
 */
export type Layer = 'L0' | 'L1' | 'dev' | 'app';

const allowedRuntimeLayers: Record<Layer, readonly Layer[]> = {
  L0: [],
  L1: ['L0'],
  dev: ['L0'],
  app: ['L0', 'L1', 'dev'],
};

/** Runtime-only packages an L0 library may import as types but never load. */
const forbiddenL0RuntimeImports = ['@kubernetes/client-node'];

/** What the check needs to know of one workspace package. */
export interface WorkspacePackage {
  dir: string;
  name: string;
  layer: Layer | undefined;
  /** An L0 package other L0 packages may build on (the route model, a shared vocabulary). */
  isBase?: boolean;
  runtimeDependencies: string[];
  devDependencies: string[];
  /** Module specifiers loaded at run time by non-test sources (type-only imports excluded). */
  runtimeImports: { file: string; specifier: string }[];
}

const LAYERS: readonly string[] = ['L0', 'L1', 'dev', 'app'];

/** Returns one message per broken rule; an empty list means the layering holds. */
export function checkLayering(packages: readonly WorkspacePackage[]): string[] {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const violations: string[] = [];
  for (const pkg of packages) {
    if (pkg.layer === undefined) {
      violations.push(
        `${pkg.name}: package.json must declare "ingresskit": { "layer": L0 | L1 | dev | app }`,
      );
      continue;
    }
    for (const dependency of [...pkg.runtimeDependencies, ...pkg.devDependencies]) {
      if (byName.get(dependency)?.layer === 'app') {
        violations.push(`${pkg.name}: depends on the app ${dependency}; nothing may import the app`);
      }
    }
    for (const dependency of pkg.runtimeDependencies) {
      const target = byName.get(dependency);
      if (!target?.layer || target.layer === 'app') continue;
      if (pkg.layer === 'L0' && target.layer === 'L0' && target.isBase === true && pkg.isBase !== true)
        continue;
      if (!allowedRuntimeLayers[pkg.layer].includes(target.layer)) {
        violations.push(
          `${pkg.name} (${pkg.layer}): runtime dependency on ${dependency} (${target.layer}) breaks the layering; ` +
            `${pkg.layer} may depend at runtime on ${describeAllowed(pkg.layer)}`,
        );
      }
    }
    for (const { file, specifier } of pkg.runtimeImports) {
      const imported = packageNameOf(specifier);
      if (byName.has(imported) && imported !== pkg.name && !pkg.runtimeDependencies.includes(imported)) {
        violations.push(
          `${file}: imports ${imported} at runtime but ${pkg.name} does not list it in dependencies`,
        );
      }
      if (pkg.layer === 'L0' && forbiddenL0RuntimeImports.includes(imported)) {
        violations.push(`${file}: L0 package ${pkg.name} loads ${imported} at runtime; use \`import type\``);
      }
    }
  }
  return violations;
}

function describeAllowed(layer: Layer): string {
  if (layer === 'L0') return 'L0 base packages only';
  const allowed = allowedRuntimeLayers[layer];
  return allowed.length === 0 ? 'no internal package' : allowed.join(', ');
}

function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

interface PackageJson {
  name: string;
  ingresskit?: { layer?: string; base?: boolean };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Reads every workspace package under `root` (packages/*, apps/*) with its source imports. */
export function readWorkspace(root: string): WorkspacePackage[] {
  const dirs = ['packages', 'apps'].flatMap((folder) => {
    const base = join(root, folder);
    if (!existsSync(base)) return [];
    return readdirSync(base)
      .map((entry) => join(base, entry))
      .filter((dir) => existsSync(join(dir, 'package.json')));
  });
  return dirs.map((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
    const layer = manifest.ingresskit?.layer;
    return {
      dir: relative(root, dir),
      name: manifest.name,
      layer: layer !== undefined && LAYERS.includes(layer) ? (layer as Layer) : undefined,
      isBase: manifest.ingresskit?.base === true,
      runtimeDependencies: Object.keys({
        ...manifest.dependencies,
        ...manifest.peerDependencies,
        ...manifest.optionalDependencies,
      }),
      devDependencies: Object.keys(manifest.devDependencies ?? {}),
      runtimeImports: listSourceFiles(join(dir, 'src')).flatMap((file) =>
        findRuntimeImports(readFileSync(file, 'utf8')).map((specifier) => ({
          file: relative(root, file),
          specifier,
        })),
      ),
    };
  });
}

function listSourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|js|mjs)$/.test(entry.name))
    .filter((entry) => !/\.test\.[mc]?[tj]s$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Module specifiers a source text loads at run time: imports and re-exports that are not type-only, and import(). */
export function findRuntimeImports(sourceText: string): string[] {
  return findImports(sourceText)
    .filter((found) => !found.typeOnly)
    .map((found) => found.specifier);
}
