import { describe, expect, it } from 'vitest';
import { parseRequestMetrics } from './request-metrics.js';

describe('parseRequestMetrics', () => {
  it('reads the bounds, then each series with its count and histograms, decoding the route id and host', () => {
    const text = [
      'd=0.1,1 q=10,20 u=0.1,1 r=10,20 c=0.1,1 h=0.1,1 b=10,100',
      'n\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t3',
      'd1\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t2',
      'd3\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t1',
      'ds\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t2.5',
      'c1\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t3',
      'cs\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t0.003',
      'h2\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t3',
      'hs\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t1.5',
      'b2\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t3',
      'bs\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t270',
      'n\tIngress/shop/odd%25id/r0/p0\t404\tOTHER\tshop/next:80\todd%09host\t1',
      'not a line',
      'n\tIngress/shop/cart/r0/p0\t500\tGET\t\tshop.test\tNaN',
    ].join('\n');
    const metrics = parseRequestMetrics(text);
    expect(metrics.bounds).toEqual({
      d: [0.1, 1],
      q: [10, 20],
      u: [0.1, 1],
      r: [10, 20],
      c: [0.1, 1],
      h: [0.1, 1],
      b: [10, 100],
    });
    expect(metrics.series).toEqual([
      {
        route: 'Ingress/shop/cart/r0/p0',
        status: '200',
        method: 'GET',
        backend: '',
        host: 'shop.test',
        requests: 3,
        histograms: {
          d: { buckets: [2, 0, 1], sum: 2.5 },
          c: { buckets: [3, 0, 0], sum: 0.003 },
          h: { buckets: [0, 3, 0], sum: 1.5 },
          b: { buckets: [0, 3, 0], sum: 270 },
        },
      },
      {
        route: 'Ingress/shop/odd%id/r0/p0',
        status: '404',
        method: 'OTHER',
        backend: 'shop/next:80',
        host: 'odd\thost',
        requests: 1,
        histograms: {},
      },
    ]);
  });

  it('reads the series of each namespace and the requests counted in none, by reason', () => {
    const metrics = parseRequestMetrics(
      [
        'd=0.1 q=10 u=0.1 r=10 c=0.1 h=0.1 b=10',
        '#\tmallory\t1000',
        '#\t\t2',
        '!\tl\tmallory\t5400',
        '!\tf\tdefault\t3',
        '!\tx\tdefault\t3',
        'n\tIngress/shop/cart/r0/p0\t200\tGET\t\tshop.test\t3',
      ].join('\n'),
    );
    expect(metrics.seriesPerNamespace).toEqual({ mallory: 1000, '': 2 });
    expect(metrics.uncounted).toEqual([
      { namespace: 'mallory', reason: 'series-limit', requests: 5400 },
      { namespace: 'default', reason: 'full', requests: 3 },
    ]);
    expect(metrics.series).toHaveLength(1);
    expect(parseRequestMetrics('d=0.1').uncounted).toBeUndefined();
  });

  it('reads requests that matched no route, and leaves the bounds of a histogram not counted empty', () => {
    const metrics = parseRequestMetrics(
      ['d=0.5 q=10', 'n\t\t404\tGET\t\t\t2', 'd2\t\t404\tGET\t\t\t2'].join('\n'),
    );
    expect(metrics.bounds.d).toEqual([0.5]);
    expect(metrics.bounds.b).toEqual([]);
    expect(metrics.series).toEqual([
      {
        route: '',
        status: '404',
        method: 'GET',
        backend: '',
        host: '',
        requests: 2,
        histograms: { d: { buckets: [0, 2], sum: 0 } },
      },
    ]);
  });
});
