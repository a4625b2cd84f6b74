/**
 * nginx's request series per namespace (lua/ingresskit/request_metrics.lua): a namespace has at
 * most `requestCounting.seriesPerNamespace` series, the requests of the others are counted as
 * uncounted, and no series is ever evicted: when the dict is full, new series are refused, while
 * the series already there keep counting from where they were.
 */
import type { Route, RouteTable } from '@ingresskit/route-model';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { RequestCountingOptions } from './request-counting.js';
import {
  parseRequestMetrics,
  REQUEST_METRICS_ENDPOINT_PATH,
  type RequestMetrics,
} from './request-metrics.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
} from './testing/data-plane.js';
import { sendControlRequest } from './testing/nginx-process.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'SPLIT', 'SWEEP'];

/** A route of `namespace` answering `/<id>` with 200. */
function namespacedRoute(namespace: string, id: string): Route {
  return createTestRoute(id, {
    origin: { kind: 'Ingress', namespace, name: id, createdAt: 0, index: [0] },
    match: { path: { type: 'PathPrefix', value: `/${id}` } },
  });
}

/** victim.test with one route of `default`, tenant.test with `tenantRoutes` routes of `mallory`. */
function tableOf(ports: { http: number; https: number }, tenantRoutes: number): RouteTable {
  return {
    listeners: createListeners(ports),
    virtualHosts: [
      { hostname: 'victim.test', hostnameMatch: 'exact', routes: [namespacedRoute('default', 'victim')] },
      {
        hostname: 'tenant.test',
        hostnameMatch: 'exact',
        routes: Array.from({ length: tenantRoutes }, (_, index) => namespacedRoute('mallory', `t${index}`)),
      },
    ],
    tls: [],
    certificates: [],
    backends: [],
  };
}

async function withDataPlane(
  tenantRoutes: number,
  requestCounting: RequestCountingOptions,
  run: (plane: Awaited<ReturnType<typeof startDataPlane>>) => Promise<void>,
): Promise<void> {
  const ports = await allocateListenerPorts();
  const table = tableOf(ports, tenantRoutes);
  const plane = await startDataPlane({ table, ports, render: { requestCounting } });
  try {
    expect((await plane.push(table)).status).toBe(201);
    await run(plane);
  } finally {
    await plane.stop();
  }
}

/** nginx's counts once every worker has flushed (they do each second). */
async function readCounts(plane: Awaited<ReturnType<typeof startDataPlane>>): Promise<RequestMetrics> {
  await sleep(1_300);
  const response = await sendControlRequest(plane.prefix.socketPath, 'GET', REQUEST_METRICS_ENDPOINT_PATH);
  expect(response.status).toBe(200);
  return parseRequestMetrics(response.text);
}

function requestsOf(metrics: RequestMetrics, route: string, method = 'GET'): number | undefined {
  return metrics.series.find((series) => series.route === route && series.method === method)?.requests;
}

function uncountedOf(metrics: RequestMetrics, namespace: string, reason: string): number | undefined {
  return metrics.uncounted?.find((entry) => entry.namespace === namespace && entry.reason === reason)
    ?.requests;
}

/** Sends `requests` in parallel, a few at a time. */
async function sendAll(requests: (() => Promise<unknown>)[], parallel = 8): Promise<void> {
  for (let start = 0; start < requests.length; start += parallel) {
    await Promise.all(requests.slice(start, start + parallel).map((send) => send()));
  }
}

describe('request series per namespace', () => {
  it("are at most the limit; the others' requests are uncounted and the victim's series counts on", async () => {
    await withDataPlane(30, { seriesPerNamespace: 5 }, async (plane) => {
      const victim = () => plane.request({ host: 'victim.test', path: '/victim' });
      for (let index = 0; index < 3; index++) expect((await victim()).status).toBe(200);
      await sendAll(
        Array.from(
          { length: 60 },
          (_, index) => () => plane.request({ host: 'tenant.test', path: `/t${index % 30}` }),
        ),
      );
      const counts = await readCounts(plane);
      expect(requestsOf(counts, 'victim')).toBe(3);
      const tenant = counts.series.filter((series) => series.route.startsWith('t'));
      expect(tenant).toHaveLength(5);
      expect(counts.seriesPerNamespace).toEqual({ default: 1, mallory: 5 });
      // Every request of the tenant's is in a series or counted as uncounted.
      const uncounted = uncountedOf(counts, 'mallory', 'series-limit') ?? 0;
      expect(uncounted).toBeGreaterThan(0);
      expect(tenant.reduce((sum, series) => sum + series.requests, 0) + uncounted).toBe(60);
      expect(uncountedOf(counts, 'mallory', 'full')).toBe(0);

      for (let index = 0; index < 2; index++) expect((await victim()).status).toBe(200);
      expect(requestsOf(await readCounts(plane), 'victim')).toBe(5);
    });
  });

  it('never evicts a series: once the dict is full, new series are refused and the old ones count on', async () => {
    await withDataPlane(200, { seriesPerNamespace: 0, dictSize: '256k' }, async (plane) => {
      const victim = (method: string) => plane.request({ host: 'victim.test', path: '/victim', method });
      expect((await victim('HEAD')).status).toBe(200);
      expect((await victim('GET')).status).toBe(200);
      const before = await readCounts(plane);
      expect(requestsOf(before, 'victim', 'HEAD')).toBe(1);
      // 2,000 series of the tenant's, far more than 256k holds.
      await sendAll(
        Array.from(
          { length: 2_000 },
          (_, index) => () =>
            plane.request({
              host: 'tenant.test',
              path: `/t${index % 200}`,
              method: METHODS[Math.floor(index / 200)]!,
            }),
        ),
      );
      expect((await victim('GET')).status).toBe(200);
      const after = await readCounts(plane);
      // The victim's idle series is still there, and its busy one counted on from where it was.
      expect(requestsOf(after, 'victim', 'HEAD')).toBe(1);
      expect(requestsOf(after, 'victim', 'GET')).toBe(2);
      expect(uncountedOf(after, 'mallory', 'full')).toBeGreaterThan(0);
      expect(after.series.filter((series) => series.route.startsWith('t')).length).toBeLessThan(2_000);
    });
  });
});
