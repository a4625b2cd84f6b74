/**
 * Reliability: watch drops and 410 storms while nginx serves a steady request loop. The store
 * resumes or relists; the steady routes never fail, and changes made during the storm (and an
 * Ingress created after it) are served once it ends.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../src/controller.js';
import { answerOf, eventually, ingressManifest, startController } from '../harness.js';
import {
  DOMAIN,
  expectConverged,
  startCluster,
  startSteadyTraffic,
  type ReliabilityCluster,
} from './cluster.js';
import { formatTrafficReport } from './traffic.js';

let cluster: ReliabilityCluster;
let controller: Controller;

beforeAll(async () => {
  cluster = await startCluster();
  controller = await startController(cluster.server, { podName: 'watch-faults' });
});

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

describe('watch drops', () => {
  it('keeps every steady route answering and converges when all watches drop again and again', async () => {
    const { server } = cluster;
    const traffic = startSteadyTraffic(cluster, controller);
    let dropped = 0;
    for (let round = 0; round < 10; round++) {
      dropped += server.faults.dropWatches();
      // A change between drops must still arrive: the watch resumes from its last resourceVersion.
      await server.apply(
        ingressManifest(`during-drops-${round}`, {
          host: `drops-${round}.${DOMAIN}`,
          service: 'alpha',
          className: 'nginx',
        }),
      );
      await sleep(300);
    }
    await server.apply(
      ingressManifest('after-drops', { host: `after-drops.${DOMAIN}`, service: 'beta', className: 'nginx' }),
    );
    await eventually(async () => expect(await answerOf(controller, `after-drops.${DOMAIN}`)).toBe('beta'));
    for (let round = 0; round < 10; round++)
      expect(await answerOf(controller, `drops-${round}.${DOMAIN}`)).toBe('alpha');
    await expectConverged(controller, server);
    const report = await traffic.stopAfter(51);
    console.log(formatTrafficReport(`watch drops (${dropped} watches dropped)`, report));
    expect(dropped).toBeGreaterThan(0);
    expect(report.total).toBeGreaterThan(50);
    expect(report.failures).toEqual([]);
  });
});

describe('410 storms', () => {
  it('relists, keeps every steady route answering and converges when every resume gets 410 Expired', async () => {
    const { server } = cluster;
    const traffic = startSteadyTraffic(cluster, controller);
    for (let round = 0; round < 8; round++) {
      // Forget the history, then cut the watches: every resume from a known resourceVersion is 410.
      server.faults.expireHistory();
      server.faults.dropWatches();
      await server.apply(
        ingressManifest(`during-410-${round}`, {
          host: `gone-${round}.${DOMAIN}`,
          service: 'gamma',
          className: 'nginx',
        }),
      );
      await sleep(400);
    }
    await server.apply(
      ingressManifest('after-410', { host: `after-410.${DOMAIN}`, service: 'alpha', className: 'nginx' }),
    );
    await eventually(async () => expect(await answerOf(controller, `after-410.${DOMAIN}`)).toBe('alpha'));
    for (let round = 0; round < 8; round++)
      expect(await answerOf(controller, `gone-${round}.${DOMAIN}`)).toBe('gamma');
    await expectConverged(controller, server);
    const report = await traffic.stopAfter(51);
    console.log(formatTrafficReport('410 storms (8 rounds)', report));
    expect(report.total).toBeGreaterThan(50);
    expect(report.failures).toEqual([]);
  });
});
