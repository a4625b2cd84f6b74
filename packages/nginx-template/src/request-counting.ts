/**
 * How nginx counts requests (lua/ingresskit/request_metrics.lua), as ingress-nginx's metric flags
 * say: the histograms' buckets, whether series carry the request's host (and whether hosts no
 * route serves by name count), and which histograms are not counted at all. Checked once here.
 */
import { InvalidRenderOptionsError, UnsafeValueError } from './errors.js';
import { REQUEST_HISTOGRAMS, type RequestHistogramKey } from './request-metrics.js';

/** The upper bounds of the three kinds of histogram (ingress-nginx's time, length and size buckets). */
export interface RequestBuckets {
  /** The four duration histograms (`--time-buckets`). */
  time: readonly number[];
  /** request_size and response_size (`--length-buckets`). */
  length: readonly number[];
  /** bytes_sent (`--size-buckets`). */
  size: readonly number[];
}

/** The kind of buckets each histogram takes. */
export const BUCKET_KIND_OF: Readonly<Record<RequestHistogramKey, keyof RequestBuckets>> = {
  d: 'time',
  u: 'time',
  c: 'time',
  h: 'time',
  q: 'length',
  r: 'length',
  b: 'size',
};

/**
 * ingress-nginx's defaults: Prometheus' DefBuckets, LinearBuckets(10, 10, 10) and
 * ExponentialBuckets(10, 10, 7).
 */
export const DEFAULT_REQUEST_BUCKETS: RequestBuckets = {
  time: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  length: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
  size: [10, 100, 1000, 10000, 100000, 1000000, 10000000],
};

/** Options of the counting; every field defaults to ingress-nginx's default. */
export interface RequestCountingOptions {
  buckets?: Partial<RequestBuckets>;
  /** Series carry the request's host (`--metrics-per-host`); default true. */
  perHost?: boolean;
  /**
   * With `perHost`, requests whose host is no hostname served (a wildcard's, or none) count too,
   * under the host the client sent (`--metrics-per-undefined-host`); default false.
   */
  perUndefinedHost?: boolean;
  /** Histograms neither counted nor served (`--exclude-socket-metrics`). */
  excluded?: readonly RequestHistogramKey[];
  /**
   * Series one namespace may have (`--max-series-per-namespace`): a request whose series
   * would pass it is counted as uncounted instead; 0: no limit. Default
   * {@link DEFAULT_SERIES_PER_NAMESPACE}.
   */
  seriesPerNamespace?: number;
  /**
   * Size of nginx's `ingresskit_metrics` dict, which holds the series (`512k`, `16m`; at least
   * 256k): when full, new series are not counted and none is forgotten. Default `16m`.
   */
  dictSize?: string;
}

/**
 * Series one namespace may have by default. A series of steady requests takes about 4 KiB of the
 * 16 MiB `ingresskit_metrics` dict (one number per non-empty bucket), so some four namespaces at
 * this limit fill it: one tenant cannot.
 */
export const DEFAULT_SERIES_PER_NAMESPACE = 1000;

/** The default size of the `ingresskit_metrics` dict, in bytes. */
const DEFAULT_DICT_BYTES = 16 * 1024 ** 2;

/** The checked counting, in Settings only when it differs from the defaults (the hash stays). */
export interface RequestCounting {
  buckets: RequestBuckets;
  perHost: boolean;
  perUndefinedHost: boolean;
  /** Sorted. */
  excluded: RequestHistogramKey[];
  seriesPerNamespace: number;
  dictBytes: number;
}

/** A bucket list's problem, or undefined when it is finite numbers, strictly increasing, at least one. */
export function checkBucketBounds(bounds: readonly number[]): string | undefined {
  if (bounds.length === 0) return 'must list at least one bucket';
  for (const [index, bound] of bounds.entries()) {
    if (!Number.isFinite(bound)) return `must list finite numbers (got ${String(bound)})`;
    if (index > 0 && bound <= bounds[index - 1]!)
      return `must be strictly increasing (${String(bound)} follows ${String(bounds[index - 1])})`;
  }
  return undefined;
}

/**
 * The checked counting of `options`, or undefined when it is the default one. Throws
 * InvalidRenderOptionsError naming the option at fault.
 */
