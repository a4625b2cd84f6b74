/**
 * The ingresskit command as a user runs it: `ingresskit run` in a child process (flags from the
 * command line and the environment, /healthz, traffic, SIGTERM → graceful exit 0, nginx stopped,
 * Lease released), and `ingresskit explain ingress` and `ingresskit migrate` against the same API
 * server.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoBackend } from '../src/demo-backends.js';
import { probe } from '../src/http-probe.js';
import { listChildPids } from '../src/nginx-process.js';
import {
  createTempDir,
  eventually,
  ingressClassManifest,
  ingressManifest,
  isProcessAlive,
  pickControllerPorts,
  serviceManifests,
  startBackends,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

let server: LocalApiServer;
let backends: Map<string, DemoBackend>;
let temp: { dir: string; remove: () => Promise<void> };
let kubeconfig: string;
const children: ChildProcess[] = [];

function runIngresskit(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    ['--conditions=@ingresskit/source', '--import', 'tsx', cli, ...args],
    {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

beforeAll(async () => {
  temp = await createTempDir();
  backends = await startBackends('alpha');
  server = await startLocalApiServer({ port: 0 });
  kubeconfig = await server.writeKubeconfig(`${temp.dir}/kubeconfig`);
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx', undefined, true),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
    ingressManifest('home', { host: 'home.test', service: 'alpha', className: 'nginx' }),
    ingressManifest('elsewhere', { host: 'other.test', service: 'alpha', className: 'traefik' }),
  ]);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await server?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
  await temp?.remove();
});

describe('ingresskit run', () => {
  it('serves traffic, reports healthy, and on SIGTERM stops nginx, releases the Lease and exits 0', async () => {
    const ports = await pickControllerPorts();
    const run = runIngresskit(
      [
        'run',
        `--kubeconfig=${kubeconfig}`,
        `--http-port=${ports.httpPort}`,
        `--https-port=${ports.httpsPort}`,
        '--pod-name=cli-replica',
        '--pod-namespace=ingresskit',
        '--publish-status-address=10.1.2.3',
        '--update-status-on-shutdown=false',
      ],
      // Settable through the environment as well as by flag.
      {
        INGRESSKIT_HEALTHZ_PORT: String(ports.healthzPort),
        INGRESSKIT_SYNC_RATE_LIMIT: '0',
        // The test's backends listen on 127.0.0.1.
        INGRESSKIT_ALLOW_LOCAL_BACKEND_ADDRESSES: 'true',
        INGRESSKIT_LOG_LEVEL: 'warn',
      },
    );
    await eventually(async () => {
      const response = await fetch(`http://127.0.0.1:${ports.healthzPort}/healthz`);
      expect(response.status).toBe(200);
    }, 30_000);
    const answer = await probe({ port: ports.httpPort, host: 'home.test' });
    expect(answer.body).toMatch(/^alpha:/);
    const coordination = server.kubeConfig().makeApiClient(CoordinationV1Api);
    await eventually(async () => {
      const lease = await coordination.readNamespacedLease({
        name: 'ingresskit-leader',
        namespace: 'ingresskit',
      });
      expect(lease.spec?.holderIdentity).toBe('cli-replica');
    });
    const nginxPids = await listChildPids(run.child.pid!);
    expect(nginxPids.length).toBeGreaterThan(0);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    for (const pid of nginxPids) expect(isProcessAlive(pid)).toBe(false);
    const lease = await coordination.readNamespacedLease({
      name: 'ingresskit-leader',
      namespace: 'ingresskit',
    });
    expect(lease.spec?.holderIdentity ?? '').toBe('');
    expect(run.output()).not.toMatch(/"level":"(error|fatal)"/);
  }, 60_000);

  it('exits 1 with a message when no cluster configuration can be read', async () => {
    const run = runIngresskit(['run', `--kubeconfig=${temp.dir}/missing-kubeconfig`, '--healthz-port=1']);
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('missing-kubeconfig');
  });
});

describe('ingresskit --version', () => {
  it('prints the version from package.json and the Node.js it runs on', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const argument of ['--version', 'version']) {
      const run = runIngresskit([argument]);
      expect(await run.exited).toBe(0);
      expect(run.output()).toBe(`ingresskit ${version} (Node.js ${process.version})\n`);
    }
  });
});

describe('ingresskit explain', () => {
  it('prints the decision and the routes of an Ingress the controller serves', async () => {
    const run = runIngresskit([
      'explain',
      'ingress',
      'default/home',
      `--kubeconfig=${kubeconfig}`,
      // The test's backends listen on 127.0.0.1.
      '--allow-local-backend-addresses',
    ]);
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('Ingress default/home');
    expect(run.output()).toContain('Owned:       yes, as class "nginx" (ingressClassName)');
    expect(run.output()).toContain('http://home.test/ (PathPrefix) → default/alpha:80 (1 endpoint)');
  });

  it('explains why an Ingress is ignored as JSON when asked', async () => {
    const run = runIngresskit([
      'explain',
      'ingress',
      'default/elsewhere',
      `--kubeconfig=${kubeconfig}`,
      '--output=json',
    ]);
    expect(await run.exited).toBe(0);
    const explanation = JSON.parse(run.output());
    expect(explanation).toMatchObject({
      ingress: 'default/elsewhere',
      found: true,
      owned: false,
      decision: { reason: 'class-not-found' },
    });
  });

  it('exits 1 within seconds naming the API server and the reason when nothing listens there', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = `${temp.dir}/refused-kubeconfig`;
    await writeFile(
      refused,
      readFileSync(kubeconfig, 'utf8').replace(/server: \S+/, `server: http://127.0.0.1:${port}`),
    );
    const explain = runIngresskit(['explain', 'ingress', 'default/web', `--kubeconfig=${refused}`]);
    expect(await explain.exited).toBe(1);
    expect(explain.output()).toBe(
      `ingresskit explain: cannot use the API server at http://127.0.0.1:${port}: connection refused: nothing listens there\n`,
    );
  });

  it('exits 1 when the Ingress does not exist', async () => {
    const run = runIngresskit(['explain', 'ingress', 'default/ghost', `--kubeconfig=${kubeconfig}`]);
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('does not exist');
  });
});

describe('ingresskit migrate', () => {
  it("reads the cluster and sorts the Ingresses of the class it is given, as ingress-nginx's", async () => {
    // The cluster's IngressClass "nginx" names this controller: migrate is told so.
    const args = [
      'migrate',
      `--kubeconfig=${kubeconfig}`,
      '--controller-class=ingresskit.dev/ingress-controller',
    ];
    const strict = runIngresskit([...args, '--output=json']);
    expect(await strict.exited).toBe(0);
    const report = JSON.parse(strict.output());
    // The test's backends listen on 127.0.0.1, which ingress-nginx would proxy to and we refuse by default.
    expect(report.ingresses).toEqual([
      expect.objectContaining({
        ingress: 'default/home',
        outcome: 'served with differences',
        findings: [expect.objectContaining({ kind: 'error', message: expect.stringContaining('loopback') })],
      }),
    ]);
    expect(report.otherClasses.map((other: { ingress: string }) => other.ingress)).toEqual([
      'default/elsewhere',
    ]);
    const allowing = runIngresskit([...args, '--allow-local-backend-addresses']);
    expect(await allowing.exited).toBe(0);
    expect(allowing.output()).toMatch(/^served identically {2}default\/home$/m);
  });
});
