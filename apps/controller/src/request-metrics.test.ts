import {
  REQUEST_METRIC_NAMES,
  REQUEST_METRICS,
  type RequestMetrics,
  type RequestSeries,
} from '@ingresskit/nginx-template';
import type { Route, RouteTable } from '@ingresskit/route-model';
import { createFakeClock } from '@ingresskit/task-queue';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createRequestMetrics, labelControllerSeries, type RequestMetricsSource } from './request-metrics.js';

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
    {
      route: 'r-cart',
      status: '200',
      method: 'GET',
      backend: '',
      host: 'shop.test',
      requests: 5,
      histograms: histograms(1),
    },
    {
      route: 'r-cart',
      status: '404',
      method: 'POST',
      backend: '',
      host: 'shop.test',
      requests: 1,
      histograms: histograms(2),
    },
    {
      route: 'r-split',
      status: '200',
      method: 'GET',
      backend: 'shop/canary:80',
      host: 'shop.test',
      requests: 2,
      histograms: histograms(3),
    },
    {
      route: 'r-split',
      status: '200',
      method: 'GET',
      backend: '',
      host: 'shop.test',
      requests: 7,
      histograms: {},
    },
    {
      route: 'r-http',
      status: '503',
      method: 'OTHER',
      backend: '',
      host: 'shop.test',
      requests: 4,
      histograms: histograms(4),
    },
    {
      route: 'r-default',
      status: '308',
      method: 'GET',
      backend: '',
      host: 'shop.test',
      requests: 9,
      histograms: histograms(5),
    },
    {
      route: 'r-wild',
      status: '200',
      method: 'GET',
      backend: '',
      host: 'a.wild\ncard',
      requests: 1,
      histograms: histograms(6),
    },
    {
      route: 'r-gone',
      status: '200',
      method: 'GET',
      backend: '',
      host: 'shop.test',
      requests: 8,
      histograms: histograms(7),
    },
  ],
};

/** A value as prom-client takes it; `metricName` names a histogram's `_bucket`, `_sum` or `_count`. */
interface PromValue {
  metricName?: string;
  labels: Record<string, string>;
  value: number;
}

const source = (metrics: RequestMetrics | undefined): RequestMetricsSource => ({
  read: () => Promise.resolve(metrics),
  table: () => table,
});

/** The HELP, TYPE and sample lines of a text, sorted, and how many lines it had (blank ones aside). */
function linesOf(text: string): { lines: string[]; count: number } {
  const lines = text.split('\n').filter((line) => line !== '');
  return { lines: [...lines].sort(), count: lines.length };
}

/**
 * The prom-client path the request metrics took before they were streamed, kept as the reference
 * for their text: one registry metric per name whose values each carry their own label object.
 */
function promClientRegistry(metrics: RequestMetrics | undefined): Registry {
  const registry = new Registry();
  const labelsOf = labelControllerSeries(table, controller);
  const series = (metrics?.series ?? []).flatMap((counts) => {
    const labels = labelsOf(counts);
    return labels === undefined ? [] : [{ labels, counts }];
  });
  const register = (name: string, help: string, type: string, values: () => PromValue[]) =>
    registry.registerMetric({
      name,
      help,
      type,
      aggregator: 'sum',
      get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => undefined,
    } as unknown as Parameters<Registry['registerMetric']>[0]);
  for (const { name, help, type, key } of REQUEST_METRICS) {
    register(name, help, type, () => {
      if (key === undefined) return series.map(({ labels, counts }) => ({ labels, value: counts.requests }));
      if (metrics === undefined) return [];
      const bounds = metrics.bounds[key];
      return series.flatMap(({ labels, counts }) => {
        const histogram = counts.histograms[key];
        if (histogram === undefined) return [];
        let cumulative = 0;
        const buckets = histogram.buckets.map((count, index) => {
          cumulative += count;
          const le = index < bounds.length ? String(bounds[index]) : '+Inf';
          return { metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative };
        });
        return [
          ...buckets,
          { metricName: `${name}_sum`, labels, value: histogram.sum },
          { metricName: `${name}_count`, labels, value: cumulative },
        ];
      });
    });
  }
  return registry;
}

async function streamedText(
  metrics: RequestMetrics | undefined,
  names?: ReadonlySet<string>,
): Promise<string> {
  return [...(await createRequestMetrics(source(metrics), controller).read(names))].join('');
}

