/**
 * `--watch-namespace-selector`, end to end (local API server, real nginx, real HTTP): only the
 * Ingresses of namespaces whose labels match are served, and relabelling a namespace serves or
 * withdraws its Ingresses without a restart or an nginx reload.
 */
import { describe, expect, it } from 'vitest';
import { useAnnotationsCase } from './annotations.js';
import { answerOf, eventually, ingressManifest, serviceManifests } from './harness.js';

function namespaceManifest(name: string, labels: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

const started = useAnnotationsCase({
  config: { podName: 'namespace-selector', watchNamespaceSelector: 'team in (a, c)' },
  backends: ['alpha', 'beta'],
  objects: ({ backends }) => [
    namespaceManifest('team-a', { team: 'a' }),
    namespaceManifest('team-b', { team: 'b' }),
    ...serviceManifests('alpha', [backends.get('alpha')!], 'team-a'),
    ...serviceManifests('beta', [backends.get('beta')!], 'team-b'),
    ingressManifest('a', { host: 'a.test', service: 'alpha', className: 'nginx', namespace: 'team-a' }),
    ingressManifest('b', { host: 'b.test', service: 'beta', className: 'nginx', namespace: 'team-b' }),
  ],
  readyHost: 'a.test',
});

describe('--watch-namespace-selector', () => {
  it('serves only matching namespaces and follows their labels without a reload', async () => {
    const { server, controller } = started();
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
