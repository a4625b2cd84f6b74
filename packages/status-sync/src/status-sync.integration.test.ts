import {
  CoordinationV1Api,
  CoreV1Api,
  NetworkingV1Api,
  Watch,
  type KubeConfig,
  type V1Ingress,
  type V1Pod,
  type V1Service,
} from '@kubernetes/client-node';
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AddressResolutionError,
  LeaderElector,
  StatusSync,
  resolveStatusAddresses,
  type StatusSyncOptions,
} from './index.js';

type Server = Awaited<ReturnType<typeof startLocalApiServer>>;

const ns = 'ingress';
const labels = { 'app.kubernetes.io/name': 'ingresskit', 'app.kubernetes.io/component': 'controller' };

let server: Server;
let kubeConfig: KubeConfig;
let core: CoreV1Api;
let networking: NetworkingV1Api;
const cleanups: (() => Promise<unknown> | void)[] = [];

beforeEach(async () => {
  server = await startLocalApiServer({ port: 0 });
  kubeConfig = server.kubeConfig();
  core = kubeConfig.makeApiClient(CoreV1Api);
  networking = kubeConfig.makeApiClient(NetworkingV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await server.stop();
});

async function createService(
  name: string,
  spec: V1Service['spec'],
  status?: V1Service['status'],
): Promise<void> {
  const created = await core.createNamespacedService({ namespace: ns, body: { metadata: { name }, spec } });
  if (status !== undefined) {
    await core.replaceNamespacedServiceStatus({ name, namespace: ns, body: { ...created, status } });
  }
}

async function createNode(name: string, addresses: Record<string, string>): Promise<void> {
  await core.createNode({
    body: {
      metadata: { name },
      status: { addresses: Object.entries(addresses).map(([type, address]) => ({ type, address })) },
    },
  });
}

// Pods are created Pending (the server clears status on create), so the kubelet's part is played here.
async function createControllerPod(name: string, nodeName: string, status: V1Pod['status']): Promise<void> {
  const created = await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name, labels: { ...labels, 'pod-template-hash': name.slice(-5) } },
      spec: { nodeName, containers: [{ name: 'controller', image: 'ingresskit' }] },
    },
  });
  await core.replaceNamespacedPodStatus({ name, namespace: ns, body: { ...created, status } });
}

const runningReady: V1Pod['status'] = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };

async function createIngress(
  name: string,
  addresses: { ip?: string; hostname?: string }[] = [],
): Promise<void> {
  const created = await networking.createNamespacedIngress({
    namespace: 'default',
    body: {
      metadata: { name },
      spec: {
        ingressClassName: 'ingresskit',
        defaultBackend: { service: { name: 'web', port: { number: 80 } } },
      },
    },
  });
  if (addresses.length > 0) {
    await networking.replaceNamespacedIngressStatus({
      name,
      namespace: 'default',
      body: { ...created, status: { loadBalancer: { ingress: addresses } } },
    });
  }
}

async function listIngresses(): Promise<V1Ingress[]> {
  return (await networking.listNamespacedIngress({ namespace: 'default' })).items;
}

async function resourceVersions(): Promise<Record<string, string | undefined>> {
  return Object.fromEntries(
    (await listIngresses()).map((item) => [item.metadata!.name!, item.metadata?.resourceVersion]),
  );
}

/** Counts MODIFIED events per Ingress name from now on. */
async function countModifications(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const list = await networking.listNamespacedIngress({ namespace: 'default' });
  const controller = await new Watch(kubeConfig).watch(
    '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
    { resourceVersion: list.metadata?.resourceVersion },
    (type: string, object: V1Ingress) => {
      if (type === 'MODIFIED')
        counts.set(object.metadata!.name!, (counts.get(object.metadata!.name!) ?? 0) + 1);
    },
    () => {},
  );
  cleanups.push(() => controller.abort());
  return counts;
}

function createStatusSync(options: Partial<StatusSyncOptions> = {}): StatusSync {
  return new StatusSync({
    networkingApi: networking,
    coreApi: core,
    addresses: {
      publishStatusAddress: '192.0.2.10, lb.example.com',
      controllerPod: { namespace: ns, name: 'ctrl-aaaaa' },
    },
    isLeader: () => true,
    listOwnedIngresses: listIngresses,
    ...options,
  });
}

