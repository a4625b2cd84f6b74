/**
 * SyncStage.sync with the parts a replica is built from (createControllerParts) and real nginx: a
 * sync answers an outcome instead of throwing. Served when nginx takes the change, `retry` with
 * nginx's error when `nginx -t` refuses it (the last good configuration keeps serving), `held` when
 * the published IngressCheckSum does not match (nothing is flushed).
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewOfObjects } from '../src/cluster-view.js';
import type { ControllerConfig } from '../src/config.js';
import { createControllerParts, type ControllerParts } from '../src/controller-parts.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { ChecksumMismatchError, NginxConfigTestError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { toClusterObjects, type Manifest } from '../src/manifests.js';
import { createPendingChanges, type PendingChanges } from '../src/pending-changes.js';
import { probe } from '../src/http-probe.js';
import {
  createTempDir,
  createTestConfig,
  ingressClassManifest,
  ingressManifest,
  serviceManifests,
  startBackends,
  writeRefusingNginx,
} from './harness.js';

let temp: { dir: string; remove: () => Promise<void> };
let backends: Map<string, DemoBackend>;
let failMarker: string;
let wrapper: string;
const running: ControllerParts[] = [];

beforeAll(async () => {
  temp = await createTempDir();
  backends = await startBackends('alpha');
  ({ wrapper, failMarker } = await writeRefusingNginx(temp.dir));
});

afterAll(async () => {
  for (const parts of running) {
    parts.externalNames.stop();
    await parts.dataPlane.stop();
  }
  for (const backend of backends?.values() ?? []) await backend.stop();
  await temp?.remove();
});

/** Which backend answered through nginx on `config`'s HTTP port: the body's name, or the status when not 200. */
async function answerOf(config: ControllerConfig, host: string): Promise<string> {
  const response = await probe({ port: config.httpPort, host });
  return response.status === 200 ? (response.body.split(':')[0] ?? '') : String(response.status);
}

async function createParts(
  name: string,
  overrides: Partial<ControllerConfig> = {},
): Promise<{ parts: ControllerParts; config: ControllerConfig }> {
  const config = await createTestConfig({
    nginxBinary: wrapper,
    nginxPrefix: join(temp.dir, name),
    ...overrides,
  });
  const parts = createControllerParts(
    config,
    {
      kubeConfig: new KubeConfig(),
      logger: createLogger({ level: process.env.INGRESSKIT_TEST_LOG ?? 'silent' }),
      eventSink: { create: () => Promise.resolve(), patchSeries: () => Promise.resolve() },
    },
    {
      isLeader: () => true,
      requestSync: () => undefined,
      externalNamesChanged: () => undefined,
      snapshot: () => undefined,
      keepSecrets: () => [],
      requestStatusSync: () => undefined,
    },
  );
  running.push(parts);
  await parts.dataPlane.prepare();
  return { parts, config };
}

function cluster(...manifests: Record<string, unknown>[]) {
  return viewOfObjects(
    toClusterObjects([
      ingressClassManifest('nginx'),
      ...serviceManifests('alpha', [backends.get('alpha')!]),
      ...manifests,
    ] as Manifest[]),
  );
}

function changedIngresses(...keys: string[]): PendingChanges {
  const changes = createPendingChanges();
  for (const key of keys) changes.ingresses.add(key);
  return changes;
}

const one = ingressManifest('one', { host: 'one.test', service: 'alpha', className: 'nginx' });
// Directives of its own need no reload: the Ingress is served even while nginx -t refuses one.
const two = ingressManifest('two', {
  host: 'two.test',
  service: 'alpha',
  className: 'nginx',
  annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '8m' },
});

describe('SyncStage.sync', () => {
  it('answers served once nginx serves the change, and retry with the error when nginx refuses one', async () => {
    const { parts, config } = await createParts('refused');
    const first = await parts.sync.sync(createPendingChanges(), cluster(one));
    expect(first).toMatchObject({ kind: 'served', flush: { started: true } });
    // What the reporting side reads comes with the outcome: the stage reports nothing itself.
    expect(first.totals).toMatchObject({ owned: 1, errors: 0 });
    expect(await answerOf(config, 'one.test')).toBe('alpha');

    // An operator's setting changes nginx.conf: a reload, which nginx -t refuses.
    await writeFile(failMarker, '');
    parts.dataPlane.setConfigMapSettings({ workerConnections: 2048 });
    const refused = await parts.sync.sync(changedIngresses('default/two'), cluster(one, two));
    expect(refused.kind).toBe('retry');
    expect(refused.kind === 'retry' && refused.error).toBeInstanceOf(NginxConfigTestError);
    expect(await answerOf(config, 'one.test')).toBe('alpha');
    expect(await answerOf(config, 'two.test')).toBe('alpha');

    // The retry takes no new change: the reload is applied once nginx accepts it.
    await rm(failMarker);
    const retried = await parts.sync.sync(createPendingChanges(), cluster(one, two));
    expect(retried).toMatchObject({ kind: 'served', flush: { reloaded: true } });
    expect(parts.dataPlane.nginxConf).toContain('worker_connections 2048;');
  });

  it('answers held and flushes nothing while the published IngressCheckSum does not match', async () => {
    const { parts, config } = await createParts('held', { checksumEnabled: true });
    expect(await parts.sync.sync(createPendingChanges(), cluster(one))).toMatchObject({ kind: 'served' });

    const checksum = {
      apiVersion: 'tengine.taobao.org/v1',
      kind: 'IngressCheckSum',
      metadata: { name: 'published', namespace: 'default' },
      spec: { checksum: 'not-what-the-controller-computes', ids: [] },
    };
    const held = await parts.sync.sync(changedIngresses('default/two'), cluster(one, two, checksum));
    expect(held.kind).toBe('held');
    expect(held.kind === 'held' && held.error).toBeInstanceOf(ChecksumMismatchError);
    expect(parts.sync.checksum?.ok).toBe(false);
    expect(held.checksum).toMatchObject({ ok: false, checked: true });
    expect(await answerOf(config, 'two.test')).toBe('404');
    expect(await answerOf(config, 'one.test')).toBe('alpha');
  });
});
