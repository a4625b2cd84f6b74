/**
 * `ingresskit run` must not load the embedded API server: a production install leaves it out
 * (it is an optional dependency the image does not install). Checked on the import graph of the
 * sources: what the command line loads before it knows the command, without `import()`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const srcDir = resolve(import.meta.dirname, '..');

interface ImportsOf {
  /** Loaded when the module loads: value imports and re-exports. */
  static: string[];
  /** Loaded on demand: `import('...')`. */
  dynamic: string[];
}

function importsOf(file: string): ImportsOf {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: ImportsOf = { static: [], dynamic: [] };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const isTypeOnly =
        clause?.isTypeOnly === true ||
        (clause !== undefined &&
          clause.name === undefined &&
          clause.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((element) => element.isTypeOnly));
      if (!isTypeOnly) found.static.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (!node.isTypeOnly) found.static.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.dynamic.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The packages loaded with `entry`: its static import graph, and `import()` too when `withDynamic`. */
function packagesLoadedBy(entry: string, withDynamic: boolean): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = [join(srcDir, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const imports = importsOf(file);
    for (const specifier of withDynamic ? [...imports.static, ...imports.dynamic] : imports.static) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  }
  return packages;
}

describe('ingresskit run', () => {
  it('does not load the embedded API server, which only the demo loads on demand', () => {
    // cli.ts loads commands/index.ts for every command; `demo` loads the rest with import().
    const atStart = packagesLoadedBy('commands/index.ts', false);
    expect(atStart).toContain('@ingresskit/store');
    expect(atStart).not.toContain('@ingresskit/local-apiserver');
    expect(packagesLoadedBy('commands/run.ts', false)).not.toContain('@ingresskit/local-apiserver');
    expect(packagesLoadedBy('commands/demo.ts', true)).toContain('@ingresskit/local-apiserver');
  });

  it('leaves the API server out of the library surface too: the demo loads it when it runs', () => {
    expect(packagesLoadedBy('index.ts', false)).not.toContain('@ingresskit/local-apiserver');
  });
});
