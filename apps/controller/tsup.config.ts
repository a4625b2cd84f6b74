import type { Options } from 'tsup';
import { definePackageConfig } from '../../tsup.base.js';

// The library surface (src/index.ts) is built like every package. The `ingresskit` executable is
// one bundle with its dependencies inlined and tree-shaken: @kubernetes/client-node alone is about
// a thousand modules, and loading all of them costs some 40 MiB of RSS and a third of a second at
// every start, for the few APIs the controller calls. nginx-template stays outside because it
// finds its Lua files next to its own code.
const executable: Options = {
  // The build script empties dist/ first: builds into one directory must not clean each other.
  clean: false,
  dts: false,
  noExternal: [/^@ingresskit\/(?!nginx-template$)/, '@kubernetes/client-node', 'yaml', 'pino', 'prom-client'],
  // V8 keeps the source text of every script for the life of the process. Unminified, one
  // non-Latin-1 character in a bundled comment made the 8 MB bundle a 16 MB two-byte string;
  // without whitespace and comments (licence comments go to a .LEGAL.txt beside it) it is a
  // 3.9 MB one-byte string, and loading it costs 15 MiB less RSS. Names are kept, so stack
  // traces still name functions, and the source map leads back to src/.
  minifyWhitespace: true,
  minifySyntax: true,
  esbuildOptions(options) {
    options.legalComments = 'external';
    // Node prints the source line of an uncaught error: keep lines short enough to read.
    options.lineLimit = 160;
  },
  // The same for a character above ASCII anywhere in the code (esbuild escapes them in strings,
  // not in regular expressions): it makes the whole source a two-byte string, 4 MB more memory.
  plugins: [
    {
      name: 'ascii-only',
      renderChunk(code, chunk) {
        const at = code.search(/[\u0080-\uffff]/);
        if (at >= 0)
          throw new Error(
            `${chunk.path}: non-ASCII character near ${JSON.stringify(code.slice(at - 40, at + 10))}; write it as an escape`,
          );
        return undefined;
      },
    },
  ],
  // Bundled CommonJS dependencies call require(); give the ES module one.
  banner: {
    js: "import { createRequire as __ingresskitCreateRequire } from 'node:module'; const require = __ingresskitCreateRequire(import.meta.url);",
  },
};

export default [
  definePackageConfig({ entry: ['src/index.ts'], clean: false }),
  definePackageConfig({ ...executable, entry: ['src/cli.ts'] }),
  // The TLS relay (of @ingresskit/tcp-proxy, inlined above) starts its worker thread on the file
  // tls-relay-thread.js next to its code. A bundle of its own, not split: a chunk shared with
  // cli.js would load the translators into the thread as well.
  definePackageConfig({
    ...executable,
    entry: ['src/tls-relay-thread.ts'],
    splitting: false,
    noExternal: [/^@ingresskit\//],
  }),
];
