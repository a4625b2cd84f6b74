#!/usr/bin/env node
/**
 * `ingresskit-apiserver`: runs the local API server standalone for kubectl and demos.
 *
 *   ingresskit-apiserver [--port 6443] [--host 127.0.0.1] [--manifests DIR|FILE]... [--kubeconfig PATH]
 */
import { readFile, stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { readManifestDirectory } from './manifests.js';
import { startLocalApiServer } from './server.js';

const usage = `Usage: ingresskit-apiserver [options]

Runs an in-process Kubernetes API server over plain HTTP.

Options:
  --port N            TCP port (default 6443; 0 picks a free one)
  --host ADDRESS      interface to listen on (default 127.0.0.1)
  --manifests PATH    a directory (all .yaml/.yml/.json files, recursively) or a file to apply at start; repeatable
  --kubeconfig PATH   where to write the kubeconfig (default: a new temp directory)
  -h, --help          show this help
`;

/** Parses the arguments, starts the server and runs until SIGINT or SIGTERM. */
async function runCli(argv: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string', default: '6443' },
        host: { type: 'string', default: '127.0.0.1' },
        manifests: { type: 'string', multiple: true },
        kubeconfig: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be an integer between 0 and 65535, got ${values.port}\n`);
    return 2;
  }
  const manifests: string[] = [];
  for (const path of values.manifests ?? []) {
    manifests.push(
      (await stat(path)).isDirectory() ? await readManifestDirectory(path) : await readFile(path, 'utf8'),
    );
  }
  const server = await startLocalApiServer({ port, host: values.host });
  if (manifests.length > 0) {
    const applied = await server.apply(manifests.join('\n---\n'));
    process.stdout.write(`applied ${applied.length} object(s)\n`);
  }
  const kubeconfig = await server.writeKubeconfig(values.kubeconfig);
  process.stdout.write(
    [
      `local-apiserver listening on ${server.url}`,
      `kubeconfig: ${kubeconfig}`,
      `  export KUBECONFIG=${kubeconfig}`,
      `  kubectl --server ${server.url} get namespaces`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.stop();
  return 0;
}

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`ingresskit-apiserver: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