export function resolveRequestCounting(
  options: RequestCountingOptions | undefined,
): RequestCounting | undefined {
  if (options === undefined) return undefined;
  const buckets = { ...DEFAULT_REQUEST_BUCKETS };
  for (const kind of ['time', 'length', 'size'] as const) {
    const bounds = options.buckets?.[kind];
    if (bounds === undefined) continue;
    const problem = checkBucketBounds(bounds);
    if (problem !== undefined)
      throw new InvalidRenderOptionsError(`requestCounting.buckets.${kind}`, problem);
    buckets[kind] = [...bounds];
  }
  const excluded = [...new Set(options.excluded ?? [])].sort();
  for (const key of excluded) {
    if (!Object.hasOwn(REQUEST_HISTOGRAMS, key))
      throw new InvalidRenderOptionsError(
        'requestCounting.excluded',
        `has no histogram ${JSON.stringify(key)}`,
      );
  }
  const seriesPerNamespace = options.seriesPerNamespace ?? DEFAULT_SERIES_PER_NAMESPACE;
  if (!Number.isSafeInteger(seriesPerNamespace) || seriesPerNamespace < 0)
    throw new InvalidRenderOptionsError(
      'requestCounting.seriesPerNamespace',
      `must be a whole number, 0 or more (got ${String(seriesPerNamespace)})`,
    );
  const counting: RequestCounting = {
    buckets,
    perHost: options.perHost !== false,
    perUndefinedHost: options.perUndefinedHost === true,
    excluded,
    seriesPerNamespace,
    dictBytes: readDictSize(options.dictSize),
  };
  return isDefault(counting) ? undefined : counting;
}

function isDefault(counting: RequestCounting): boolean {
  const sameBounds = (kind: keyof RequestBuckets) =>
    counting.buckets[kind].length === DEFAULT_REQUEST_BUCKETS[kind].length &&
    counting.buckets[kind].every((bound, index) => bound === DEFAULT_REQUEST_BUCKETS[kind][index]);
  return (
    sameBounds('time') &&
    sameBounds('length') &&
    sameBounds('size') &&
    counting.perHost &&
    !counting.perUndefinedHost &&
    counting.excluded.length === 0 &&
    counting.seriesPerNamespace === DEFAULT_SERIES_PER_NAMESPACE &&
    counting.dictBytes === DEFAULT_DICT_BYTES
  );
}

/** The bytes of a dict size (`512k`, `16m`); throws InvalidRenderOptionsError naming the option. */
function readDictSize(size: string | undefined): number {
  if (size === undefined) return DEFAULT_DICT_BYTES;
  const match = /^([1-9]\d{0,6})([km])$/i.exec(size);
  const bytes = match === null ? NaN : Number(match[1]) * 1024 ** (match[2]!.toLowerCase() === 'k' ? 1 : 2);
  if (!(bytes >= 256 * 1024) || bytes > 64 * 1024 ** 3)
    throw new InvalidRenderOptionsError(
      'requestCounting.dictSize',
      `must be a size such as 512k or 16m, at least 256k (got ${JSON.stringify(size)})`,
    );
  return bytes;
}

/** What nginx.conf's call of request_metrics.configure is rendered from: Lua literals. */
export interface RequestCountingView {
  time: string;
  length: string;
  size: string;
  perHost: boolean;
  perUndefinedHost: boolean;
  excluded: RequestHistogramKey[];
  seriesPerNamespace: number;
  /** The size of the dict, in bytes. */
  dictSize: number;
}

/**
 * The Lua literals of `counting`. Each bound is checked to be a finite number again, so its text
 * (JavaScript's, which Lua reads back as the same double) is a number and nothing else; throws
 * UnsafeValueError for settings buildConfiguration did not make.
 */
export function viewRequestCounting(counting: RequestCounting): RequestCountingView {
  const list = (bounds: readonly number[]) =>
    bounds
      .map((bound) => {
        if (typeof bound !== 'number' || !Number.isFinite(bound))
          throw new UnsafeValueError(`request bucket ${JSON.stringify(bound)} is not a finite number`);
        return String(bound);
      })
      .join(', ');
  for (const key of counting.excluded) {
    if (!Object.hasOwn(REQUEST_HISTOGRAMS, key))
      throw new UnsafeValueError(`excluded histogram ${JSON.stringify(key)} is not one`);
  }
  for (const [what, value] of [
    ['series per namespace', counting.seriesPerNamespace],
    ['dict size', counting.dictBytes],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new UnsafeValueError(`${what} ${JSON.stringify(value)} is not a whole number`);
  }
  return {
    seriesPerNamespace: counting.seriesPerNamespace,
    dictSize: counting.dictBytes,
    time: list(counting.buckets.time),
    length: list(counting.buckets.length),
    size: list(counting.buckets.size),
    perHost: counting.perHost === true,
    perUndefinedHost: counting.perUndefinedHost === true,
    excluded: counting.excluded,
  };
}
