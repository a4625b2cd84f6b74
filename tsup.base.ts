import { defineConfig, type Options } from 'tsup';

/**
 * The one build recipe every package shares: ESM and `.d.ts` from `src/index.ts` into `dist/`.
 * A package's own `tsup.config.ts` calls this with nothing or a small override.
 */
export function definePackageConfig(overrides: Options = {}) {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    clean: true,
    // Declarations are built against the dependencies' published types (dist), not their sources,
    // so the source export condition is switched off here.
    dts: { compilerOptions: { customConditions: [] } },
    ...overrides,
  });
}
