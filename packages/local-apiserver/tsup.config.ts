import { definePackageConfig } from '../../tsup.base.js';

export default definePackageConfig({ entry: ['src/index.ts', 'src/cli.ts'] });
