/**
 * The checksum gate end to end: with --enable-ingress-checksum the controller serves a changed
 * set of Ingresses only once it matches the newest IngressCheckSum. A mismatch keeps the last good
 * configuration (endpoints included) and is reported; `ingresskit checksum publish` unblocks it.
 */
import { ingressCheckSumCrd, ingressCheckSumResource } from '@ingresskit/checksum';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured, type CapturedRun } from './cli-capture.js';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import {
  answerOf,
  createTempDir,
  endpointSliceManifest,
  eventually,
  ingressClassManifest,
  ingressManifest,
  listEvents,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let controller: Controller;
let backends: Map<string, DemoBackend>;
let temp: { dir: string; remove: () => Promise<void> };
let kubeconfig: string;
const version = { 'nginx.ingress.kubernetes.io/version': '1' };

function publish(): Promise<CapturedRun> {
  return runCliCaptured(['checksum', 'publish', '--namespace=ingresskit', `--kubeconfig=${kubeconfig}`], {
    cwd: temp.dir,
  });
}

async function listCheckSums(): Promise<string[]> {
  const api = server.kubeConfig().makeApiClient(CustomObjectsApi);
  const list = (await api.listNamespacedCustomObject({
    ...ingressCheckSumResource,
    namespace: 'ingresskit',
  })) as {
    items: { metadata: { name: string } }[];
  };
  return list.items.map((item) => item.metadata.name);
}

beforeAll(async () => {
  temp = await createTempDir();
  backends = await startBackends('alpha', 'beta');
  server = await startLocalApiServer({ port: 0 });
  kubeconfig = await server.writeKubeconfig(`${temp.dir}/kubeconfig`);
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressCheckSumCrd,
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
    ingressManifest('shop-1', {
      host: 'shop.test',
      service: 'alpha',
      className: 'nginx',
      annotations: version,
    }),
  ]);
  const first = await publish();
  expect(first.exitCode).toBe(0);
  controller = await startController(server, { checksumEnabled: true, podName: 'gate' });
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
  await temp?.remove();
});

describe('checksum gate', () => {
  it('serves the Ingresses when they match the published IngressCheckSum', async () => {
    expect(await answerOf(controller, 'shop.test')).toBe('alpha');
    expect(controller.summary()?.checksum?.ok).toBe(true);
  });

  it('keeps the last good configuration, endpoints included, while the Ingresses do not match', async () => {
    await server.apply(
      ingressManifest('blog-2', {
        host: 'blog.test',
        service: 'alpha',
        className: 'nginx',
        annotations: version,
      }),
    );
    await eventually(() => expect(controller.summary()?.checksum?.ok).toBe(false));
    // An endpoint change of a served Service is held back too: the data plane sees one consistent state.
    await server.apply(endpointSliceManifest('alpha-alpha', 'alpha', backends.get('beta')!.port));
    await eventually(async () => {
      const text = await (await fetch(`http://127.0.0.1:${controller.healthzPort}/metrics`)).text();
      expect(text).toContain('ingresskit_ingress_checksum_ok 0');
      expect(text).toMatch(/ingresskit_syncs_total\{result="checksum-mismatch"\} [2-9]/);
    });
    expect(await answerOf(controller, 'blog.test')).toBe('404');
    expect(await answerOf(controller, 'shop.test')).toBe('alpha');

    const event = await eventually(async () => {
      await controller.events.flush();
      const found = (await listEvents(server.kubeConfig(), 'ingresskit')).find(
        (candidate) => candidate.reason === 'ChecksumMismatch',
      );
      expect(found).toBeDefined();
      return found!;
    });
    expect(event.regarding?.kind).toBe('IngressCheckSum');
    expect(event.note).toContain('2-1');
  });

  it('applies everything held back once a matching IngressCheckSum is published', async () => {
    const before = await listCheckSums();
    const result = await publish();
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('over 2 id(s) from 2 owned Ingress(es)');
    expect(result.stdout).toContain(`deleted 1 older IngressCheckSum(s): ${before[0]}`);
    const after = await listCheckSums();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);

    await eventually(async () => {
      expect(await answerOf(controller, 'blog.test')).toBe('beta');
      expect(await answerOf(controller, 'shop.test')).toBe('beta');
    });
    expect(controller.summary()?.checksum?.ok).toBe(true);
  });
});
