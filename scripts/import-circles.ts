import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { findImports } from './module-imports.js';

/**
 * Import circles inside each workspace package: modules of one package's `src/` (tests left out)
 * that import each other, directly or through others. Type-only imports count too: a module that
 * takes its types back from the modules it feeds cannot be read, moved or reused on its own.
 */

/** One circle: the source files (relative to the root, sorted) that import each other. */
export type ImportCircle = readonly string[];

/** Relative module specifiers of a source text: imports, re-exports (type-only too) and import(). */
export function findRelativeImports(sourceText: string): string[] {
  return findImports(sourceText)
    .map((found) => found.specifier)
    .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'));
}

/** The circles of an import graph (its strongly connected components of two or more modules, and self-imports). */
export function findCircles(graph: ReadonlyMap<string, readonly string[]>): ImportCircle[] {
  // Tarjan's algorithm, iterative so a long chain of imports cannot overflow the stack.
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: ImportCircle[] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const frames: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    lowLink.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++]!;
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, next);
          lowLink.set(target, next++);
          stack.push(target);
          onStack.add(target);
          frames.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined)
        lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      if (lowLink.get(frame.node) !== index.get(frame.node)) continue;
      const members: string[] = [];
      for (;;) {
        const member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
        if (member === frame.node) break;
      }
      if (members.length > 1 || edges.includes(frame.node)) circles.push(members.sort());
    }
  }
  return circles.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/** The import graph of one package's non-test sources under `srcDir`, keyed by path relative to `root`. */
export function readImportGraph(root: string, srcDir: string): Map<string, string[]> {
  const files = listSourceFiles(srcDir);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = findRelativeImports(readFileSync(file, 'utf8'))
      .map((specifier) => resolveSource(dirname(file), specifier, known))
      .filter((target) => target !== undefined);
    graph.set(
      relative(root, file),
      targets.map((target) => relative(root, target)),
    );
  }
  return graph;
}

/** Every circle inside one workspace package (packages/*, apps/*) of the repository at `root`. */
export function findWorkspaceImportCircles(root: string): ImportCircle[] {
  return ['packages', 'apps'].flatMap((folder) => {
    const base = join(root, folder);
    if (!existsSync(base)) return [];
    return readdirSync(base)
      .map((entry) => join(base, entry, 'src'))
      .filter((src) => existsSync(src))
      .flatMap((src) => findCircles(readImportGraph(root, src)));
  });
}

// The compiled name (`./a.js`) is what sources write; the file on disk is `a.ts`.
function resolveSource(fromDir: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  const target = resolve(fromDir, specifier);
  const stem = target.replace(/\.[mc]?js$/, '');
  const candidates = [target, `${stem}.ts`, `${stem}.mts`, `${stem}.tsx`, join(target, 'index.ts')];
  return candidates.find((candidate) => known.has(candidate));
}

function listSourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|tsx)$/.test(entry.name))
    .filter((entry) => !/\.test\.[mc]?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}
