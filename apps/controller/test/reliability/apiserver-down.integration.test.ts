/**
 * Reliability: the API server is down for 30 s (connections cut, new ones refused) while nginx
 * serves a steady request loop. The controller stays ready and nginx keeps serving the last
 * known state; what changed on the server meanwhile is served once it is back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../src/controller.js';
import {
  answerOf,
  endpointSliceManifest,
  eventually,
  ingressManifest,
  serviceManifests,
  startController,
} from '../harness.js';
import {
  DOMAIN,
  expectConverged,
  startCluster,
  startSteadyTraffic,
  type ReliabilityCluster,
} from './cluster.js';
import { formatTrafficReport } from './traffic.js';

const OUTAGE_MS = 30_000;
let cluster: ReliabilityCluster;
let controller: Controller;

beforeAll(async () => {
  cluster = await startCluster();
  const { server, backends } = cluster;
  // A route that moves during the outage; not part of the steady set.
  await server.apply([
    ...serviceManifests('mover', [backends.get('alpha')!]),
    ingressManifest('mover', { host: `mover.${DOMAIN}`, service: 'mover', className: 'nginx' }),
  ]);
  controller = await startController(server, { podName: 'apiserver-down' });
});

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

describe('API server down', () => {
  it('keeps serving for 30 s without the API server and converges to what changed meanwhile', async () => {
    const { server, backends } = cluster;
    expect(await answerOf(controller, `mover.${DOMAIN}`)).toBe('alpha');
    const traffic = startSteadyTraffic(cluster, controller, { maxRequests: 6_000, maxDurationMs: 100_000 });
    await sleep(500);

    await server.faults.pause();
    const pausedAt = Date.now();
    // Written straight into the paused server's storage; the controller can only learn of them later.
    await server.apply([
      ingressManifest('during-outage', { host: `during.${DOMAIN}`, service: 'beta', className: 'nginx' }),
      endpointSliceManifest('mover-alpha', 'mover', backends.get('gamma')!.port),
    ]);
    await sleep(OUTAGE_MS / 2);
    const healthz = await fetch(`http://127.0.0.1:${controller.healthzPort}/healthz`);
    expect(healthz.status).toBe(200);
    expect(await answerOf(controller, `mover.${DOMAIN}`)).toBe('alpha');
    await sleep(OUTAGE_MS - (Date.now() - pausedAt));
    await server.faults.resume();
    const resumedAt = Date.now();

    await server.apply(
      ingressManifest('after-outage', { host: `after.${DOMAIN}`, service: 'gamma', className: 'nginx' }),
    );
    // The store's retry backoff grows to 30 s during the outage, so catching up may take that long.
    await eventually(async () => {
      expect(await answerOf(controller, `after.${DOMAIN}`)).toBe('gamma');
      expect(await answerOf(controller, `during.${DOMAIN}`)).toBe('beta');
      expect(await answerOf(controller, `mover.${DOMAIN}`)).toBe('gamma');
    }, 45_000);
    const caughtUpMs = Date.now() - resumedAt;
    await expectConverged(controller, server);
    const report = await traffic.stopAfter(501);
    console.log(
      formatTrafficReport(
        `API server down ${OUTAGE_MS / 1000} s (caught up ${caughtUpMs} ms after it came back)`,
        report,
      ),
    );
    expect(report.total).toBeGreaterThan(500);
    expect(report.failures).toEqual([]);
  }, 120_000);
});
