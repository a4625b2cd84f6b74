/**
 * Finding: tenant values still changed nginx.conf. Each distinct combination of per-route
 * directives (body size, custom error pages, buffers, retries) was a profile location added to
 * nginx.conf: a reload, which closed other tenants' keep-alive connections; about 56 of them made
 * the init_by_lua table too long for lua-nginx-module, after which every reload failed and a
 * restarted controller stayed unready; and `custom-http-errors: "499"` rendered an error_page
 * nginx refuses.
 *
 * Now nginx.conf holds a catalogue of profiles that only the operator's settings decide: body
 * limits and retry time limits are route data, header buffers are rounded up to the catalogue's
 * sizes, and custom error pages of any statuses go through the hop server. 499 is refused on the
 * Ingress that asks for it. A tenant's changes never reload nginx.
 */
import { describe, expect, it } from 'vitest';
import { probe } from '../../src/http-probe.js';
import { answerOf, eventually, ingressManifest, startController } from '../harness.js';
import { createKeepAliveClient } from '../long-lived.js';
import { expectTenantEvent, expectVictimsUnharmed, tenantIngress, useSecurityCase } from './tenant.js';

const testCase = useSecurityCase('profiles');
const P = 'nginx.ingress.kubernetes.io/';

/** Annotations that each made a profile location of their own before. */
function distinctDirectives(index: number): Record<string, string> {
  const annotations: Record<string, string> = { [`${P}proxy-body-size`]: `${3001 + index}k` };
  if (index % 2 === 0) annotations[`${P}custom-http-errors`] = String(400 + (index % 98));
  if (index % 3 === 0) annotations[`${P}proxy-buffer-size`] = `${4 + index}k`;
  if (index % 5 === 0) annotations[`${P}proxy-next-upstream`] = index % 10 === 0 ? 'error http_404' : 'off';
  if (index % 7 === 0) annotations[`${P}proxy-buffering`] = 'off';
  if (index % 11 === 0) annotations[`${P}proxy-next-upstream-timeout`] = String(index);
  return annotations;
}

describe("a tenant's directives", () => {
  it("never reload nginx nor close the victims' connections, and are served as written", async () => {
    const { cluster, controller } = testCase();
    const keepAlive = createKeepAliveClient();
    const before = await keepAlive.get(controller.config.httpPort, 'a.reliability.test');
    expect(before.body).toMatch(/^alpha:/);
    const conf = controller.dataPlane.nginxConf;
    const reloads = controller.dataPlane.reloadCount;
    const workers = await controller.dataPlane.workerPids();
    const traffic = testCase().probeVictims();

    await cluster.server.apply(
      Array.from({ length: 80 }, (_, index) =>
        tenantIngress(`d${index}`, {
          host: `d${index}.mallory.test`,
          service: 'evil',
          annotations: distinctDirectives(index),
        }),
      ),
    );
    await cluster.server.apply(
      tenantIngress('status-499', {
        host: 'status-499.mallory.test',
        service: 'evil',
        annotations: { [`${P}custom-http-errors`]: '404,499' },
      }),
    );
    await expectTenantEvent(testCase(), 'status-499', '499 cannot be intercepted');
    await eventually(async () => expect(await answerOf(controller, 'd79.mallory.test')).toBe('evil'));
    // Each body limit holds as written, to the byte.
    const post = (host: string, bytes: number) =>
      probe({
        port: controller.config.httpPort,
        host,
        method: 'POST',
        body: 'x'.repeat(bytes),
        timeoutMs: 20_000,
      });
    expect((await post('d7.mallory.test', (3001 + 7) * 1024)).status).toBe(200);
    expect((await post('d7.mallory.test', (3001 + 7) * 1024 + 1)).status).toBe(413);

    // A victim's change made now is served, whatever the tenant did before it.
    await cluster.server.apply(
      ingressManifest('victim-new', { host: 'c.reliability.test', service: 'beta', className: 'nginx' }),
    );
    await eventually(async () => expect(await answerOf(controller, 'c.reliability.test')).toBe('beta'));

    const after = await keepAlive.get(controller.config.httpPort, 'a.reliability.test');
    keepAlive.close();
    expect(after.localPort).toBe(before.localPort);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect(controller.dataPlane.nginxConf).toBe(conf);
    expect(await controller.dataPlane.workerPids()).toEqual(workers);
    await expectVictimsUnharmed(traffic, "a tenant's directives");
  }, 120_000);

  it('never keep a restarted controller from being ready and serving the victims', async () => {
    await testCase().controller.stop();
    testCase().controller = await startController(testCase().cluster.server, {
      podName: 'profiles-restarted',
    });
    const { controller } = testCase();
    const health = await fetch(`http://127.0.0.1:${controller.healthzPort}/healthz`);
    expect(health.status).toBe(200);
    expect(await answerOf(controller, 'a.reliability.test')).toBe('alpha');
    expect(await answerOf(controller, 's.reliability.test', '/', true)).toBe('gamma');
    expect(await answerOf(controller, 'd42.mallory.test')).toBe('evil');
    await expectVictimsUnharmed(testCase().probeVictims(), 'after a restart');
  }, 60_000);
});
