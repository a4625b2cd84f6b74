import * as k8s from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLocalApiServer, type LocalApiServer } from './server.js';
import { waitFor } from './test-helpers.js';

type Informer = k8s.Informer<k8s.KubernetesObject> & k8s.ObjectCache<k8s.KubernetesObject>;

let server: LocalApiServer;
let kc: k8s.KubeConfig;
const running: Informer[] = [];

beforeEach(async () => {
  server = await startLocalApiServer();
  kc = server.kubeConfig();
});

afterEach(async () => {
  for (const informer of running.splice(0)) await informer.stop();
  await server.stop();
});

/** An informer on ConfigMaps in all namespaces that records its errors and can be restarted. */
async function startConfigMapInformer(options: { labelSelector?: string; fieldSelector?: string } = {}) {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const counters = { lists: 0 };
  const listFn = () => {
    counters.lists += 1;
    return core.listConfigMapForAllNamespaces({
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
    });
  };
  const informer: Informer = new k8s.ListWatch(
    '/api/v1/configmaps',
    new k8s.Watch(kc),
    listFn,
    false,
    options.labelSelector,
    options.fieldSelector,
  );
  const log: string[] = [];
  const errors: unknown[] = [];
  informer.on('add', (object) => log.push(`add ${object.metadata?.name}`));
  informer.on('update', (object) => log.push(`update ${object.metadata?.name}`));
  informer.on('delete', (object) => log.push(`delete ${object.metadata?.name}`));
  informer.on('error', (error) => errors.push(error));
  running.push(informer);
  await informer.start();
  return { informer, log, errors, counters };
}

/** The server's ConfigMaps as `namespace/name@rv`, sorted. */
async function serverState(labelSelector?: string): Promise<string[]> {
  const list = await kc.makeApiClient(k8s.CoreV1Api).listConfigMapForAllNamespaces({ labelSelector });
  return list.items
    .map((item) => `${item.metadata?.namespace}/${item.metadata?.name}@${item.metadata?.resourceVersion}`)
    .sort();
}

function cacheState(informer: Informer): string[] {
  return informer
    .list()
    .map((item) => `${item.metadata?.namespace}/${item.metadata?.name}@${item.metadata?.resourceVersion}`)
    .sort();
}

async function converged(informer: Informer, labelSelector?: string): Promise<void> {
  let expected: string[] = [];
  await waitFor(
    async () => {
      expected = await serverState(labelSelector);
      return JSON.stringify(cacheState(informer)) === JSON.stringify(expected);
    },
    `informer cache to match the server (${JSON.stringify(expected)})`,
  );
}

function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
    data,
  };
}

