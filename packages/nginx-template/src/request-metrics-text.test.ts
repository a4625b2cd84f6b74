import { describe, expect, it } from 'vitest';
import type { RequestMetrics, RequestSeries } from './request-metrics.js';
import {
  formatValue,
  REQUEST_METRIC_NAMES,
  renderRequestMetrics,
  SERIES_METRIC_NAMES,
} from './request-metrics-text.js';
import { formatLabels } from './request-series-bound.js';

const bounds = (list: number[]) =>
  ({ d: list, u: list, c: list, h: list, q: list, r: list, b: list }) as RequestMetrics['bounds'];

const series = (route: string, histograms: RequestSeries['histograms'] = {}): RequestSeries => ({
  route,
  status: '200',
  method: 'GET',
  backend: '',
  host: '',
  requests: 3,
  histograms,
});

const render = (metrics: RequestMetrics, names?: ReadonlySet<string>) =>
  [...renderRequestMetrics(metrics, (each) => ({ path: each.route, method: each.method }), names)].join('');

describe('formatLabels', () => {
  it('escapes backslashes, double quotes and newlines in label values', () => {
    expect(formatLabels({ path: 'a\\b"c\nd', host: 'x' })).toBe('path="a\\\\b\\"c\\nd",host="x"');
  });
});

describe('formatValue', () => {
  it('writes infinities and NaN as prom-client does, other numbers as JavaScript does', () => {
    expect([Infinity, -Infinity, Number.NaN, 0.005, 1e7, 1e21, 0.1 + 0.2].map(formatValue)).toEqual([
      '+Inf',
      '-Inf',
      'Nan',
      '0.005',
      '10000000',
      '1e+21',
      '0.30000000000000004',
    ]);
  });
});

describe('renderRequestMetrics', () => {
  it('writes cumulative buckets with le bounds as String() writes them and +Inf last, then _sum and _count', () => {
    const text = render({
      bounds: bounds([0.005, 2.5, 1e7]),
      series: [series('/"q"', { d: { buckets: [1, 0, 2, 4], sum: 1.5 } })],
    });
    const labels = 'path="/\\"q\\"",method="GET"';
    const name = 'nginx_ingress_controller_request_duration_seconds';
    expect(text).toContain(
      [
        `# HELP ${name} The request processing time in seconds`,
        `# TYPE ${name} histogram`,
        `${name}_bucket{${labels},le="0.005"} 1`,
        `${name}_bucket{${labels},le="2.5"} 1`,
        `${name}_bucket{${labels},le="10000000"} 3`,
        `${name}_bucket{${labels},le="+Inf"} 7`,
        `${name}_sum{${labels}} 1.5`,
        `${name}_count{${labels}} 7`,
        '',
      ].join('\n'),
    );
    expect(text).toContain(`nginx_ingress_controller_requests{${labels}} 3\n`);
  });

  it('writes HELP and TYPE of every metric when there are no series, and only the named ones when asked', () => {
    const empty = render({ bounds: bounds([]), series: [] });
    expect(empty.split('\n').filter((line) => line.startsWith('# TYPE '))).toHaveLength(
      REQUEST_METRIC_NAMES.length + SERIES_METRIC_NAMES.length,
    );
    expect(empty.split('\n').filter((line) => !line.startsWith('# '))).toEqual(['']);
    const only = render(
      { bounds: bounds([1]), series: [series('/', { q: { buckets: [1, 1], sum: 20 } })] },
      new Set(['nginx_ingress_controller_request_size']),
    );
    expect(only.split('\n').filter((line) => line.startsWith('# TYPE '))).toEqual([
      '# TYPE nginx_ingress_controller_request_size histogram',
    ]);
    expect(only).toContain('nginx_ingress_controller_request_size_count{path="/",method="GET"} 2\n');
  });

  it("writes each namespace's series and the requests counted in none, nginx's and those past the bound", () => {
    const labelsOf = (each: RequestSeries) => ({ namespace: each.host, path: each.route });
    const metrics: RequestMetrics = {
      bounds: bounds([]),
      series: ['/a', '/b', '/c'].map((path) => ({ ...series(path), host: 'mallory' })),
      seriesPerNamespace: { mallory: 3, '': 1 },
      uncounted: [
        { namespace: 'mallory', reason: 'series-limit', requests: 40 },
        { namespace: 'default', reason: 'full', requests: 2 },
      ],
    };
    const text = [...renderRequestMetrics(metrics, labelsOf, undefined, 2)].join('');
    expect(text).toContain('nginx_ingress_controller_requests{namespace="mallory",path="/a"} 3\n');
    expect(text).toContain('nginx_ingress_controller_requests{namespace="mallory",path="/b"} 3\n');
    expect(text).not.toContain('path="/c"');
    expect(text).toContain('# TYPE ingresskit_request_series gauge\n');
    expect(text).toContain('ingresskit_request_series{namespace="mallory"} 3\n');
    expect(text).toContain('ingresskit_request_series{namespace=""} 1\n');
    expect(text).toContain('# TYPE ingresskit_uncounted_requests_total counter\n');
    expect(text).toContain(
      'ingresskit_uncounted_requests_total{namespace="mallory",reason="series-limit"} 43\n',
    );
    expect(text).toContain('ingresskit_uncounted_requests_total{namespace="default",reason="full"} 2\n');
  });

  it('leaves out the series labelsOf does not label', () => {
    const chunks = renderRequestMetrics({ bounds: bounds([]), series: [series('/gone')] }, () => undefined);
    expect([...chunks].join('')).not.toContain('/gone');
  });

  it('yields chunks of bounded size that end with whole lines', () => {
    const many = Array.from({ length: 2_000 }, (_, index) =>
      series(`/route-${index}`, { d: { buckets: [1, 2, 3], sum: 0.25 } }),
    );
    const chunks = [
      ...renderRequestMetrics({ bounds: bounds([0.1, 1]), series: many }, (each) => ({ path: each.route })),
    ];
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThan(80 * 1024);
      expect(chunk.endsWith('\n')).toBe(true);
    }
  });
});
