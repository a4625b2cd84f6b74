import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// What a stranger installing a package from the registry gets. `pnpm smoke:packages` checks the
// same things on real tarballs; these checks need no build and run with the other tests.

const root = new URL('..', import.meta.url).pathname;

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  keywords?: string[];
  sideEffects?: boolean;
  main?: string;
  types?: string;
  exports?: Record<string, Record<string, string>>;
  publishConfig?: { access?: string; exports?: Record<string, Record<string, string>> };
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const published = readdirSync(join(root, 'packages'))
  .map((dir) => join(root, 'packages', dir))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest }))
  .filter(({ manifest }) => manifest.private !== true)
  .map(({ dir, manifest }) => [manifest.name, dir, manifest] as const);

const entry = { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' };

/** Bare module specifiers (type-only ones too) of every source file reachable from `file`. */
function collectPackageImports(file: string, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(file)) return found;
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      specifiers.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const specifier of specifiers) {
    if (specifier.startsWith('.')) {
      const target = join(dirname(file), specifier).replace(/\.js$/, '.ts');
      for (const name of collectPackageImports(target, seen)) found.add(name);
    } else if (!isBuiltin(specifier)) {
      const parts = specifier.split('/');
      found.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier));
    }
  }
  return found;
}

describe('packages/*/package.json', () => {
  it('covers every published package', () => {
    expect(published.map(([name]) => name)).toContain('@ingresskit/route-model');
  });

  it.each(published)(
    '%s exports types, import and default, and publishes them without the source condition',
    (_name, _dir, manifest) => {
      const subpaths = Object.keys(manifest.exports ?? {});
      expect(subpaths[0]).toBe('.');
      expect(manifest.publishConfig?.exports && Object.keys(manifest.publishConfig.exports)).toEqual(
        subpaths,
      );
      for (const subpath of subpaths) {
        // `.` is src/index.ts and dist/index.*; `./pure` is src/pure.ts and dist/pure.*.
        const file = subpath === '.' ? 'index' : subpath.slice(2);
        const published = {
          types: `./dist/${file}.d.ts`,
          import: `./dist/${file}.js`,
          default: `./dist/${file}.js`,
        };
        const exported = manifest.exports?.[subpath];
        expect(exported).toEqual({ '@ingresskit/source': `./src/${file}.ts`, ...published });
        // Conditions match in order: the source condition first, types before the code, default last.
        expect(Object.keys(exported ?? {})).toEqual(['@ingresskit/source', 'types', 'import', 'default']);
        expect(manifest.publishConfig?.exports?.[subpath]).toEqual(published);
        expect(Object.keys(manifest.publishConfig?.exports?.[subpath] ?? {})).toEqual([
          'types',
          'import',
          'default',
        ]);
      }
      // For resolvers that ignore exports (TypeScript's moduleResolution node10).
      expect([manifest.main, manifest.types]).toEqual([entry.default, entry.types]);
    },
  );

  it.each(published)('%s ships the Apache-2.0 LICENSE of the repository', (_name, dir, manifest) => {
    expect(manifest.license).toBe('Apache-2.0');
    expect(manifest.files).toContain('LICENSE');
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'));
  });

  it.each(published)('%s is public, side-effect free and has keywords', (_name, _dir, manifest) => {
    expect(manifest.publishConfig?.access).toBe('public');
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.keywords?.length).toBeGreaterThan(0);
  });

  it.each(published)(
    '%s takes the Kubernetes client as a peer dependency, never a copy of its own',
    (_name, dir, manifest) => {
      // Callers pass in their own KubeConfig or API objects; with a second copy of client-node in
      // the package, those objects would be foreign to it (and their types would not match).
      expect(manifest.dependencies?.['@kubernetes/client-node']).toBeUndefined();
      const imports = collectPackageImports(join(dir, 'src', 'index.ts'));
      expect(manifest.peerDependencies?.['@kubernetes/client-node']).toBe(
        imports.has('@kubernetes/client-node') ? '^2.0.1' : undefined,
      );
    },
  );

  it.each(published)(
    '%s imports, even as types, only packages a consumer installs with it',
    (name, dir, manifest) => {
      const declared = new Set([
        name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const imported = [...collectPackageImports(join(dir, 'src', 'index.ts'))];
      const undeclared = imported.filter((specifier) => !declared.has(specifier));
      expect(undeclared, `${relative(root, dir)}/src imports these without depending on them`).toEqual([]);
    },
  );
});