describe('startLocalApiServer with client-node informers', () => {
  it('delivers add, update and delete and answers the informer list and watch', async () => {
    await server.apply([configMap('a')]);
    const { informer, log } = await startConfigMapInformer();
    expect(log).toEqual(['add a']);
    await server.apply([configMap('a', { x: '1' }), configMap('b')]);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'default' });
    await waitFor(() => log.length === 4, 'four callbacks');
    expect(log).toEqual(['add a', 'update a', 'add b', 'delete a']);
    await converged(informer);
  });

  it('does not fire update for a no-op write', async () => {
    const [stored] = await server.apply([configMap('same', { a: '1' })]);
    const { log } = await startConfigMapInformer();
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const replaced = await core.replaceNamespacedConfigMap({
      name: 'same',
      namespace: 'default',
      body: stored as k8s.V1ConfigMap,
    });
    expect(replaced.metadata?.resourceVersion).toBe(stored?.metadata.resourceVersion);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'marker' } } });
    await waitFor(() => log.includes('add marker'), 'the marker add');
    expect(log).toEqual(['add same', 'add marker']);
  });

  it('recovers after the server drops every watch', async () => {
    const { informer } = await startConfigMapInformer();
    await server.apply([configMap('before')]);
    await converged(informer);
    expect(server.faults.dropWatches()).toBe(1);
    await server.apply([configMap('after'), configMap('before', { changed: 'yes' })]);
    await converged(informer);
    await waitFor(() => server.stats().activeWatches === 1, 'the informer to watch again');
  });

  it('relists after a 410 Expired ERROR event when a dropped watch resumes from an expired resourceVersion', async () => {
    await server.apply([configMap('keep')]);
    const { informer, errors, counters } = await startConfigMapInformer();
    expect(counters.lists).toBe(1);
    server.faults.expireHistory();
    server.faults.dropWatches();
    await waitFor(() => counters.lists === 2, 'the relist');
    await server.apply([configMap('fresh')]);
    await converged(informer);
    expect(errors).toEqual([]);
  });

  it('fires delete on relist for objects that vanished while the informer was away', async () => {
    await server.apply([configMap('keep'), configMap('doomed')]);
    const { informer, log } = await startConfigMapInformer();
    await informer.stop();
    server.faults.expireHistory();
    await kc.makeApiClient(k8s.CoreV1Api).deleteNamespacedConfigMap({ name: 'doomed', namespace: 'default' });
    await server.apply([configMap('keep', { changed: 'yes' })]);
    await informer.start();
    await waitFor(() => log.length === 4, 'the relist callbacks');
    expect(log).toEqual(['add doomed', 'add keep', 'delete doomed', 'update keep']);
    await converged(informer);
  });

  it('relists when the watch request itself answers HTTP 410', async () => {
    const { informer, errors, counters } = await startConfigMapInformer();
    server.faults.failNext(1, 410, { match: { watch: true } });
    server.faults.dropWatches();
    await waitFor(() => counters.lists === 2, 'the relist');
    await server.apply([configMap('later')]);
    await converged(informer);
    expect(errors).toEqual([]);
  });

  it('recovers from HTTP 500 on the watch once the user restarts the stopped informer', async () => {
    const { informer, errors } = await startConfigMapInformer();
    server.faults.failNext(1, 500, { match: { watch: true } });
    server.faults.dropWatches();
    await waitFor(() => errors.length === 1, 'the informer error');
    expect(errors[0]).toMatchObject({ statusCode: 500 });
    await server.apply([configMap('while-stopped')]);
    await informer.start();
    await converged(informer);
  });

  it('recovers from HTTP 500 on the list once restarted', async () => {
    await server.apply([configMap('one')]);
    const { informer, errors } = await startConfigMapInformer();
    server.faults.expireHistory();
    server.faults.failNext(1, 503, { match: { watch: false, method: 'GET' } });
    server.faults.dropWatches();
    await waitFor(() => errors.length === 1, 'the list error');
    expect((errors[0] as { code?: number }).code).toBe(503);
    await informer.start();
    await converged(informer);
  });

  it('recovers after the server is paused and resumed on the same URL', async () => {
    const { informer, errors } = await startConfigMapInformer();
    await server.apply([configMap('before-pause')]);
    await converged(informer);
    await server.faults.pause();
    expect(server.faults.isPaused()).toBe(true);
    await waitFor(() => errors.length > 0, 'the informer to notice the outage');
    await expect(fetch(`${server.url}/version`)).rejects.toThrow();
    await server.apply([configMap('during-pause')]);
    await server.faults.resume();
    const version = await fetch(`${server.url}/version`);
    expect(version.status).toBe(200);
    await informer.start();
    await converged(informer);
  });

  it('keeps working with added latency', async () => {
    server.faults.setLatency(50);
    const { informer } = await startConfigMapInformer();
    await server.apply([configMap('slow')]);
    await converged(informer);
    server.faults.reset();
  });

  it('turns label selector transitions into add and delete callbacks', async () => {
    await server.apply([configMap('x', {}, { app: 'web' }), configMap('y', {}, { app: 'db' })]);
    const { informer, log } = await startConfigMapInformer({ labelSelector: 'app in (web)' });
    expect(log).toEqual(['add x']);
    await server.apply([configMap('y', {}, { app: 'web' })]);
    await server.apply([configMap('x', {}, { app: 'db' })]);
    await waitFor(() => log.length === 3, 'the transitions');
    expect(log).toEqual(['add x', 'add y', 'delete x']);
    await converged(informer, 'app in (web)');
  });

  it('honours a field selector on list and watch', async () => {
    await server.apply([configMap('wanted'), configMap('other')]);
    const { informer, log } = await startConfigMapInformer({ fieldSelector: 'metadata.name=wanted' });
    await server.apply([configMap('other', { a: '1' }), configMap('wanted', { a: '1' })]);
    await waitFor(() => log.length === 2, 'the update');
    expect(log).toEqual(['add wanted', 'update wanted']);
    expect(informer.list().map((item) => item.metadata?.name)).toEqual(['wanted']);
  });

  it('informs on custom resources served from a CRD', async () => {
    await server.apply({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    });
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const informer = k8s.makeInformer(kc, '/apis/example.com/v1/widgets', async () => {
      const list = (await custom.listClusterCustomObject({
        group: 'example.com',
        version: 'v1',
        plural: 'widgets',
      })) as k8s.KubernetesListObject<k8s.KubernetesObject>;
      return list;
    });
    running.push(informer);
    const names: string[] = [];
    informer.on('add', (object) => names.push(object.metadata?.name ?? ''));
    await informer.start();
    await custom.createClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } },
    });
    await waitFor(() => names.includes('w1'), 'the custom resource add');
    expect(informer.get('w1')?.metadata?.name).toBe('w1');
  });
});
