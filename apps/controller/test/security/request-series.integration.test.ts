/**
 * Finding (medium): a tenant's 1,000 paths times the statuses its backend answers grew /metrics to
 * 133 MB and filled nginx's metrics dict, whose LRU eviction then pushed out the victims' series:
 * a counter reset to Prometheus.
 *
 * Now a namespace has at most --max-series-per-namespace series (1000 by default): the tenant's
 * requests past it are counted in ingresskit_uncounted_requests_total, not in new series, and
 * nginx never evicts a series, so the victims' series (a busy one, and one that sat idle through the
 * flood) count on from where they were. /metrics stays bounded by the limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../src/controller.js';
import { probe } from '../../src/http-probe.js';
import { eventually, request, serviceManifests } from '../harness.js';
import { expectVictimsUnharmed, TENANT, tenantIngress, useSecurityCase } from './tenant.js';

const testCase = useSecurityCase('request-series');

/** The tenant's paths, and the statuses its backend answers on each. */
const PATHS = 1_000;
const STATUSES = [200, 201, 202, 404, 410, 503];
/** The default --max-series-per-namespace. */
const SERIES_LIMIT = 1_000;
/** Bytes of /metrics per series at most: 93 lines of about 300 bytes with these labels. */
const BYTES_PER_SERIES = 32 * 1024;

let statuses: Server;
let statusesPort = 0;

beforeAll(async () => {
  // Answers /p<index>/<status> with that status.
  statuses = createServer((incoming, response) => {
    const status = Number((incoming.url ?? '').split('/')[2]);
    response.writeHead(Number.isInteger(status) && status >= 200 && status < 600 ? status : 200);
    response.end('statuses\n');
  });
  await new Promise<void>((resolve) => statuses.listen(0, '127.0.0.1', resolve));
  statusesPort = (statuses.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => statuses.close(() => resolve()));
});

/** The tenant's Ingress with PATHS prefix paths on one host, all to its `statuses` Service. */
function manyPaths(): Record<string, unknown> {
  const ingress = tenantIngress('statuses', { host: 'statuses.mallory.test', service: 'statuses' });
  const rule = (ingress.spec as { rules: { http: { paths: Record<string, unknown>[] } }[] }).rules[0]!;
  rule.http.paths = Array.from({ length: PATHS }, (_, index) => ({
    path: `/p${index}`,
    pathType: 'Prefix',
    backend: { service: { name: 'statuses', port: { number: 80 } } },
  }));
  return ingress;
}

async function metricsText(controller: Controller, name?: string): Promise<string> {
  const query = name === undefined ? '' : `?name=${name}`;
  return (await fetch(`http://127.0.0.1:${controller.healthzPort}/metrics${query}`)).text();
}

/** The value of the sample of `name` whose labels include every one of `labels` (undefined: none). */
function sampleOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  const line = text
    .split('\n')
    .find(
      (candidate) => candidate.startsWith(`${name}{`) && wanted.every((pair) => candidate.includes(pair)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The lines of nginx_ingress_controller_requests of `namespace`: one per label set. */
function requestLinesOf(text: string, namespace: string): string[] {
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('nginx_ingress_controller_requests{') && line.includes(`namespace="${namespace}"`),
    );
}

/** The label sets of `namespace` in nginx_ingress_controller_requests. */
function seriesOf(text: string, namespace: string): number {
  return requestLinesOf(text, namespace).length;
}

/** The requests counted in the series of `namespace`. */
function countedOf(text: string, namespace: string): number {
  return requestLinesOf(text, namespace).reduce(
    (sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)),
    0,
  );
}

/** Sends `requests` through nginx, a few at a time. */
async function sendAll(requests: (() => Promise<unknown>)[], parallel = 16): Promise<void> {
  for (let start = 0; start < requests.length; start += parallel) {
    await Promise.all(requests.slice(start, start + parallel).map((send) => send()));
  }
}

describe("a tenant's paths times statuses", () => {
  it("stay within the namespace's series, never reset a victim's series, and keep /metrics bounded", async () => {
    const { cluster, controller } = testCase();
    await cluster.server.apply([
      ...serviceManifests('statuses', [{ name: 'statuses', port: statusesPort } as never], TENANT),
      manyPaths(),
    ]);
    await eventually(async () => {
      expect((await request(controller, 'statuses.mallory.test', `/p${PATHS - 1}/201`)).status).toBe(201);
    }, 30_000);
    // A series of a victim's that sits idle through the flood (the probe sends GET only).
    for (let index = 0; index < 3; index++) {
      await probe({ port: controller.config.httpPort, host: 'a.reliability.test', method: 'HEAD' });
    }
    const victimHead = { ingress: 'steady-1', method: 'HEAD' };
    const victimGet = { ingress: 'steady-1', method: 'GET' };
    const traffic = testCase().probeVictims();
    let before: { head?: number; get?: number } = {};
    await eventually(async () => {
      const text = await metricsText(controller, 'nginx_ingress_controller_requests');
      before = {
        head: sampleOf(text, 'nginx_ingress_controller_requests', victimHead),
        get: sampleOf(text, 'nginx_ingress_controller_requests', victimGet),
      };
      expect(before.head).toBe(3);
      expect(before.get).toBeGreaterThan(0);
    });

    await sendAll(
      STATUSES.flatMap((status) =>
        Array.from(
          { length: PATHS },
          (_, index) => () => request(controller, 'statuses.mallory.test', `/p${index}/${status}`),
        ),
      ),
    );
    // nginx adds its counts to shared memory each second.
    await sleep(1_500);
    await expectVictimsUnharmed(traffic, 'paths times statuses');

    const requests = await metricsText(controller, 'nginx_ingress_controller_requests');
    const whole = await metricsText(controller);
    console.log(
      `[metrics] /metrics ${(Buffer.byteLength(whole) / 1024 ** 2).toFixed(1)} MB, ${seriesOf(requests, TENANT)} series of ${TENANT}`,
    );
    expect(sampleOf(requests, 'nginx_ingress_controller_requests', victimHead)).toBe(3);
    expect(sampleOf(requests, 'nginx_ingress_controller_requests', victimGet)).toBeGreaterThanOrEqual(
      before.get!,
    );
    expect(seriesOf(requests, TENANT)).toBeLessThanOrEqual(SERIES_LIMIT);
    expect(sampleOf(whole, 'ingresskit_request_series', { namespace: TENANT })).toBeLessThanOrEqual(
      SERIES_LIMIT,
    );
    // Every request of the flood is in one of the tenant's series or counted as uncounted.
    const uncounted = sampleOf(whole, 'ingresskit_uncounted_requests_total', {
      namespace: TENANT,
      reason: 'series-limit',
    });
    expect((uncounted ?? 0) + countedOf(requests, TENANT)).toBeGreaterThanOrEqual(PATHS * STATUSES.length);
    expect(Buffer.byteLength(whole)).toBeLessThan((SERIES_LIMIT + 50) * BYTES_PER_SERIES);
  });
});
