import { DEFAULT_REQUEST_BUCKETS } from '@ingresskit/nginx-template';
import { describe, expect, it } from 'vitest';
import { FlagError } from './errors.js';
import { parseRunFlags } from './flags.js';
import {
  parseBucketList,
  requestCountingOf,
  resolveRequestMetricsOptions,
} from './request-metrics-options.js';

describe('parseBucketList', () => {
  it('reads comma-separated decimal numbers, spaces and exponents allowed', () => {
    expect(parseBucketList('time-buckets', '0.1, .5,1,2.5e1')).toEqual([0.1, 0.5, 1, 25]);
  });

  it('drops a last +Inf bound, as Prometheus does (its +Inf bucket is always there)', () => {
    expect(parseBucketList('time-buckets', '0.5,1,+Inf')).toEqual([0.5, 1]);
    expect(parseBucketList('size-buckets', '10,inf')).toEqual([10]);
  });

  it('throws a FlagError naming the flag for a word, an empty entry, Inf elsewhere or hexadecimal', () => {
    for (const value of ['0.1,fast', '0.1,,1', '', 'Inf', 'Inf,1', '1,-Inf', '0x10']) {
      expect(() => parseBucketList('time-buckets', value)).toThrow(FlagError);
      expect(() => parseBucketList('time-buckets', value)).toThrow(
        /^--time-buckets must be comma-separated numbers/,
      );
    }
  });

  it('throws a FlagError naming the flag for bounds that do not strictly increase', () => {
    expect(() => parseBucketList('size-buckets', '10,100,100')).toThrow(
      '--size-buckets must be strictly increasing (100 follows 100), not "10,100,100"',
    );
    expect(() => parseBucketList('length-buckets', '20,10')).toThrow(
      /^--length-buckets must be strictly increasing/,
    );
  });
});

describe('resolveRequestMetricsOptions', () => {
  it("has ingress-nginx's defaults: its buckets, the host label, undefined hosts not counted, nothing excluded", () => {
    const options = resolveRequestMetricsOptions(parseRunFlags([], {}));
    expect(options).toEqual({
      buckets: DEFAULT_REQUEST_BUCKETS,
      perHost: true,
      perUndefinedHost: false,
      excluded: [],
      unknownExclusions: [],
      seriesPerNamespace: 1000,
    });
  });

  it('reads --max-series-per-namespace, 0 for no limit, and refuses what is not a whole number', () => {
    const read = (value: string) =>
      resolveRequestMetricsOptions(parseRunFlags([`--max-series-per-namespace=${value}`], {}));
    expect(read('200').seriesPerNamespace).toBe(200);
    expect(read('0').seriesPerNamespace).toBe(0);
    expect(() => read('-1')).toThrow(/--max-series-per-namespace must be/);
    expect(() => read('2.5')).toThrow(FlagError);
  });

  it('reads the flags from the command line and the environment', () => {
    const flags = parseRunFlags(
      ['--time-buckets=0.5,2', '--metrics-per-host=false', '--monitor-max-batch-size=5'],
      {
        INGRESSKIT_SIZE_BUCKETS: '1000,1000000',
      },
    );
    const options = resolveRequestMetricsOptions(flags);
    expect(options.buckets).toEqual({ ...DEFAULT_REQUEST_BUCKETS, time: [0.5, 2], size: [1000, 1000000] });
    expect(options.perHost).toBe(false);
  });

  it('takes metric names with or without the prefix, and sets aside names that are no request metric', () => {
    const options = resolveRequestMetricsOptions(
      parseRunFlags(
        [
          '--exclude-socket-metrics=nginx_ingress_controller_header_duration_seconds, requests,nginx_ingress_controller_success,bytes_sent,response_duration_secon',
        ],
        {},
      ),
    );
    expect(options.excluded).toEqual([
      'nginx_ingress_controller_header_duration_seconds',
      'nginx_ingress_controller_requests',
      'nginx_ingress_controller_bytes_sent',
    ]);
    expect(options.unknownExclusions).toEqual([
      'nginx_ingress_controller_success',
      'response_duration_secon',
    ]);
    // nginx is told to leave out the histograms only: the requests counter keeps its series.
    expect(requestCountingOf(options).excluded).toEqual(['h', 'b']);
  });

  it('refuses --metrics-per-undefined-host without --metrics-per-host, as ingress-nginx does', () => {
    expect(() =>
      resolveRequestMetricsOptions(
        parseRunFlags(['--metrics-per-undefined-host', '--metrics-per-host=false'], {}),
      ),
    ).toThrow('--metrics-per-undefined-host=true must be passed with --metrics-per-host=true');
  });
});
