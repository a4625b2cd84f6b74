import type { RequestMetrics, RequestSeries } from '@ingresskit/nginx-template';
import type { Route, RouteTable } from '@ingresskit/route-model';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  createRequestMetrics,
  registerRequestMetrics,
  type RequestMetricsSource,
} from './request-metrics.js';

const controller = {
  controller_namespace: 'ingress "nginx"',
  controller_class: 'k8s.io\\ingress',
  controller_pod: 'pod\n1',
};

const route = (id: string, path: string, origin: Route['origin'], action: Route['action']): Route =>
  ({ id, origin, match: { path: { type: 'prefix', value: path } }, action, policy: {} }) as unknown as Route;

const ingress = (name: string): Route['origin'] =>
  ({ kind: 'Ingress', namespace: 'shop', name }) as Route['origin'];

const forward = (...backends: string[]): Route['action'] =>
  ({
    type: 'forward',
    backends: backends.map((backend) => ({ backend, weight: 1 })),
  }) as unknown as Route['action'];

// A partial table: only what the labels are read from.
const table = {
  virtualHosts: [
    {
      hostname: 'shop.test',
      routes: [
        route('r-cart', '/cart "quoted" \\ back', ingress('cart'), forward('shop/cart:80')),
        route('r-split', '/split', ingress('split'), {
          ...forward('shop/main:80'),
          canary: { backends: [{ backend: 'shop/canary:80', weight: 1 }] },
        } as unknown as Route['action']),
        route(
          'r-http',
          '/h',
          { kind: 'HTTPRoute', namespace: 'web', name: 'h' } as Route['origin'],
          forward('web/h:8080'),
        ),
      ],
      fallbackRoute: route('r-default', '/', ingress('default'), {
        type: 'redirect',
      } as unknown as Route['action']),
    },
    { hostname: '*.wild\ncard', routes: [route('r-wild', '/', ingress('wild'), forward('external'))] },
  ],
} as unknown as RouteTable;

const histograms = (seed: number): RequestSeries['histograms'] => ({
  d: { buckets: [seed, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], sum: 0.1 + 0.2 * seed },
  u: { buckets: [0, seed, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], sum: 0.003 },
  q: { buckets: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, seed + 1], sum: 1e7 },
  b: { buckets: [1, 2, 3, 4, 5, 6, 0], sum: 123456789 },
});

const durations = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const sizes = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
const input: RequestMetrics = {
  bounds: {
    d: durations,
    u: durations,
    c: durations,
    h: durations,
    q: sizes,
    r: sizes,
    b: [10, 100, 1000, 10000, 100000, 1e6, 1e7],
  },
  series: [
    { route: 'r-cart', status: '200', method: 'GET', backend: '', requests: 5, histograms: histograms(1) },
    { route: 'r-cart', status: '404', method: 'POST', backend: '', requests: 1, histograms: histograms(2) },
    {
      route: 'r-split',
      status: '200',
      method: 'GET',
      backend: 'shop/canary:80',
      requests: 2,
      histograms: histograms(3),
    },
    { route: 'r-split', status: '200', method: 'GET', backend: '', requests: 7, histograms: {} },
    { route: 'r-http', status: '503', method: 'OTHER', backend: '', requests: 4, histograms: histograms(4) },
    { route: 'r-default', status: '308', method: 'GET', backend: '', requests: 9, histograms: histograms(5) },
    { route: 'r-wild', status: '200', method: 'GET', backend: '', requests: 1, histograms: histograms(6) },
    { route: 'r-gone', status: '200', method: 'GET', backend: '', requests: 8, histograms: histograms(7) },
  ],
};

const source = (metrics: RequestMetrics | undefined): RequestMetricsSource => ({
  read: () => Promise.resolve(metrics),
  table: () => table,
});

/** The HELP, TYPE and sample lines of a text, sorted, and how many lines it had (blank ones aside). */
function linesOf(text: string): { lines: string[]; count: number } {
  const lines = text.split('\n').filter((line) => line !== '');
  return { lines: [...lines].sort(), count: lines.length };
}

async function promClientText(metrics: RequestMetrics | undefined): Promise<string> {
  const registry = new Registry();
  registerRequestMetrics(registry, source(metrics), controller);
  return registry.metrics();
}

async function streamedText(
  metrics: RequestMetrics | undefined,
  names?: ReadonlySet<string>,
): Promise<string> {
  return [...(await createRequestMetrics(source(metrics), controller).read(names))].join('');
}

describe('createRequestMetrics', () => {
  it('writes the lines prom-client wrote for the same counts and routes', async () => {
    const streamed = linesOf(await streamedText(input));
    expect(streamed).toEqual(linesOf(await promClientText(input)));
    expect(streamed.count).toBeGreaterThan(200);
  });

  it('writes the HELP and TYPE lines prom-client wrote while nginx does not answer', async () => {
    expect(linesOf(await streamedText(undefined))).toEqual(linesOf(await promClientText(undefined)));
  });

  it('writes only the metrics named', async () => {
    const name = 'nginx_ingress_controller_bytes_sent';
    const text = await streamedText(input, new Set([name]));
    const registry = new Registry();
    registerRequestMetrics(registry, source(input), controller);
    expect(linesOf(text)).toEqual(linesOf(await registry.getSingleMetricAsString(name)));
  });
});
