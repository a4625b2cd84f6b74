/**
 * store: (1) initial sync of 10,000 Ingresses + 10,000 Services + 10,000 EndpointSlices from
 * local-apiserver (loaded with its in-process apply, so loading is not measured): time and memory,
 * against the floor of listing the same objects through client-node's typed API and through the
 * store's own raw paginated list, in the same process; (2) the change rate the store sustains,
 * writes applied through the API server and observed as `change` events, against a bare
 * client-node Watch consuming the same stream; (3) the cost of `snapshot()` after a change,
 * against copying three plain Maps.
 */
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { createApiClient, createStore, type ResourceClient, type Store } from '@ingresskit/store';
import * as k8s from '@kubernetes/client-node';
import { formatNumber, memoryMiB, opsPerSecond, printSection, timeIt } from './lib/measure.js';

const perKind = 10_000;
const namespaces = 100;
const updates = 10_000;

function buildObjects(): object[] {
  const objects: object[] = [];
  for (let n = 0; n < namespaces; n++)
    objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${n}` } });
  for (let i = 0; i < perKind; i++) {
    const namespace = `team-${i % namespaces}`;
    const name = `app-${i}`;
    objects.push(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace, labels: { app: name } },
        spec: {
          selector: { app: name },
          ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
        },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: `${name}-x1`, namespace, labels: { 'kubernetes.io/service-name': name } },
        addressType: 'IPv4',
        endpoints: [0, 1, 2].map((e) => ({
          addresses: [`10.${(i >> 8) & 255}.${i & 255}.${e + 1}`],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: `node-${e}`,
        })),
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name, namespace, annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '8m' } },
        spec: {
          ingressClassName: 'nginx',
          tls: [{ hosts: [`${name}.example.com`], secretName: `${name}-tls` }],
          rules: [
            {
              host: `${name}.example.com`,
              http: {
                paths: [
                  { path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } },
                  {
                    path: '/api',
                    pathType: 'Prefix',
                    backend: { service: { name, port: { name: 'http' } } },
                  },
                ],
              },
            },
          ],
        },
      },
    );
  }
  return objects;
}

/** Heap and RSS after several full GCs, so garbage from the previous step does not blur the delta. */
function settledMemory(): { heapUsed: number; rss: number } {
  for (let i = 0; i < 3; i++) globalThis.gc?.();
  return memoryMiB();
}

async function listRaw(client: ResourceClient, path: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let continueToken: string | undefined;
  do {
    const page = await client.list({ path, limit: 500, continueToken });
    items.push(...page.items);
    continueToken = page.continueToken;
  } while (continueToken !== undefined);
  return items;
}

const server = await startLocalApiServer({ port: 0, historyLimit: 100_000 });
const load = await timeIt(() => server.apply(buildObjects()));
process.stderr.write(`loaded ${perKind * 3} objects in ${formatNumber(load.ms, 0)} ms\n`);
const kubeConfig = server.kubeConfig();
const paths = [
  '/apis/networking.k8s.io/v1/ingresses',
  '/api/v1/services',
  '/apis/discovery.k8s.io/v1/endpointslices',
];

// Warm-up: the first requests pay for module loading and JIT on both sides.
const rawClient = createApiClient(kubeConfig);
await listRaw(rawClient, paths[0]!);

// Floor 1: client-node's typed lists (model instances), held in memory like a cache would.
const net = kubeConfig.makeApiClient(k8s.NetworkingV1Api);
const core = kubeConfig.makeApiClient(k8s.CoreV1Api);
const discovery = kubeConfig.makeApiClient(k8s.DiscoveryV1Api);
let before = settledMemory();
const typed = await timeIt(() =>
  Promise.all([
    net.listIngressForAllNamespaces(),
    core.listServiceForAllNamespaces(),
    discovery.listEndpointSliceForAllNamespaces(),
  ]),
);
let after = settledMemory();
const typedRow = {
  approach: 'client-node typed lists, one request per kind (floor)',
  objects: formatNumber(
    typed.result.reduce((sum, list) => sum + list.items.length, 0),
    0,
  ),
  'time ms': formatNumber(typed.ms, 0),
  'heap Δ MiB': formatNumber(after.heapUsed - before.heapUsed),
  'rss Δ MiB': formatNumber(after.rss - before.rss),
};
typed.result.splice(0); // let the lists go before the next measurement

// Floor 2: the store's own I/O, raw JSON pages of 500, no normalization or indexing.
before = settledMemory();
const raw = await timeIt(() => Promise.all(paths.map((path) => listRaw(rawClient, path))));
after = settledMemory();
const rawRow = {
  approach: 'raw paginated lists, pages of 500 (store I/O floor)',
  objects: formatNumber(
    raw.result.reduce((sum, list) => sum + list.length, 0),
    0,
  ),
  'time ms': formatNumber(raw.ms, 0),
  'heap Δ MiB': formatNumber(after.heapUsed - before.heapUsed),
  'rss Δ MiB': formatNumber(after.rss - before.rss),
};
raw.result.splice(0);

// The store: every kind (the ones not loaded are empty), default options.
before = settledMemory();
const store = createStore(kubeConfig);
let changes = 0;
store.on('change', () => (changes += 1));
const sync = await timeIt(() => store.start());
after = settledMemory();
const snapshot = store.snapshot();
const storeRow = {
  approach: 'store.start() (list, normalize, freeze, index, emit)',
  objects: formatNumber(snapshot.ingresses.size + snapshot.services.size + snapshot.endpointSlices.size, 0),
  'time ms': formatNumber(sync.ms, 0),
  'heap Δ MiB': formatNumber(after.heapUsed - before.heapUsed),
  'rss Δ MiB': formatNumber(after.rss - before.rss),
};
printSection(
  'store: initial sync of 10,000 Ingresses + 10,000 Services + 10,000 EndpointSlices',
  [typedRow, rawRow, storeRow],
  `Objects loaded into local-apiserver in-process (${formatNumber(load.ms, 0)} ms, not measured); API server in the same process. ` +
    `Store vs typed-list floor: ${formatNumber(sync.ms / typed.ms, 2)}× the time; vs raw-list floor: ${formatNumber(sync.ms / raw.ms, 2)}×. ` +
    `Heap Δ is what stays reachable after a full GC (the store keeps every object, frozen, plus indexes; managedFields dropped). ` +
    `${formatNumber(changes, 0)} change events emitted during the sync.`,
);

// Event rate. Each consumer is measured alone (a bare Watch, then a fresh store), twice,
// alternating, after a warm-up round; the better run of each is kept.
await store.stop();

async function applyUpdates(round: number): Promise<number> {
  const objects: object[] = [];
  for (let i = 0; i < updates; i++) {
    const name = `app-${i}`;
    objects.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: `team-${i % namespaces}`, labels: { app: name, round: String(round) } },
      spec: {
        selector: { app: name },
        ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
      },
    });
  }
  const start = performance.now();
  for (let i = 0; i < objects.length; i += 500) await server.apply(objects.slice(i, i + 500));
  return start;
}

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 1));
}

interface RateRun {
  rate: number;
  cpuMicros: number;
}

/** Writes `updates` changes; returns the rate at which `observed` counted them and the CPU per change. */
async function measureRate(round: number, observed: () => number): Promise<RateRun> {
  const seen = observed();
  const cpu = process.cpuUsage();
  const start = await applyUpdates(round);
  await until(() => observed() - seen >= updates);
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { rate: (updates / elapsed) * 1000, cpuMicros: (used.user + used.system) / updates };
}

async function runBareWatch(round: number): Promise<RateRun> {
  const watcher = new k8s.Watch(kubeConfig);
  let watched = 0;
  const version = (await core.listServiceForAllNamespaces({ limit: 1 })).metadata?.resourceVersion ?? '';
  const controller = await watcher.watch(
    '/api/v1/services',
    { resourceVersion: version },
    () => (watched += 1),
    () => undefined,
  );
  const result = await measureRate(round, () => watched);
  controller.abort();
  return result;
}

let lastStore: Store | undefined;
async function runStore(round: number): Promise<RateRun> {
  const measured = createStore(kubeConfig);
  let seen = 0;
  measured.on('change', () => (seen += 1));
  await measured.start();
  const result = await measureRate(round, () => seen);
  await lastStore?.stop();
  lastStore = measured;
  return result;
}

await runBareWatch(1);
const watchRuns: RateRun[] = [];
const storeRuns: RateRun[] = [];
for (let run = 0; run < 2; run++) {
  watchRuns.push(await runBareWatch(10 + run * 2));
  storeRuns.push(await runStore(11 + run * 2));
}
const best = (runs: RateRun[]) => runs.reduce((a, b) => (b.rate > a.rate ? b : a));
const watchBest = best(watchRuns);
const storeBest = best(storeRuns);
printSection(
  'store: sustained change rate (Service updates written through local-apiserver)',
  [
    {
      consumer: 'bare client-node Watch, no-op callback (floor)',
      updates: formatNumber(updates, 0),
      'changes/s': formatNumber(watchBest.rate, 0),
      'CPU µs per change (server + client)': formatNumber(watchBest.cpuMicros, 1),
    },
    {
      consumer: 'store change events',
      updates: formatNumber(updates, 0),
      'changes/s': formatNumber(storeBest.rate, 0),
      'CPU µs per change (server + client)': formatNumber(storeBest.cpuMicros, 1),
    },
  ],
  `Writes are in-process applies in batches of 500; the rate runs from the first write to the last event observed, so it ` +
    `includes the API server's own write and fan-out cost in the same process (2 cores): the server is the bottleneck. ` +
    `Store / floor: ${formatNumber(storeBest.rate / watchBest.rate, 2)}× the rate; the store adds ` +
    `${formatNumber(storeBest.cpuMicros - watchBest.cpuMicros, 1)} µs of CPU per change (shape, freeze, index, emit).`,
);

