import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './test-helpers.js';

const run = promisify(execFile);
const cliPath = new URL('./cli.ts', import.meta.url).pathname;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-apiserver-cli-'));
  await mkdir(join(dir, 'manifests', 'nested'), { recursive: true });
  await writeFile(
    join(dir, 'manifests', 'b-config.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo-config, namespace: demo}\ndata: {mode: demo}\n',
  );
  await writeFile(
    join(dir, 'manifests', 'nested', 'a-namespace.yaml'),
    'apiVersion: v1\nkind: Namespace\nmetadata: {name: demo}\n',
  );
  await writeFile(join(dir, 'manifests', 'README.md'), 'not a manifest');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ingresskit-apiserver', () => {
  it('applies a manifest directory, prints the URL and a kubeconfig, serves kubectl and stops on SIGTERM', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const child = spawn(
      process.execPath,
      [
        '--conditions=@ingresskit/source',
        '--import',
        'tsx',
        cliPath,
        '--port',
        '0',
        '--manifests',
        join(dir, 'manifests'),
        '--kubeconfig',
        kubeconfig,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitFor(() => stdout.includes('Press Ctrl+C'), `the CLI banner (stderr: ${stderr})`, 20_000);
      expect(stdout).toContain('applied 2 object(s)');
      expect(stdout).toContain(`kubeconfig: ${kubeconfig}`);
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(stdout).toContain(`kubectl --server ${url} get namespaces`);
      const env = { ...process.env, HOME: dir };
      const viaKubeconfig = await run(
        'kubectl',
        [
          '--kubeconfig',
          kubeconfig,
          '--cache-dir',
          join(dir, 'cache'),
          'get',
          'configmap',
          'demo-config',
          '-n',
          'demo',
          '-o',
          'jsonpath={.data.mode}',
        ],
        { env },
      );
      expect(viaKubeconfig.stdout).toBe('demo');
      const viaServer = await run(
        'kubectl',
        ['--server', url!, '--cache-dir', join(dir, 'cache2'), 'get', 'namespace', 'demo', '-o', 'name'],
        { env },
      );
      expect(viaServer.stdout).toBe('namespace/demo\n');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('prints usage and exits with 2 for an unknown option', async () => {
    const failure = await run(process.execPath, [
      '--conditions=@ingresskit/source',
      '--import',
      'tsx',
      cliPath,
      '--bogus',
    ]).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain('Usage: ingresskit-apiserver');
  });
});
