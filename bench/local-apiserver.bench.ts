/**
 * local-apiserver: (a) listing 10,000 Ingresses through the real client-node API against the
 * floor of fetching and JSON.parse-ing the same payload, and (b) one writer fanning watch events
 * out to 50 client-node watchers (events delivered per second, write-to-receipt latency).
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import * as k8s from '@kubernetes/client-node';
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { formatNumber, memoryMiB, percentile, printSection, timeIt } from './lib/measure.js';

const objectCount = 10_000;
const listRuns = 7;
const watcherCount = 50;
const writeCount = 2_000;

function ingress(index: number) {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name: `ingress-${index}`,
      namespace: `team-${index % 20}`,
      labels: { app: `app-${index % 100}`, tier: index % 2 === 0 ? 'front' : 'back' },
      annotations: { 'nginx.ingress.kubernetes.io/version': '1' },
    },
    spec: {
      ingressClassName: 'nginx',
      rules: [
        {
          host: `host-${index}.example.com`,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: `svc-${index}`, port: { number: 80 } } },
              },
            ],
          },
        },
      ],
    },
  };
}

function median(samples: number[]): number {
  return percentile(samples, 50);
}

async function benchList(): Promise<void> {
  const server = await startLocalApiServer();
  try {
    const namespaces = Array.from({ length: 20 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: `team-${i}` },
    }));
    const before = memoryMiB();
    const load = await timeIt(() =>
      server.apply([...namespaces, ...Array.from({ length: objectCount }, (_, i) => ingress(i))]),
    );
    const after = memoryMiB();
    const net = server.kubeConfig().makeApiClient(k8s.NetworkingV1Api);
    const url = `${server.url}/apis/networking.k8s.io/v1/ingresses`;

    const clientTimes: number[] = [];
    const fetchTimes: number[] = [];
    const parseTimes: number[] = [];
    let bytes = 0;
    for (let run = 0; run < listRuns; run++) {
      const client = await timeIt(() => net.listIngressForAllNamespaces());
      if (client.result.items.length !== objectCount) throw new Error('the list is incomplete');
      clientTimes.push(client.ms);
      const raw = await timeIt(async () => (await fetch(url)).text());
      fetchTimes.push(raw.ms);
      bytes = Buffer.byteLength(raw.result);
      const parsed = await timeIt(() => JSON.parse(raw.result) as { items: unknown[] });
      parseTimes.push(parsed.ms);
    }
    const floor = median(parseTimes);
    printSection(
      `local-apiserver: list ${formatNumber(objectCount, 0)} Ingresses`,
      [
        {
          scenario: 'client-node listIngressForAllNamespaces (HTTP + parse into models)',
          'median ms': formatNumber(median(clientTimes)),
          'vs JSON.parse floor': `${formatNumber(median(clientTimes) / floor, 1)}×`,
        },
        {
          scenario: 'fetch + read body as text (server answer + transfer)',
          'median ms': formatNumber(median(fetchTimes)),
          'vs JSON.parse floor': `${formatNumber(median(fetchTimes) / floor, 1)}×`,
        },
        {
          scenario: 'JSON.parse of the same payload (floor)',
          'median ms': formatNumber(floor),
          'vs JSON.parse floor': '1.0×',
        },
      ],
      `${listRuns} runs, median; payload ${formatNumber(bytes / 2 ** 20)} MiB. Loading the objects with ` +
        `apply() took ${formatNumber(load.ms)} ms; server heap grew by about ` +
        `${formatNumber(after.heapUsed - before.heapUsed)} MiB.`,
    );
  } finally {
    await server.stop();
  }
}

async function benchFanOut(): Promise<void> {
  const server = await startLocalApiServer();
  const controllers: AbortController[] = [];
  try {
    await server.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'hot', namespace: 'default' },
    });
    const kc = server.kubeConfig();
    const writtenAt = new Map<string, number>();
    const latencies: number[] = [];
    let delivered = 0;
    let lastReceipt = 0;
    const startRv = server.stats().resourceVersion;
    for (let i = 0; i < watcherCount; i++) {
      const watch = new k8s.Watch(kc);
      controllers.push(
        await watch.watch(
          '/api/v1/namespaces/default/configmaps',
          { resourceVersion: startRv },
          (_type, object: k8s.KubernetesObject) => {
            const sent = writtenAt.get(object.metadata?.resourceVersion ?? '');
            if (sent === undefined) return;
            lastReceipt = performance.now();
            latencies.push(lastReceipt - sent);
            delivered += 1;
          },
          () => undefined,
        ),
      );
    }
    while (server.stats().activeWatches < watcherCount) await yieldToEventLoop();

    const start = performance.now();
    for (let i = 0; i < writeCount; i++) {
      const written = performance.now();
      const [stored] = await server.apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'hot', namespace: 'default' },
        data: { counter: String(i) },
      });
      writtenAt.set(stored?.metadata.resourceVersion ?? '', written);
      // One write per turn of the event loop, so sockets drain while the writer keeps going.
      await yieldToEventLoop();
    }
    const expected = writeCount * watcherCount;
    const deadline = performance.now() + 30_000;
    while (delivered < expected && performance.now() < deadline) await yieldToEventLoop();
    const seconds = (lastReceipt - start) / 1000;
    printSection(
      `local-apiserver: watch fan-out to ${watcherCount} client-node watchers`,
      [
        {
          writes: formatNumber(writeCount, 0),
          'events delivered': formatNumber(delivered, 0),
          'events/s delivered': formatNumber(delivered / seconds, 0),
          'latency p50 ms': formatNumber(percentile(latencies, 50), 2),
          'latency p99 ms': formatNumber(percentile(latencies, 99), 2),
        },
      ],
      'One process holds the server, the writer and all watchers (client-node Watch, one JSON.parse per ' +
        'event per watcher); latency runs from the write to the watcher callback. Each event is serialized ' +
        'once and the same bytes go to every watcher.',
    );
    if (delivered < expected) throw new Error(`only ${delivered} of ${expected} events arrived`);
  } finally {
    for (const controller of controllers) controller.abort();
    await server.stop();
  }
}

await benchList();
await benchFanOut();