// snapshot() after one change: structural sharing vs copying three Maps of 10,000.
const live = lastStore!;
let liveChanges = 0;
live.on('change', () => (liveChanges += 1));
const rounds = 200;
let snapshotMs = 0;
let listMs = 0;
for (let round = 0; round < rounds; round++) {
  const seen = liveChanges;
  await server.apply({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'probe', namespace: 'team-0' },
    data: { round: String(round) },
  });
  await until(() => liveChanges > seen);
  let start = performance.now();
  const taken = live.snapshot();
  snapshotMs += performance.now() - start;
  start = performance.now();
  taken.configMaps.list();
  taken.ingresses.list();
  listMs += performance.now() - start;
}
const current = live.snapshot();
const plain = [current.ingresses, current.services, current.endpointSlices].map(
  (map) => new Map<string, unknown>(map.entries()),
);
const copyRate = await opsPerSecond(() => plain.map((map) => new Map(map)), rounds);
printSection(
  'store: taking a snapshot after a change (30,000 objects)',
  [
    {
      approach: 'copy three Maps of 10,000 (naive baseline)',
      'µs per snapshot': formatNumber(1e6 / copyRate, 1),
    },
    { approach: 'store.snapshot()', 'µs per snapshot': formatNumber((snapshotMs / rounds) * 1000, 1) },
    {
      approach: 'then list() of the changed kind and of the 10,000 unchanged Ingresses',
      'µs per snapshot': formatNumber((listMs / rounds) * 1000, 1),
    },
  ],
  'A snapshot retires the edit token and wraps the persistent maps; unchanged kinds keep their map and their cached sorted list.',
);

await live.stop();
await server.stop();
