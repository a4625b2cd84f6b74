import { definePackageConfig } from '../../tsup.base.js';

// The library surface (src/index.ts) is built like every package. The `ingresskit` executable is
// one bundle with its dependencies inlined and tree-shaken: @kubernetes/client-node alone is about
// a thousand modules, and loading all of them costs some 40 MiB of RSS and a third of a second at
// every start, for the few APIs the controller calls. nginx-template stays outside because it
// finds its Lua files next to its own code.
export default [
  // The build script empties dist/ first: two builds into one directory must not clean each other.
  definePackageConfig({ entry: ['src/index.ts'], clean: false }),
  definePackageConfig({
    entry: ['src/cli.ts'],
    clean: false,
    dts: false,
    noExternal: [
      /^@ingresskit\/(?!nginx-template$)/,
      '@kubernetes/client-node',
      'yaml',
      'pino',
      'prom-client',
    ],
    // Bundled CommonJS dependencies call require(); give the ES module one.
    banner: {
      js: "import { createRequire as __ingresskitCreateRequire } from 'node:module'; const require = __ingresskitCreateRequire(import.meta.url);",
    },
  }),
];
