/**
 * Reliability: nginx is killed (SIGKILL to the master and its workers, as an OOM kill or a crash
 * would) while a steady request loop runs. Requests fail while no nginx runs; the supervisor
 * starts it again, the last good configuration and the dynamically posted endpoints come back,
 * and the failures stay inside that window.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../src/controller.js';
import {
  answerOf,
  endpointSliceManifest,
  eventually,
  ingressManifest,
  isProcessAlive,
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
import { formatTrafficReport, type TrafficReport } from './traffic.js';

const INTERVAL_MS = 20;
const REQUEST_TIMEOUT_MS = 1_000;
/** How long nginx may be away: the supervisor's first restart delay is 500 ms, then nginx starts. */
const MAX_OUTAGE_MS = 10_000;
let cluster: ReliabilityCluster;
let controller: Controller;

beforeAll(async () => {
  cluster = await startCluster();
  const { server, backends } = cluster;
  await server.apply([
    ...serviceManifests('mover', [backends.get('alpha')!]),
    ingressManifest('mover', { host: `mover.${DOMAIN}`, service: 'mover', className: 'nginx' }),
  ]);
  controller = await startController(cluster.server, { podName: 'nginx-killed' });
});

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

describe('nginx killed', () => {
  it('restarts nginx with the last configuration and endpoints, failing requests only while it is down', async () => {
    const { server, backends } = cluster;
    // An endpoint change that lives only in nginx's Lua shared memory: a restart must post it again.
    await server.apply(endpointSliceManifest('mover-alpha', 'mover', backends.get('gamma')!.port));
    await eventually(async () => expect(await answerOf(controller, `mover.${DOMAIN}`)).toBe('gamma'));
    const reloadsBefore = controller.dataPlane.reloadCount;

    const trafficStartedAt = Date.now();
    const traffic = startSteadyTraffic(cluster, controller, {
      intervalMs: INTERVAL_MS,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    await sleep(1_000);
    const master = controller.dataPlane.masterPid!;
    const workers = await controller.dataPlane.workerPids();
    expect(workers.length).toBeGreaterThan(0);
    const killedAt = Date.now();
    for (const pid of [master, ...workers]) process.kill(pid, 'SIGKILL');
    await eventually(() => expect(isProcessAlive(master)).toBe(false));

    await eventually(async () => {
      expect(controller.dataPlane.masterPid).toBeDefined();
      expect(controller.dataPlane.masterPid).not.toBe(master);
      for (const route of cluster.steadyRoutes)
        expect(await answerOf(controller, route.host, route.path, route.tls)).toBe(route.expect);
    }, MAX_OUTAGE_MS);
    const recoveredMs = Date.now() - killedAt;
    // Requests after the recovery must all succeed again.
    await sleep(2_000);
    const report = await traffic.stop();

    expect(await answerOf(controller, `mover.${DOMAIN}`)).toBe('gamma');
    await server.apply(
      ingressManifest('after-kill', { host: `after-kill.${DOMAIN}`, service: 'beta', className: 'nginx' }),
    );
    await eventually(async () => expect(await answerOf(controller, `after-kill.${DOMAIN}`)).toBe('beta'));
    await expectConverged(controller, server);
    const restarts = (await controller.metrics.nginxRestarts.get()).values[0]?.value;
    console.log(
      formatTrafficReport(
        `nginx killed (serving again ${recoveredMs} ms after the kill, ${restarts} restart)`,
        report,
      ),
    );

    expect(restarts).toBe(1);
    // The restart reloads nothing: the new master starts from the last good nginx.conf and gets
    // every route pushed again.
    expect(controller.dataPlane.reloadCount).toBe(reloadsBefore);
    expect(report.failed).toBeGreaterThan(0);
    const killOffsetMs = killedAt - trafficStartedAt;
    // A request sent just before the kill may be cut while in flight (at most its timeout).
    expect(report.firstFailureMs).toBeGreaterThanOrEqual(killOffsetMs - REQUEST_TIMEOUT_MS);
    expect(report.lastFailureMs).toBeLessThanOrEqual(killOffsetMs + recoveredMs);
    // At most one request per interval of the outage can fail (plus the one in flight).
    expect(report.failed).toBeLessThanOrEqual(Math.ceil(recoveredMs / INTERVAL_MS) + 1);
    expect(report.ok).toBeGreaterThan(report.failed);
  }, 60_000);

  it('replaces nginx whose master alone was killed, so its orphaned workers do not keep the ports', async () => {
    const { server } = cluster;
    const master = controller.dataPlane.masterPid!;
    const workers = await controller.dataPlane.workerPids();
    expect(workers.length).toBeGreaterThan(0);
    const traffic = startSteadyTraffic(cluster, controller, {
      intervalMs: INTERVAL_MS,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    await sleep(500);
    process.kill(master, 'SIGKILL');
    let report: TrafficReport;
    try {
      // The dead master's workers must not outlive it: they hold the listening sockets, so a new
      // master cannot bind and the orphans keep serving the old configuration.
      await eventually(() => {
        for (const pid of workers) expect(isProcessAlive(pid)).toBe(false);
      }, MAX_OUTAGE_MS);
      await server.apply(
        ingressManifest('after-master-kill', {
          host: `after-master.${DOMAIN}`,
          service: 'gamma',
          className: 'nginx',
        }),
      );
      await eventually(
        async () => expect(await answerOf(controller, `after-master.${DOMAIN}`)).toBe('gamma'),
        MAX_OUTAGE_MS,
      );
      await expectConverged(controller, server);
      await sleep(1_000);
    } finally {
      report = await traffic.stop();
      console.log(formatTrafficReport('nginx master killed alone', report));
      // Whatever the controller did, leave no orphan behind on this machine.
      for (const pid of workers) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    expect(report.failed).toBeLessThanOrEqual(Math.ceil(MAX_OUTAGE_MS / INTERVAL_MS));
  }, 60_000);
});
