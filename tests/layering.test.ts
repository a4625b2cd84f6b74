import { describe, expect, it } from 'vitest';
import {
  checkLayering,
  findRuntimeImports,
  readWorkspace,
  type WorkspacePackage,
} from '../scripts/layering.js';

const root = new URL('..', import.meta.url).pathname;

function pkg(
  overrides: Partial<WorkspacePackage> & Pick<WorkspacePackage, 'name' | 'layer'>,
): WorkspacePackage {
  return {
    dir: overrides.name,
    runtimeDependencies: [],
    devDependencies: [],
    runtimeImports: [],
    ...overrides,
  };
}

const l0 = pkg({ name: '@x/pure', layer: 'L0' });
const l1 = pkg({ name: '@x/io', layer: 'L1' });
const app = pkg({ name: '@x/app', layer: 'app' });
const dev = pkg({ name: '@x/apiserver', layer: 'dev' });

describe('checkLayering', () => {
  it('holds for the packages in this repository', () => {
    const packages = readWorkspace(root);
    expect(packages.map((p) => p.name)).toContain('@ingresskit/class-resolution');
    expect(checkLayering(packages)).toEqual([]);
  });

  it('keeps tcp-proxy, the L1 package of network I/O, off the Kubernetes client', () => {
    const tcpProxy = readWorkspace(root).find((p) => p.name === '@ingresskit/tcp-proxy');
    expect(tcpProxy?.layer).toBe('L1');
    expect(tcpProxy?.runtimeDependencies).not.toContain('@kubernetes/client-node');
    expect(tcpProxy?.runtimeImports.map(({ specifier }) => specifier)).not.toContain(
      '@kubernetes/client-node',
    );
  });

  it('keeps route-table, the L0 routing stage, on the base packages: translators and class resolution are plugged in', () => {
    const routeTable = readWorkspace(root).find((p) => p.name === '@ingresskit/route-table');
    expect(routeTable?.layer).toBe('L0');
    expect(routeTable?.runtimeDependencies.sort()).toEqual([
      '@ingresskit/kube-objects',
      '@ingresskit/route-model',
    ]);
  });

  it('accepts L1 → L0, app → anything and dev dependencies on the API server', () => {
    const packages = [
      l0,
      dev,
      { ...l1, runtimeDependencies: [l0.name], devDependencies: [dev.name] },
      { ...app, runtimeDependencies: [l0.name, l1.name, dev.name] },
    ];
    expect(checkLayering(packages)).toEqual([]);
  });

  it('fails when an L0 package depends on an L1 package at runtime', () => {
    const violations = checkLayering([{ ...l0, runtimeDependencies: [l1.name] }, l1]);
    expect(violations).toEqual([expect.stringContaining('@x/pure (L0): runtime dependency on @x/io (L1)')]);
  });

  it('lets an L0 package build on an L0 base package, and a base package on nothing internal', () => {
    const base = pkg({ name: '@x/model', layer: 'L0', isBase: true });
    expect(checkLayering([base, { ...l0, runtimeDependencies: [base.name] }])).toEqual([]);
    const violations = checkLayering([{ ...base, runtimeDependencies: [l0.name] }, l0]);
    expect(violations).toEqual([
      expect.stringContaining('@x/model (L0): runtime dependency on @x/pure (L0)'),
    ]);
  });

  it('fails when an L0 package depends at runtime on an L0 package that is not a base', () => {
    const other = pkg({ name: '@x/other', layer: 'L0' });
    expect(checkLayering([{ ...l0, runtimeDependencies: [other.name] }, other])).toHaveLength(1);
  });

  it('fails when an L0 package imports another package at runtime without declaring it', () => {
    const violations = checkLayering([
      { ...l0, runtimeImports: [{ file: 'packages/pure/src/a.ts', specifier: '@x/io/sub' }] },
      l1,
    ]);
    expect(violations).toEqual([expect.stringContaining('packages/pure/src/a.ts: imports @x/io at runtime')]);
  });

  it('fails when a library depends on the API server emulator at runtime', () => {
    expect(checkLayering([{ ...l1, runtimeDependencies: [dev.name] }, dev])).toHaveLength(1);
  });

  it('fails when anything depends on the app, even for development', () => {
    expect(checkLayering([{ ...l1, devDependencies: [app.name] }, app])).toEqual([
      expect.stringContaining('nothing may import the app'),
    ]);
  });

  it('fails when an L0 package loads the Kubernetes client at runtime', () => {
    const violations = checkLayering([
      { ...l0, runtimeImports: [{ file: 'a.ts', specifier: '@kubernetes/client-node' }] },
    ]);
    expect(violations).toEqual([expect.stringContaining('use `import type`')]);
  });

  it('fails when a package declares no layer', () => {
    expect(checkLayering([pkg({ name: '@x/anon', layer: undefined })])).toHaveLength(1);
  });
});

describe('findRuntimeImports', () => {
  it('keeps value imports, re-exports, side-effect and dynamic imports, and drops type-only ones', () => {
    const source = `
      import type { V1Ingress } from '@kubernetes/client-node';
      import { type A } from 'inline-type-only';
      import { b } from 'value';
      import 'side-effect';
      export { c } from 'reexport';
      export type { D } from 'type-reexport';
      const e = await import('dynamic');
    `;
    expect(findRuntimeImports(source)).toEqual([
      'inline-type-only',
      'value',
      'side-effect',
      'reexport',
      'dynamic',
    ]);
  });
});