async function settle(ms = 300): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

describe('resolveStatusAddresses', () => {
  it('reads the publish Service of each type', async () => {
    await createService('external-name', { type: 'ExternalName', externalName: 'lb.example.com' });
    await createService('cluster-ip', { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ port: 80 }] });
    await createService('node-port', { type: 'NodePort', clusterIP: '10.96.0.11', ports: [{ port: 80 }] });
    await createService('node-port-external', {
      type: 'NodePort',
      clusterIP: '10.96.0.12',
      externalIPs: ['203.0.113.5'],
      ports: [{ port: 80 }],
    });
    await createService(
      'load-balancer',
      { type: 'LoadBalancer', clusterIP: '10.96.0.13', externalIPs: ['203.0.113.6'], ports: [{ port: 80 }] },
      { loadBalancer: { ingress: [{ ip: '198.51.100.1' }, { hostname: 'elb.example.com' }] } },
    );
    const resolve = (name: string) => resolveStatusAddresses({ publishService: `${ns}/${name}` }, core);

    expect(await resolve('external-name')).toEqual([{ hostname: 'lb.example.com' }]);
    expect(await resolve('cluster-ip')).toEqual([{ ip: '10.96.0.10' }]);
    expect(await resolve('node-port')).toEqual([{ ip: '10.96.0.11' }]);
    expect(await resolve('node-port-external')).toEqual([{ ip: '203.0.113.5' }]);
    expect(await resolve('load-balancer')).toEqual([
      { ip: '198.51.100.1' },
      { ip: '203.0.113.6' },
      { hostname: 'elb.example.com' },
    ]);
  });

  it('publishes the nodes of the Running and Ready controller pods', async () => {
    await createNode('n1', { InternalIP: '10.0.0.1', ExternalIP: '203.0.113.1', Hostname: 'n1' });
    await createNode('n2', { InternalIP: '10.0.0.2', Hostname: 'n2' });
    await createNode('n3', { InternalIP: '10.0.0.3', ExternalIP: '203.0.113.3' });
    await createControllerPod('ctrl-aaaaa', 'n1', runningReady);
    await createControllerPod('ctrl-bbbbb', 'n2', runningReady);
    await createControllerPod('ctrl-ccccc', 'n1', runningReady);
    await createControllerPod('ctrl-ddddd', 'n3', {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'False' }],
    });
    const controllerPod = { namespace: ns, name: 'ctrl-aaaaa' };

    expect(await resolveStatusAddresses({ controllerPod }, core)).toEqual([
      { ip: '10.0.0.2' },
      { ip: '203.0.113.1' },
    ]);
    expect(await resolveStatusAddresses({ controllerPod, reportNodeInternalIp: true }, core)).toEqual([
      { ip: '10.0.0.1' },
      { ip: '10.0.0.2' },
    ]);
  });
});

