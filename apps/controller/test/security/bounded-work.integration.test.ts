/**
 * Finding: one Ingress with 10,000 paths stalled everyone's updates for about 20 s, and the
 * reloads a tenant's changes caused reset other tenants' keep-alive connections.
 *
 * Now an Ingress may hold at most `--max-paths-per-ingress` paths and, where the operator sets
 * it, a namespace at most `--max-paths-per-namespace`; what passes the limit is left out with an
 * Event. A tenant's changes are pushed as data: no reload, so the victims' connections stay open.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { answerOf, eventually, ingressManifest } from '../harness.js';
import { createKeepAliveClient } from '../long-lived.js';
import { expectTenantEvent, expectVictimsUnharmed, useSecurityCase, tenantIngress } from './tenant.js';

const testCase = useSecurityCase('bounded', { maxPathsPerNamespace: 3_000 });

/** A tenant's Ingress with `count` prefix paths on one host. */
function manyPaths(name: string, count: number, prefix = '/p'): Record<string, unknown> {
  const ingress = tenantIngress(name, { host: `${name}.mallory.test`, service: 'evil' });
  const rule = (ingress.spec as { rules: { http: { paths: Record<string, unknown>[] } }[] }).rules[0]!;
  rule.http.paths = Array.from({ length: count }, (_, index) => ({
    path: `${prefix}${index}`,
    pathType: 'Prefix',
    backend: { service: { name: 'evil', port: { number: 80 } } },
  }));
  return ingress;
}

describe("a tenant's bulk and churn", () => {
  it("is bounded, never reloads nginx and never delays the victims' changes", async () => {
    const { cluster, controller } = testCase();
    const keepAlive = createKeepAliveClient();
    const before = await keepAlive.get(controller.config.httpPort, 'a.reliability.test');
    expect(before.body).toMatch(/^alpha:/);
    const reloads = controller.dataPlane.reloadCount;
    const workers = await controller.dataPlane.workerPids();
    const traffic = testCase().probeVictims();

    await cluster.server.apply(manyPaths('huge', 10_000));
    for (const index of [1, 2, 3, 4]) {
      await cluster.server.apply(manyPaths(`bulk-${index}`, 900));
      // Creation timestamps have second precision: the order of age must be the order here.
      if (index < 4) await sleep(1_050);
    }
    await expectTenantEvent(
      testCase(),
      'huge',
      'has 10000 paths, more than the 1000 this controller serves per Ingress',
    );
    await expectTenantEvent(testCase(), 'bulk-4', 'would take namespace mallory past the 3000 paths');
    expect(await answerOf(controller, 'bulk-3.mallory.test', '/p899')).toBe('evil');
    expect(await answerOf(controller, 'bulk-4.mallory.test', '/p0')).toBe('404');

    // Churn: the tenant rewrites an Ingress again and again, each version served as data.
    for (let version = 0; version < 20; version++) {
      await cluster.server.apply(manyPaths('churn', 3, `/v${version}-`));
    }
    // A victim's change made now is served, whatever the tenant queued before it.
    await cluster.server.apply(
      ingressManifest('victim-new', { host: 'c.reliability.test', service: 'beta', className: 'nginx' }),
    );
    await eventually(async () => expect(await answerOf(controller, 'c.reliability.test')).toBe('beta'));
    await eventually(async () =>
      expect(await answerOf(controller, 'churn.mallory.test', '/v19-2')).toBe('evil'),
    );

    const after = await keepAlive.get(controller.config.httpPort, 'a.reliability.test');
    keepAlive.close();
    expect(after.body).toMatch(/^alpha:/);
    expect(after.localPort).toBe(before.localPort);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect(await controller.dataPlane.workerPids()).toEqual(workers);
    await expectVictimsUnharmed(traffic, 'bulk and churn');
  }, 90_000);
});
