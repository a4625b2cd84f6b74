/**
 * Finding: large annotations were copied into every route. A 256-network allow-list and long CORS
 * lists on a 1,000-path Ingress made about 14 MiB of route data; three such Ingresses blocked the
 * controller for 3.5-4.4 s (its /healthz missed kubelet's 1 s), six lost the leader lease, and 18
 * kept nginx's workers busy for minutes.
 *
 * Now the routes of an Ingress name one shared policy, pushed once, checked once by the control
 * endpoint and prepared once per worker: the Ingresses below take a few hundred kB of nginx's
 * shared memory each, and /healthz answers within 1 s throughout. The test prints the longest
 * wait of /healthz and the longest block of the event loop it saw.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { probe } from '../../src/http-probe.js';
import { answerOf, eventually } from '../harness.js';
import { expectVictimsUnharmed, tenantIngress, useSecurityCase } from './tenant.js';

const testCase = useSecurityCase('large-policies');

const INGRESSES = 6;
const PATHS = 1_000;
const MiB = 1024 ** 2;

/** 255 networks of the documentation and private ranges, and `last`: 256 in all. */
function allowList(last: string): string {
  const networks = Array.from({ length: 255 }, (_, index) => `10.${index}.0.0/16`);
  return [...networks, last].join(',');
}

/** A tenant's Ingress with PATHS prefix paths, a 256-network allow-list and long CORS lists. */
function largePolicyIngress(name: string, allowed: string): Record<string, unknown> {
  const origins = Array.from({ length: 60 }, (_, index) => `https://app${index}.${name}.example.com`);
  const headers = Array.from({ length: 60 }, (_, index) => `X-Tenant-Header-${index}`);
  const ingress = tenantIngress(name, {
    host: `${name}.mallory.test`,
    service: 'evil',
    annotations: {
      'nginx.ingress.kubernetes.io/whitelist-source-range': allowList(allowed),
      'nginx.ingress.kubernetes.io/enable-cors': 'true',
      'nginx.ingress.kubernetes.io/cors-allow-origin': origins.join(', '),
      'nginx.ingress.kubernetes.io/cors-allow-headers': headers.join(','),
      'nginx.ingress.kubernetes.io/cors-expose-headers': headers.join(','),
    },
  });
  const rule = (ingress.spec as { rules: { http: { paths: Record<string, unknown>[] } }[] }).rules[0]!;
  rule.http.paths = Array.from({ length: PATHS }, (_, index) => ({
    path: `/p${index}`,
    pathType: 'Prefix',
    backend: { service: { name: 'evil', port: { number: 80 } } },
  }));
  return ingress;
}

/** Asks /healthz every 100 ms until stopped; resolves with the longest wait for an answer, in ms. */
function watchHealth(port: number): { stop: () => Promise<number> } {
  let stopped = false;
  let longest = 0;
  const run = (async () => {
    while (!stopped) {
      const startedAt = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      await response.text();
      expect(response.status).toBe(200);
      longest = Math.max(longest, performance.now() - startedAt);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await run;
      return longest;
    },
  };
}

describe("a tenant's Ingresses with large policies", () => {
  it("take little of nginx's memory, are enforced, and never keep /healthz waiting", async () => {
    const { cluster, controller } = testCase();
    const before = (await controller.dataPlane.readStatus())!;
    const traffic = testCase().probeVictims();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const health = watchHealth(controller.healthzPort);

    // The last one does not admit the test's own address: its routes answer 403.
    const ingresses = Array.from({ length: INGRESSES }, (_, index) =>
      largePolicyIngress(`policies-${index}`, index === INGRESSES - 1 ? '192.0.2.1' : '127.0.0.1'),
    );
    await cluster.server.apply(ingresses);
    await eventually(async () => {
      for (let index = 0; index < INGRESSES - 1; index++) {
        expect(await answerOf(controller, `policies-${index}.mallory.test`, `/p${PATHS - 1}`)).toBe('evil');
      }
      expect(await answerOf(controller, `policies-${INGRESSES - 1}.mallory.test`, '/p0')).toBe('403');
      expect(await controller.dataPlane.isInSync()).toBe(true);
    }, 60_000);
    const preflight = await probe({
      port: controller.config.httpPort,
      host: 'policies-0.mallory.test',
      path: '/p7',
      method: 'OPTIONS',
      headers: { origin: 'https://app59.policies-0.example.com', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app59.policies-0.example.com');

    const longestWait = await health.stop();
    loop.disable();
    const after = (await controller.dataPlane.readStatus())!;
    const used = before.sharedDictFree - after.sharedDictFree;
    console.log(
      `[large policies] ${INGRESSES} Ingresses of ${PATHS} paths: ${(used / MiB).toFixed(1)} MiB of nginx's shared memory, ` +
        `/healthz answered within ${Math.round(longestWait)} ms, longest event loop block ${Math.round(loop.max / 1e6)} ms`,
    );
    // Copied into every route, the lists took about 11.5 MB per Ingress.
    expect(used).toBeLessThan(INGRESSES * MiB);
    // kubelet's probe waits 1 s.
    expect(longestWait).toBeLessThan(1_000);
    await expectVictimsUnharmed(traffic, 'large policies');
  }, 180_000);
});
