/**
 * Controller RSS with Secrets no object references (docs/security.md, finding 10): local-apiserver
 * in this process holding SECRETS `kubernetes.io/tls` Secrets of SECRET_KIB KiB each in namespace
 * `mallory` and two fixture Ingresses (one with TLS), `ingresskit run` (apps/controller, see
 * BENCH_CONTROLLER in lib/controller-process.ts) in its own process. Prints the controller's RSS
 * once it serves the Ingress and after SETTLE_MS, and its peak RSS (VmHWM), with the Secrets and
 * without them. Not a benchmark scenario: one run, for the figures of a security finding.
 *
 *   node --conditions=@ingresskit/source --import tsx bench/tools/unreferenced-secrets-memory.ts
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchCluster, createBenchFixture, startServingController } from '../lib/cluster.js';

const SECRETS = Number(process.env.SECRETS ?? 350);
const SECRET_KIB = Number(process.env.SECRET_KIB ?? 900);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 10_000);

/** `count` TLS Secrets of `kib` KiB of data each (not certificates: nothing reads them). */
function unreferencedSecrets(count: number, kib: number): Record<string, unknown>[] {
  // One payload for all: the API server stores each Secret whole either way.
  const half = randomBytes((kib * 1024) / 2).toString('base64');
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mallory' } },
    ...Array.from({ length: count }, (_, index) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name: `unreferenced-${index}`, namespace: 'mallory' },
      data: { 'tls.crt': half, 'tls.key': half },
    })),
  ];
}

const fixture = await createBenchFixture('unreferenced-secrets');
try {
  for (const count of [0, SECRETS]) {
    const cluster = await startBenchCluster(fixture, 2);
    await cluster.server.apply(unreferencedSecrets(count, SECRET_KIB));
    const controller = await startServingController(cluster, 'current', { timeoutMs: 60_000 });
    try {
      const served = controller.memory();
      await sleep(SETTLE_MS);
      const settled = controller.memory();
      console.log(
        `${count} Secrets of ${SECRET_KIB} KiB before the start: RSS ${served.rss.toFixed(0)} MiB when serving, ` +
          `${settled.rss.toFixed(0)} MiB after ${SETTLE_MS / 1000} s, peak ${settled.peak.toFixed(0)} MiB`,
      );
      if (count === 0) continue;
      // The same again while it runs: each comes as a watch event.
      await cluster.server.apply(
        unreferencedSecrets(count, SECRET_KIB).map((object) => {
          const metadata = object.metadata as { name: string };
          return object.kind === 'Secret'
            ? { ...object, metadata: { ...metadata, name: `later-${metadata.name}` } }
            : object;
        }),
      );
      const applied = controller.memory();
      await sleep(SETTLE_MS);
      const later = controller.memory();
      console.log(
        `${count} more created while it runs: RSS ${applied.rss.toFixed(0)} MiB once applied, ` +
          `${later.rss.toFixed(0)} MiB after ${SETTLE_MS / 1000} s, peak ${later.peak.toFixed(0)} MiB`,
      );
    } finally {
      await controller.stop();
      await cluster.stop();
    }
  }
} finally {
  await fixture.stop();
}
