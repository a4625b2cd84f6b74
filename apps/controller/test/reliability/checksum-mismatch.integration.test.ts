/**
 * Reliability: with --enable-ingress-checksum, the Ingresses the controller sees stop matching the
 * published IngressCheckSum (an Ingress arrives before the control plane publishes it) while a
 * steady request loop runs. The last good configuration keeps serving untouched; once a matching
 * checksum is published, everything held back is applied.
 */
import { ingressCheckSumCrd } from '@ingresskit/checksum';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIo } from '../../src/commands/command.js';
import { runCli } from '../../src/commands/index.js';
import type { Controller } from '../../src/controller.js';
import { answerOf, eventually, ingressManifest, startController } from '../harness.js';
import {
  DOMAIN,
  expectConverged,
  startCluster,
  startSteadyTraffic,
  VERSION,
  type ReliabilityCluster,
} from './cluster.js';
import { formatTrafficReport } from './traffic.js';

let cluster: ReliabilityCluster;
let controller: Controller;

/** `ingresskit checksum publish` over the Ingresses the server has now. */
async function publishChecksum(): Promise<void> {
  let output = '';
  const io: CommandIo = {
    stdout: (text) => (output += text),
    stderr: (text) => (output += text),
    env: {},
    signal: new AbortController().signal,
    cwd: cluster.dir,
  };
  const code = await runCli(
    ['checksum', 'publish', '--namespace=ingresskit', `--kubeconfig=${cluster.kubeconfigPath}`],
    io,
  );
  expect(code, output).toBe(0);
}

beforeAll(async () => {
  cluster = await startCluster();
  await cluster.server.apply(ingressCheckSumCrd);
  await publishChecksum();
  controller = await startController(cluster.server, { podName: 'checksum', checksumEnabled: true });
});

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

describe('checksum mismatch', () => {
  it('keeps the last good configuration serving until a matching checksum is published', async () => {
    const { server } = cluster;
    expect(controller.summary()?.checksum?.ok).toBe(true);
    const versionBefore = (await controller.dataPlane.readStatus())?.version;
    const traffic = startSteadyTraffic(cluster, controller);

    await server.apply(
      ingressManifest('unpublished-4', {
        host: `unpublished.${DOMAIN}`,
        service: 'beta',
        className: 'nginx',
        annotations: VERSION,
      }),
    );
    await eventually(() => expect(controller.summary()?.checksum?.ok).toBe(false));
    // Several syncs come and go while mismatched; none may touch what nginx runs.
    await sleep(1_500);
    expect((await controller.dataPlane.readStatus())?.version).toBe(versionBefore);
    expect(await answerOf(controller, `unpublished.${DOMAIN}`)).toBe('404');
    const mismatchedRequests = traffic.count();

    await publishChecksum();
    await eventually(async () => expect(await answerOf(controller, `unpublished.${DOMAIN}`)).toBe('beta'));
    expect(controller.summary()?.checksum?.ok).toBe(true);
    await expectConverged(controller, server);
    await sleep(1_000);
    const report = await traffic.stop();
    console.log(
      formatTrafficReport(`checksum mismatch (${mismatchedRequests} requests before the fix)`, report),
    );
    expect(mismatchedRequests).toBeGreaterThan(50);
    expect(report.failures).toEqual([]);
  });
});
