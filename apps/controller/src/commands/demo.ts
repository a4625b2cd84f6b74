/** `ingresskit demo`: the controller, nginx, the embedded API server and the examples, on this machine. */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveNginxBinary } from '../nginx-process.js';
import type { Command } from './command.js';

// The repository's examples/. This module sits in src/commands/ (two levels below
// apps/controller) when run from source, and in dist/ (one level) once bundled.
const examplesDir = fileURLToPath(
  new URL(
    /\/src\/commands\/[^/]+$/.test(import.meta.url) ? '../../../../examples' : '../../../examples',
    import.meta.url,
  ),
);

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the controller with real nginx on the embedded API server loaded with examples/',
  usage: `Usage: ingresskit demo [flags]

Starts the embedded API server loaded with the example manifests (examples/ of the repository, or
--manifests), one small HTTP backend on 127.0.0.1 per EndpointSlice, and the controller with a real
nginx on unprivileged ports (8080 and 8443 when free, else free ports). Prints the routing table, the
ignored Ingresses with their explanations, the problems, the result of a real request per route, and
curl and kubectl commands to try. Ctrl-C stops everything. The kubeconfig and the controller's log
are written to .ingresskit/demo/. Without nginx it prints how to install it and still renders the
configuration. With --exit-after-ready (or INGRESSKIT_EXIT_AFTER_READY=true) it exits after the
checks: 0 when every route answered as expected.`,
  spec: {
    command: 'ingresskit demo',
    flags: [
      'manifests',
      'http-port',
      'https-port',
      'healthz-port',
      'nginx-binary',
      'exit-after-ready',
      'log-level',
    ],
    defaults: { 'http-port': 8080, 'https-port': 8443, 'log-level': 'debug', manifests: examplesDir },
  },
  async run({ flags }, io) {
    // Loaded on demand: the embedded API server is for the demo only, not for `run`.
    const { runDemo } = await import('../demo.js');
    const result = await runDemo({
      manifestsDir: resolve(io.cwd, flags.manifests),
      stateDir: resolve(io.cwd, '.ingresskit', 'demo'),
      httpPort: flags['http-port'],
      httpsPort: flags['https-port'],
      healthzPort: flags['healthz-port'],
      nginxBinary: resolveNginxBinary(flags['nginx-binary']),
      exitAfterReady: flags['exit-after-ready'],
      logLevel: flags['log-level'],
      cwd: io.cwd,
      out: io.stdout,
      signal: io.signal,
    });
    return result.exitCode;
  },
};