describe('StatusSync', () => {
  it('writes only the Ingresses whose addresses changed, through the status subresource', async () => {
    await createIngress('fresh');
    await createIngress('stale', [{ ip: '192.0.2.99' }]);
    await createIngress('current', [{ hostname: 'lb.example.com' }, { ip: '192.0.2.10' }]);
    const modifications = await countModifications();
    const before = await resourceVersions();
    const status = createStatusSync();

    const first = await status.sync();
    expect(first.written).toEqual(['default/fresh', 'default/stale']);
    expect(first.unchanged).toBe(1);
    const second = await status.sync();
    expect(second.written).toEqual([]);
    expect(second.unchanged).toBe(3);
    await settle();

    expect(Object.fromEntries(modifications)).toEqual({ fresh: 1, stale: 1 });
    const after = await resourceVersions();
    expect(after.current).toBe(before.current);
    const fresh = await networking.readNamespacedIngress({ name: 'fresh', namespace: 'default' });
    expect(fresh.status?.loadBalancer?.ingress?.map(({ ip, hostname }) => ({ ip, hostname }))).toEqual([
      { ip: '192.0.2.10', hostname: undefined },
      { ip: undefined, hostname: 'lb.example.com' },
    ]);
    expect(fresh.spec?.defaultBackend?.service?.name).toBe('web');
    await status.stop();
  });

  it('lets only the elected leader write', async () => {
    await createIngress('a');
    const modifications = await countModifications();
    const syncs = ['pod-a', 'pod-b'].map((identity) => {
      const elector = new LeaderElector({
        coordinationApi: kubeConfig.makeApiClient(CoordinationV1Api),
        namespace: ns,
        electionId: 'ingresskit-leader',
        identity,
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_000,
        retryPeriodMs: 250,
      });
      const status = createStatusSync({ isLeader: () => elector.isLeader() });
      elector.on('started-leading', () => status.requestSync());
      elector.start();
      cleanups.push(() => elector.stop({ release: false }));
      return { elector, status };
    });
    const deadline = Date.now() + 3_000;
    while (!syncs.some(({ elector }) => elector.isLeader()) && Date.now() < deadline) await settle(20);

    const results = await Promise.all(syncs.map(({ status }) => status.sync()));
    expect(results.map((result) => result.outcome).sort()).toEqual(['not-leader', 'synced']);
    await settle();
    expect(Object.fromEntries(modifications)).toEqual({ a: 1 });
    for (const { status } of syncs) await status.stop();
  });

  it('clears the status on shutdown only when asked to and only as the last replica', async () => {
    await createNode('n1', { InternalIP: '10.0.0.1' });
    await createControllerPod('ctrl-aaaaa', 'n1', runningReady);
    await createControllerPod('ctrl-bbbbb', 'n1', runningReady);
    await createIngress('a');
    const published = await createStatusSync().sync();
    expect(published.written).toEqual(['default/a']);

    expect(await createStatusSync().stop()).toMatchObject({ cleared: false, reason: 'not-requested' });
    const first = createStatusSync({ updateStatusOnShutdown: true });
    first.start();
    expect(await first.stop()).toMatchObject({
      cleared: false,
      reason: 'other-replicas',
      otherReplicas: ['ctrl-bbbbb'],
    });
    expect((await listIngresses())[0]?.status?.loadBalancer?.ingress).toHaveLength(2);

    await core.deleteNamespacedPod({ name: 'ctrl-bbbbb', namespace: ns });
    const last = createStatusSync({ updateStatusOnShutdown: true });
    last.start();
    expect(await last.stop()).toMatchObject({
      cleared: true,
      reason: 'last-replica',
      written: ['default/a'],
    });
    expect((await listIngresses())[0]?.status?.loadBalancer?.ingress ?? []).toEqual([]);
  });

  it('keeps the status on shutdown and reports why when the controller pod does not exist or the server is down', async () => {
    await createIngress('a');
    expect((await createStatusSync().sync()).written).toEqual(['default/a']);
    const failures: Error[] = [];

    // No Pod object: the controller runs outside the cluster, as in the demo.
    const outside = createStatusSync({ updateStatusOnShutdown: true });
    outside.on('sync-failed', (error) => failures.push(error));
    outside.start();
    const result = await outside.stop();
    expect(result).toMatchObject({ cleared: false, reason: 'unknown-replicas', written: [], failed: [] });
    expect(result.error).toBeInstanceOf(AddressResolutionError);
    expect((result.error?.cause as { code?: unknown } | undefined)?.code).toBe(404);
    expect(failures).toContain(result.error);

    await createNode('n1', { InternalIP: '10.0.0.1' });
    await createControllerPod('ctrl-aaaaa', 'n1', runningReady);
    const cut = createStatusSync({ updateStatusOnShutdown: true, requestTimeoutMs: 5_000 });
    cut.start();
    await cut.sync();
    await server.faults.pause();
    try {
      const cutResult = await cut.stop();
      expect(cutResult).toMatchObject({ cleared: false, reason: 'unknown-replicas', written: [] });
      expect(cutResult.error).toBeInstanceOf(AddressResolutionError);
      expect(cutResult.error?.message).toBe('reading the controller pod ingress/ctrl-aaaaa failed');
    } finally {
      await server.faults.resume();
    }
    expect((await listIngresses())[0]?.status?.loadBalancer?.ingress).toHaveLength(2);
  });
});
