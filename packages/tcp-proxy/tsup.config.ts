import { definePackageConfig } from '../../tsup.base.js';

// The TLS relay starts its worker thread on tls-relay-thread.js, next to the code that starts it.
export default definePackageConfig({
  entry: ['src/index.ts', 'src/tls-relay-thread.ts'],
  dts: { entry: 'src/index.ts', compilerOptions: { customConditions: [] } },
});
