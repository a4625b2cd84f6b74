import { defineConfig } from 'vitest/config';
import { listTestProjects, sourceCondition } from './vitest.workspace.js';

export default defineConfig({
  resolve: { conditions: [sourceCondition] },
  ssr: { resolve: { conditions: [sourceCondition] } },
  test: {
    projects: listTestProjects(import.meta.dirname),
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
