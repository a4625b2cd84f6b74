import { describe, expect, it } from 'vitest';
import { findCircles, findRelativeImports, findWorkspaceImportCircles } from '../scripts/import-circles.js';

const root = new URL('..', import.meta.url).pathname;

describe('findWorkspaceImportCircles', () => {
  it('finds no circle among the source modules of any package or the app', () => {
    // A circle is a set of modules none of which can be read, moved or reused without the others:
    // give the types they share a leaf module, or pass what one needs from the other as a value.
    expect(findWorkspaceImportCircles(root)).toEqual([]);
  });
});

describe('findCircles', () => {
  it('finds a circle of three modules and leaves out the modules that only lead into it', () => {
    const graph = new Map([
      ['entry.ts', ['a.ts']],
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'leaf.ts']],
      ['c.ts', ['a.ts']],
      ['leaf.ts', []],
    ]);
    expect(findCircles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('finds a module that imports itself and no circle in a tree', () => {
    expect(findCircles(new Map([['self.ts', ['self.ts']]]))).toEqual([['self.ts']]);
    const tree = new Map([
      ['index.ts', ['a.ts', 'b.ts']],
      ['a.ts', ['shared.ts']],
      ['b.ts', ['shared.ts']],
      ['shared.ts', []],
    ]);
    expect(findCircles(tree)).toEqual([]);
  });
});

describe('findRelativeImports', () => {
  it('keeps relative imports and re-exports, type-only ones too, and drops package imports', () => {
    const source = `
      import type { A } from './a.js';
      import { type B, c } from '../b.js';
      import { d } from '@ingresskit/route-model';
      export type { E } from './e.js';
      export { f } from './f.js';
      const g = await import('./g.js');
      let h: import('./h.js').H;
    `;
    expect(findRelativeImports(source)).toEqual([
      './a.js',
      '../b.js',
      './e.js',
      './f.js',
      './g.js',
      './h.js',
    ]);
  });
});
