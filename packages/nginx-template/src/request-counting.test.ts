import { describe, expect, it } from 'vitest';
import { InvalidRenderOptionsError, UnsafeValueError } from './errors.js';
import {
  checkBucketBounds,
  DEFAULT_REQUEST_BUCKETS,
  DEFAULT_SERIES_PER_NAMESPACE,
  resolveRequestCounting,
  viewRequestCounting,
} from './request-counting.js';

describe('checkBucketBounds', () => {
  it('accepts finite numbers that strictly increase, negative ones too', () => {
    expect(checkBucketBounds([-1, 0, 0.5, 1e3])).toBeUndefined();
  });

  it('refuses an empty list, a repeated or decreasing bound, and a bound that is not finite', () => {
    expect(checkBucketBounds([])).toMatch(/at least one/);
    expect(checkBucketBounds([1, 1])).toMatch(/strictly increasing \(1 follows 1\)/);
    expect(checkBucketBounds([2, 1])).toMatch(/strictly increasing/);
    expect(checkBucketBounds([1, Infinity])).toMatch(/finite/);
    expect(checkBucketBounds([Number.NaN])).toMatch(/finite/);
  });
});

describe('resolveRequestCounting', () => {
  it('is undefined for ingress-nginx defaults, given or not, so the configuration hash stays', () => {
    expect(resolveRequestCounting(undefined)).toBeUndefined();
    expect(resolveRequestCounting({})).toBeUndefined();
    expect(
      resolveRequestCounting({
        buckets: { ...DEFAULT_REQUEST_BUCKETS },
        perHost: true,
        perUndefinedHost: false,
        excluded: [],
        seriesPerNamespace: DEFAULT_SERIES_PER_NAMESPACE,
      }),
    ).toBeUndefined();
  });

  it('fills in the defaults of what is not given, and sorts the histograms left out', () => {
    expect(resolveRequestCounting({ buckets: { time: [0.1, 1] }, excluded: ['u', 'b', 'u'] })).toEqual({
      buckets: { ...DEFAULT_REQUEST_BUCKETS, time: [0.1, 1] },
      perHost: true,
      perUndefinedHost: false,
      excluded: ['b', 'u'],
      seriesPerNamespace: DEFAULT_SERIES_PER_NAMESPACE,
      dictBytes: 16 * 1024 ** 2,
    });
    expect(resolveRequestCounting({ seriesPerNamespace: 0 })?.seriesPerNamespace).toBe(0);
    expect(resolveRequestCounting({ dictSize: '512k' })?.dictBytes).toBe(512 * 1024);
    expect(resolveRequestCounting({ dictSize: '16m' })).toBeUndefined();
  });

  it('throws naming the option for bad bounds or an unknown histogram', () => {
    expect(() => resolveRequestCounting({ buckets: { size: [10, 5] } })).toThrow(
      /option requestCounting\.buckets\.size must be strictly increasing/,
    );
    expect(() => resolveRequestCounting({ excluded: ['x' as 'd'] })).toThrow(InvalidRenderOptionsError);
    expect(() => resolveRequestCounting({ seriesPerNamespace: 1.5 })).toThrow(
      /option requestCounting\.seriesPerNamespace must be a whole number/,
    );
    expect(() => resolveRequestCounting({ seriesPerNamespace: -1 })).toThrow(InvalidRenderOptionsError);
    for (const dictSize of ['100k', '16', '1g', '16m; os.exit()'])
      expect(() => resolveRequestCounting({ dictSize })).toThrow(/option requestCounting\.dictSize must be/);
  });
});

describe('viewRequestCounting', () => {
  it('writes the bounds as Lua numbers and the flags as booleans', () => {
    const counting = resolveRequestCounting({ buckets: { length: [1e-7, 0.5, 2e21] }, perHost: false })!;
    expect(viewRequestCounting(counting)).toEqual({
      time: '0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10',
      length: '1e-7, 0.5, 2e+21',
      size: '10, 100, 1000, 10000, 100000, 1000000, 10000000',
      perHost: false,
      perUndefinedHost: false,
      excluded: [],
      seriesPerNamespace: DEFAULT_SERIES_PER_NAMESPACE,
      dictSize: 16 * 1024 ** 2,
    });
  });

  it('refuses settings buildConfiguration did not make: a bound that is not a number', () => {
    const counting = resolveRequestCounting({ perHost: false })!;
    const tampered = {
      ...counting,
      buckets: { ...counting.buckets, time: ['1 } os.exit() --' as unknown as number] },
    };
    expect(() => viewRequestCounting(tampered)).toThrow(UnsafeValueError);
    const limit = { ...counting, seriesPerNamespace: '1, os.exit()' as unknown as number };
    expect(() => viewRequestCounting(limit)).toThrow(UnsafeValueError);
  });
});
