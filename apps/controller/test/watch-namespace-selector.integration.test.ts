/**
 * `--watch-namespace-selector`, end to end (local API server, real nginx, real HTTP): only the
 * Ingresses of namespaces whose labels match are served, and relabelling a namespace serves or
 * withdraws its Ingresses without a restart or an nginx reload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import {
  answerOf,
  eventually,
  ingressClassManifest,
  ingressManifest,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let controller: Controller;
let backends: Map<string, DemoBackend>;

function namespaceManifest(name: string, labels: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

beforeAll(async () => {
  backends = await startBackends('alpha', 'beta');
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    namespaceManifest('ingresskit', {}),
    namespaceManifest('team-a', { team: 'a' }),
    namespaceManifest('team-b', { team: 'b' }),
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backends.get('alpha')!], 'team-a'),
    ...serviceManifests('beta', [backends.get('beta')!], 'team-b'),
    ingressManifest('a', { host: 'a.test', service: 'alpha', className: 'nginx', namespace: 'team-a' }),
    ingressManifest('b', { host: 'b.test', service: 'beta', className: 'nginx', namespace: 'team-b' }),
  ]);
  controller = await startController(server, {
    podName: 'namespace-selector',
    watchNamespaceSelector: 'team in (a, c)',
  });
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  for (const running of backends?.values() ?? []) await running.stop();
});

describe('--watch-namespace-selector', () => {
  it('serves only matching namespaces and follows their labels without a reload', async () => {
    expect(await answerOf(controller, 'a.test')).toBe('alpha');
    expect(await answerOf(controller, 'b.test')).toBe('404');
    const reloads = controller.dataPlane.reloadCount;

    await server.apply(namespaceManifest('team-b', { team: 'c' }));
    await eventually(async () => expect(await answerOf(controller, 'b.test')).toBe('beta'));

    await server.apply(namespaceManifest('team-a', { team: 'b' }));
    await eventually(async () => expect(await answerOf(controller, 'a.test')).toBe('404'));
    expect(await answerOf(controller, 'b.test')).toBe('beta');
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });
});
