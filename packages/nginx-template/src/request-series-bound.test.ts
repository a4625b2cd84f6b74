import type { RequestSeries } from './request-metrics.js';
import { describe, expect, it } from 'vitest';
import { boundRequestSeries } from './request-series-bound.js';

function series(namespace: string, path: string, requests: number, route = path): RequestSeries {
  return {
    route,
    status: '200',
    method: 'GET',
    backend: namespace,
    host: '',
    requests,
    histograms: { d: { buckets: [requests, 0], sum: requests / 10 } },
  };
}

const labelsOf = (each: RequestSeries) => ({ namespace: each.backend, path: each.route.split('#')[0]! });

describe('boundRequestSeries', () => {
  it('adds up the series whose labels are equal, as a Prometheus client adds observations', () => {
    const { series: served, limited } = boundRequestSeries(
      [series('shop', '/a', 2, '/a#host-1'), series('shop', '/a', 3, '/a#host-2'), series('shop', '/b', 1)],
      labelsOf,
      0,
    );
    expect(served.map(({ labels, counts }) => [labels, counts.requests, counts.histograms.d])).toEqual([
      ['namespace="shop",path="/a"', 5, { buckets: [5, 0], sum: 0.5 }],
      ['namespace="shop",path="/b"', 1, { buckets: [1, 0], sum: 0.1 }],
    ]);
    expect(limited.size).toBe(0);
  });

  it("keeps at most the bound of label sets per namespace, the first by labels, and never another namespace's", () => {
    const tenant = Array.from({ length: 6 }, (_, index) => series('mallory', `/p${5 - index}`, 10));
    const { series: served, limited } = boundRequestSeries(
      [...tenant, series('default', '/victim', 7)],
      labelsOf,
      2,
    );
    expect(served.map(({ labels }) => labels)).toEqual([
      'namespace="mallory",path="/p0"',
      'namespace="mallory",path="/p1"',
      'namespace="default",path="/victim"',
    ]);
    expect(limited).toEqual(new Map([['mallory', 40]]));
  });

  it('leaves out what labelsOf does not label', () => {
    expect(boundRequestSeries([series('shop', '/gone', 1)], () => undefined, 1).series).toEqual([]);
  });
});