describe('createRequestMetrics', () => {
  it('writes the lines prom-client wrote for the same counts and routes', async () => {
    const streamed = linesOf(await streamedText(input, new Set(REQUEST_METRIC_NAMES)));
    expect(streamed).toEqual(linesOf(await promClientRegistry(input).metrics()));
    expect(streamed.count).toBeGreaterThan(200);
  });

  it('writes the HELP and TYPE lines prom-client wrote while nginx does not answer', async () => {
    expect(linesOf(await streamedText(undefined, new Set(REQUEST_METRIC_NAMES)))).toEqual(
      linesOf(await promClientRegistry(undefined).metrics()),
    );
  });

  it('writes only the metrics named', async () => {
    const name = 'nginx_ingress_controller_bytes_sent';
    const text = await streamedText(input, new Set([name]));
    expect(linesOf(text)).toEqual(linesOf(await promClientRegistry(input).getSingleMetricAsString(name)));
  });

  it("names each series' route, Service and canary, and leaves out routes no longer served", async () => {
    const requests = (await streamedText(input))
      .split('\n')
      .filter((line) => line.startsWith('nginx_ingress_controller_requests{'));
    const own =
      'controller_namespace="ingress \\"nginx\\"",controller_class="k8s.io\\\\ingress",controller_pod="pod\\n1"';
    expect(requests).toContain(
      `nginx_ingress_controller_requests{status="200",method="GET",path="/split",namespace="shop",ingress="split",service="canary",canary="shop/canary:80",host="shop.test",${own}} 2`,
    );
    expect(requests).toContain(
      `nginx_ingress_controller_requests{status="503",method="OTHER",path="/h",namespace="web",ingress="",service="h",canary="",host="shop.test",${own}} 4`,
    );
    expect(requests).toHaveLength(input.series.length - 1);
  });

  it('reads nginx once for the scrapes of one second', async () => {
    const clock = createFakeClock({ now: 0 });
    let reads = 0;
    const metrics = createRequestMetrics(
      {
        read: () => {
          reads++;
          return Promise.resolve(input);
        },
        table: () => table,
      },
      controller,
      {},
      clock,
    );
    await metrics.read();
    clock.advance(999);
    await metrics.read(new Set(['nginx_ingress_controller_requests']));
    expect(reads).toBe(1);
    clock.advance(1);
    await metrics.read();
    expect(reads).toBe(2);
  });

  it('drops the host label with perHost false, keeping the others in their order', async () => {
    const metrics = createRequestMetrics(source(input), controller, { perHost: false });
    const requests = [...(await metrics.read())]
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('nginx_ingress_controller_requests{'));
    expect(requests).toHaveLength(input.series.length - 1);
    expect(requests.some((line) => line.includes('host='))).toBe(false);
    expect(requests).toContainEqual(
      expect.stringMatching(
        /^nginx_ingress_controller_requests\{status="200",method="GET",path="\/split",namespace="shop",ingress="split",service="canary",canary="shop\/canary:80",controller_namespace=/,
      ),
    );
  });

  it("labels the request's own host, escaped, and a request that matched no route with empty route labels", async () => {
    const unrouted: RequestSeries = {
      route: '',
      status: '404',
      method: 'GET',
      backend: '',
      host: 'nowhere.test',
      requests: 3,
      histograms: {},
    };
    const text = await streamedText({ ...input, series: [...input.series, unrouted] });
    expect(text).toContain('ingress="wild",service="external",canary="",host="a.wild\\ncard",');
    expect(text).toMatch(
      /nginx_ingress_controller_requests\{status="404",method="GET",path="",namespace="",ingress="",service="",canary="",host="nowhere.test",controller_namespace=[^}]*\} 3\n/,
    );
  });

  it('serves no line of an excluded metric, nor its name', async () => {
    const excluded = ['nginx_ingress_controller_requests', 'nginx_ingress_controller_response_size'];
    const metrics = createRequestMetrics(source(input), controller, { excluded });
    expect(metrics.names).not.toContain('nginx_ingress_controller_requests');
    expect(metrics.names).toContain('nginx_ingress_controller_request_size');
    const text = [...(await metrics.read())].join('');
    for (const name of excluded) expect(text).not.toContain(`${name}`);
    expect(text).toContain('nginx_ingress_controller_request_size_bucket{');
  });
});
