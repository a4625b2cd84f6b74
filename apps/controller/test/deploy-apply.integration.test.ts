/**
 * `kubectl apply -f deploy/` works: the real kubectl, with its default (strict, server-side) field
 * validation, against the embedded API server, which stores every kind deploy/ uses. The
 * installation is applied twice, as a user upgrading would, and reads back as written.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, startLocalApiServer, type LocalApiServer } from './harness.js';

const run = promisify(execFile);
const deployDir = fileURLToPath(new URL('../../../deploy', import.meta.url));

let server: LocalApiServer;
let temp: { dir: string; remove: () => Promise<void> };
let kubeconfig: string;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    env: { ...process.env, HOME: temp.dir, KUBECONFIG: kubeconfig },
    timeout: 30_000,
  });
  return stdout;
}

beforeAll(async () => {
  temp = await createTempDir();
  server = await startLocalApiServer({ port: 0 });
  kubeconfig = await server.writeKubeconfig(join(temp.dir, 'kubeconfig'));
});

afterAll(async () => {
  await server?.stop();
  await temp?.remove();
});

describe('kubectl apply -f deploy/', () => {
  it('creates every object of the installation, then finds nothing to change', async () => {
    // The namespace first, as the README's steps do; then everything, CRDs included.
    await kubectl('apply', '-f', join(deployDir, 'namespace.yaml'));
    const created = await kubectl('apply', '--recursive', '-f', deployDir);
    for (const object of [
      'serviceaccount/ingresskit',
      'clusterrole.rbac.authorization.k8s.io/ingresskit',
      'clusterrolebinding.rbac.authorization.k8s.io/ingresskit',
      'deployment.apps/ingresskit',
      'poddisruptionbudget.policy/ingresskit',
      'service/ingresskit',
      'ingressclass.networking.k8s.io/ingresskit',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/ingresskit-admission',
    ]) {
      expect(created).toMatch(new RegExp(`^${object.replace(/\./g, '\\.')} created$`, 'm'));
    }
    const again = await kubectl('apply', '--recursive', '-f', deployDir);
    // kubectl always sends a PodDisruptionBudget's selector again (its patch strategy is
    // `replace`), so it reports "configured" against any API server; nothing changes.
    expect(
      again
        .trim()
        .split('\n')
        .filter((line) => !line.endsWith(' unchanged')),
    ).toEqual(['poddisruptionbudget.policy/ingresskit configured']);
    const budget = JSON.parse(
      await kubectl('get', '-n', 'ingresskit', 'poddisruptionbudget', 'ingresskit', '-o', 'json'),
    ) as { metadata: { generation: number }; spec: { minAvailable: number } };
    expect(budget.metadata.generation).toBe(1);
    expect(budget.spec.minAvailable).toBe(1);
    const deployment = JSON.parse(
      await kubectl('get', '-n', 'ingresskit', 'deployment', 'ingresskit', '-o', 'json'),
    ) as {
      spec: { replicas: number; template: { spec: { containers: { lifecycle?: unknown }[] } } };
    };
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.containers[0]!.lifecycle).toEqual({
      preStop: { exec: { command: ['sleep', '5'] } },
    });
  }, 60_000);
});
