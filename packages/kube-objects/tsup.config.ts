import { definePackageConfig } from '../../tsup.base.js';

// `pure` is kube-objects without the TLS Secret reader, for browsers. pure/package.json points
// resolvers that ignore `exports` (TypeScript's node10) at it.
export default definePackageConfig({ entry: ['src/index.ts', 'src/pure.ts'] });
