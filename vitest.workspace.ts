import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProjectInlineConfiguration } from 'vitest/config';

/** Tests and type checks read `src/` through this export condition; no build is needed. */
export const sourceCondition = '@ingresskit/source';

/** Folders that hold workspace packages, each one a test project. */
const packageFolders = ['packages', 'apps'];

/** Integration tests (real API server, real nginx) end in this; `pnpm test:fast` leaves them out. */
export const integrationTestGlob = '**/*.integration.test.ts';

function listPackageDirs(root: string): string[] {
  return packageFolders.flatMap((folder) => {
    const dir = join(root, folder);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'package.json')))
      .map((entry) => join(folder, entry.name))
      .sort();
  });
}

function packageProject(dir: string): TestProjectInlineConfiguration {
  const name = dir.split('/').at(-1) ?? dir;
  return {
    extends: true,
    root: dir,
    test: { name, include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
  };
}

/**
 * The one list of test projects: every package under packages/ and apps/, plus the repository's
 * own checks in tests/. The root vitest.config.ts runs exactly these.
 */
export function listTestProjects(root: string): TestProjectInlineConfiguration[] {
  return [
    ...listPackageDirs(root).map(packageProject),
    { extends: true, test: { name: 'repo', include: ['tests/**/*.test.ts'] } },
  ];
}
