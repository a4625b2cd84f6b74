import { definePackageConfig } from '../../tsup.base.js';

// `pure` is the checksum without Secrets' certificate parsing, for browsers. pure/package.json
// points resolvers that ignore `exports` (TypeScript's node10) at it.
export default definePackageConfig({ entry: ['src/index.ts', 'src/pure.ts'] });
