import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApiServer, type LocalApiServer } from './server.js';
import { waitFor } from './test-helpers.js';

const run = promisify(execFile);
const crdDir = new URL('../../../testdata/gateway-api-v1.6.1/', import.meta.url).pathname;

let server: LocalApiServer;
let dir: string;
let kubeconfig: string;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(
    'kubectl',
    ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
    {
      env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig },
      timeout: 20_000,
    },
  );
  return stdout;
}

async function kubectlFails(...args: string[]): Promise<string> {
  try {
    await kubectl(...args);
  } catch (error) {
    return String((error as { stderr?: string }).stderr);
  }
  throw new Error(`kubectl ${args.join(' ')} should have failed`);
}

beforeAll(async () => {
  server = await startLocalApiServer();
  dir = await mkdtemp(join(tmpdir(), 'local-apiserver-kubectl-'));
  kubeconfig = await server.writeKubeconfig(join(dir, 'kubeconfig'));
});

afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

const ingressYaml = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  labels: {app: web}
spec:
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`;

function configMapYaml(data: Record<string, string>): string {
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata: {name: settings}',
    `data: ${JSON.stringify(data)}`,
    '',
  ].join('\n');
}

describe('kubectl against startLocalApiServer', () => {
  it('lists the initial namespaces with get', async () => {
    const output = await kubectl('get', 'namespaces', '-o', 'name');
    expect(output.split('\n').filter(Boolean).sort()).toEqual([
      'namespace/default',
      'namespace/kube-node-lease',
      'namespace/kube-public',
      'namespace/kube-system',
    ]);
    expect(await kubectl('get', 'namespaces')).toMatch(/^NAME\s+AGE\n/);
  });

  it('creates from a file and refuses a second create', async () => {
    await writeFile(join(dir, 'ingress.yaml'), ingressYaml);
    expect(await kubectl('create', '-f', join(dir, 'ingress.yaml'))).toContain(
      'ingress.networking.k8s.io/web created',
    );
    expect(await kubectlFails('create', '-f', join(dir, 'ingress.yaml'))).toContain('already exists');
    const ingress = JSON.parse(await kubectl('get', 'ingress', 'web', '-o', 'json'));
    expect(ingress.spec.rules[0].host).toBe('web.example.com');
  });

  it('applies, re-applies with a change and removes keys dropped from the manifest', async () => {
    const file = join(dir, 'settings.yaml');
    await writeFile(file, configMapYaml({ a: '1', b: '2' }));
    expect(await kubectl('apply', '-f', file)).toContain('configmap/settings created');
    expect(await kubectl('apply', '-f', file)).toContain('configmap/settings unchanged');
    await writeFile(file, configMapYaml({ a: '10' }));
    expect(await kubectl('apply', '-f', file)).toContain('configmap/settings configured');
    const settings = JSON.parse(await kubectl('get', 'configmap', 'settings', '-o', 'json'));
    expect(settings.data).toEqual({ a: '10' });
    expect(settings.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain(
      '"a":"10"',
    );
  });

  it('labels and annotates, and reports invalid labels from the server', async () => {
    expect(await kubectl('label', 'ingress', 'web', 'tier=front')).toContain('labeled');
    expect(await kubectl('annotate', 'ingress', 'web', 'owner=team-a')).toContain('annotated');
    const ingress = JSON.parse(await kubectl('get', 'ingress', 'web', '-o', 'json'));
    expect(ingress.metadata.labels).toEqual({ app: 'web', tier: 'front' });
    expect(ingress.metadata.annotations).toEqual({ owner: 'team-a' });
    expect(await kubectl('get', 'ingress', '-l', 'tier=front', '-o', 'name')).toBe(
      'ingress.networking.k8s.io/web\n',
    );
    expect(await kubectlFails('label', 'ingress', 'web', 'bad key=x')).toContain('invalid');
  });

  it('streams changes with get -w', async () => {
    const watcher = spawn(
      'kubectl',
      [
        '--kubeconfig',
        kubeconfig,
        '--cache-dir',
        join(dir, 'cache'),
        'get',
        'configmaps',
        '-w',
        '-o',
        'name',
      ],
      {
        env: { ...process.env, HOME: dir },
      },
    );
    let output = '';
    watcher.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      await waitFor(() => output.includes('configmap/settings'), 'the initial list');
      await waitFor(() => server.stats().activeWatches > 0, 'the kubectl watch');
      await server.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' } });
      await waitFor(() => output.includes('configmap/watched'), 'the watched configmap');
    } finally {
      const exited = new Promise((resolve) => watcher.once('exit', resolve));
      watcher.kill();
      await exited;
    }
  });

  it('applies the Gateway API CRDs and then a GatewayClass, and deletes it', async () => {
    expect(await kubectl('apply', '-f', crdDir)).toContain(
      'gatewayclasses.gateway.networking.k8s.io created',
    );
    const file = join(dir, 'gatewayclass.yaml');
    const gatewayClass = (controller: string) =>
      `apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: ingresskit}\nspec: {controllerName: ${controller}}\n`;
    await writeFile(file, gatewayClass('ingresskit.dev/gateway'));
    expect(await kubectl('apply', '-f', file)).toContain(
      'gatewayclass.gateway.networking.k8s.io/ingresskit created',
    );
    await writeFile(file, gatewayClass('ingresskit.dev/other'));
    expect(await kubectl('apply', '-f', file)).toContain('configured');
    expect(
      await kubectl(
        'get',
        'gc',
        'ingresskit',
        '-o',
        'jsonpath={.spec.controllerName} {.metadata.generation}',
      ),
    ).toBe('ingresskit.dev/other 2');
    expect(await kubectl('delete', '-f', file)).toContain('deleted');
    expect(await kubectlFails('get', 'gatewayclass', 'ingresskit')).toContain('NotFound');
  });

  it('runs the imperative create generators, which send protobuf bodies', async () => {
    expect(await kubectl('create', 'namespace', 'imperative')).toContain('namespace/imperative created');
    expect(
      await kubectl('create', 'configmap', 'literal', '-n', 'imperative', '--from-literal=a=1'),
    ).toContain('created');
    expect(
      await kubectl('create', 'secret', 'generic', 'pw', '-n', 'imperative', '--from-literal=pw=hunter2'),
    ).toContain('created');
    expect(
      await kubectl('create', 'service', 'clusterip', 'web', '-n', 'imperative', '--tcp=80:8080'),
    ).toContain('created');
    const configMap = JSON.parse(
      await kubectl('get', 'configmap', 'literal', '-n', 'imperative', '-o', 'json'),
    );
    expect(configMap.data).toEqual({ a: '1' });
    expect(configMap.metadata).not.toHaveProperty('generateName');
    const secret = JSON.parse(await kubectl('get', 'secret', 'pw', '-n', 'imperative', '-o', 'json'));
    expect(Buffer.from(secret.data.pw, 'base64').toString()).toBe('hunter2');
    const service = JSON.parse(await kubectl('get', 'service', 'web', '-n', 'imperative', '-o', 'json'));
    expect(service.spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }],
    });
    expect(service.spec.clusterIP).toMatch(/^10\./);
    expect(await kubectl('delete', 'namespace', 'imperative')).toContain('deleted');
  });

  it('deletes by name and waits for the object to go', async () => {
    expect(await kubectl('delete', 'ingress', 'web')).toContain('ingress.networking.k8s.io "web" deleted');
    expect(await kubectl('get', 'ingress', '-o', 'name')).toBe('');
  });
});
