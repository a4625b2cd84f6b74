import { defineConfig, type Options } from 'tsup';

/**
 * The one build recipe every package shares: ESM and `.d.ts` from `src/index.ts` into `dist/`.
 * A package's own `tsup.config.ts` calls this with nothing or a small override.
 */
export function definePackageConfig(overrides: Options = {}) {
  const { esbuildOptions, ...rest } = overrides;
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
    esbuildOptions(options, context) {
      // The maps still name src/ files and lines for stack traces (node --enable-source-maps), but
      // do not embed the sources: with them, maps were two thirds of every published tarball.
      options.sourcesContent = false;
      esbuildOptions?.(options, context);
    },
    ...rest,
  });
}
