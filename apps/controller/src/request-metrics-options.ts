/**
 * ingress-nginx's request metric flags (--time-buckets, --length-buckets, --size-buckets,
 * --metrics-per-host, --metrics-per-undefined-host, --exclude-socket-metrics) read into what nginx
 * counts and what /metrics serves, with the same defaults and checks (pkg/flags/flags.go), and our
 * --max-series-per-namespace.
 */
import {
  checkBucketBounds,
  REQUEST_METRICS,
  type RequestBuckets,
  type RequestCountingOptions,
} from '@ingresskit/nginx-template';
import { FlagError } from './errors.js';
import type { Flags } from './flags.js';

/** How requests are counted and served. */
export interface RequestMetricsOptions {
  buckets: RequestBuckets;
  /** Series carry the request's host (`--metrics-per-host`). */
  perHost: boolean;
  /** Hosts no Ingress names count too (`--metrics-per-undefined-host`). */
  perUndefinedHost: boolean;
  /** Full names of the request metrics neither counted nor served. */
  excluded: string[];
  /** Names `--exclude-socket-metrics` lists that are no request metric: ignored, as ingress-nginx does. */
  unknownExclusions: string[];
  /** Series one namespace may have (`--max-series-per-namespace`); 0: no limit. */
  seriesPerNamespace: number;
}

/** ingress-nginx's metric name prefix, which --exclude-socket-metrics may leave out. */
const PREFIX = 'nginx_ingress_controller_';

/** A decimal number as Go's ParseFloat reads one (no hexadecimal, no Inf or NaN). */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Go's ParseFloat spelling of +Inf, which Prometheus' client drops as a last bound (+Inf is always there). */
const POSITIVE_INFINITY = /^\+?inf(?:inity)?$/i;

/** The bounds of a bucket flag's value; throws FlagError naming the flag. */
export function parseBucketList(flag: string, value: string): number[] {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length > 1 && POSITIVE_INFINITY.test(parts.at(-1)!)) parts.pop();
  const bad = parts.find((part) => !DECIMAL.test(part));
  if (bad !== undefined)
    throw new FlagError(
      `--${flag} must be comma-separated numbers such as 0.1,0.5,1, not ${JSON.stringify(value)} (${JSON.stringify(bad)} is not a number)`,
    );
  const bounds = parts.map(Number);
  const problem = checkBucketBounds(bounds);
  if (problem !== undefined) throw new FlagError(`--${flag} ${problem}, not ${JSON.stringify(value)}`);
  return bounds;
}

/** The request metric options of `flags`; throws FlagError for a bad bucket list or flag pair. */
export function resolveRequestMetricsOptions(
  flags: Pick<
    Flags,
    | 'time-buckets'
    | 'length-buckets'
    | 'size-buckets'
    | 'metrics-per-host'
    | 'metrics-per-undefined-host'
    | 'exclude-socket-metrics'
    | 'max-series-per-namespace'
  >,
): RequestMetricsOptions {
  const seriesPerNamespace = flags['max-series-per-namespace'];
  if (!Number.isSafeInteger(seriesPerNamespace) || seriesPerNamespace < 0)
    throw new FlagError(
      `--max-series-per-namespace must be a whole number, 0 or more, not ${String(seriesPerNamespace)}`,
    );
  // ingress-nginx refuses the pair too: without the host label there is no host to count by.
  if (flags['metrics-per-undefined-host'] && !flags['metrics-per-host'])
    throw new FlagError('--metrics-per-undefined-host=true must be passed with --metrics-per-host=true');
  const served = new Set(REQUEST_METRICS.map((metric) => metric.name));
  const excluded = new Set<string>();
  const unknownExclusions: string[] = [];
  for (const raw of flags['exclude-socket-metrics'].split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const full = `${PREFIX}${name.startsWith(PREFIX) ? name.slice(PREFIX.length) : name}`;
    if (served.has(full)) excluded.add(full);
    else unknownExclusions.push(name);
  }
  return {
    buckets: {
      time: parseBucketList('time-buckets', flags['time-buckets']),
      length: parseBucketList('length-buckets', flags['length-buckets']),
      size: parseBucketList('size-buckets', flags['size-buckets']),
    },
    perHost: flags['metrics-per-host'],
    perUndefinedHost: flags['metrics-per-undefined-host'],
    excluded: [...excluded],
    unknownExclusions,
    seriesPerNamespace,
  };
}

/** What nginx is told: the buckets, the host label, and the histograms it does not count. */
export function requestCountingOf(options: RequestMetricsOptions): RequestCountingOptions {
  const excluded = new Set(options.excluded);
  return {
    buckets: options.buckets,
    perHost: options.perHost,
    perUndefinedHost: options.perUndefinedHost,
    seriesPerNamespace: options.seriesPerNamespace,
    excluded: REQUEST_METRICS.flatMap((metric) =>
      metric.key !== undefined && excluded.has(metric.name) ? [metric.key] : [],
    ),
  };
}
