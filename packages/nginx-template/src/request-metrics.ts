/**
 * The request counts an ingresskit nginx keeps (lua/ingresskit/request_metrics.lua), as GET
 * /metrics/requests on its control socket answers them: per route, status, method, backend and
 * host, a request count and seven histograms with the buckets nginx was configured with
 * (request-counting.ts); per namespace, the series it has and the requests counted in none.
 */

/** Where the control socket answers the request counts. */
export const REQUEST_METRICS_ENDPOINT_PATH = '/metrics/requests';

/** The histograms counted per request, by the name ingress-nginx gives them (without its prefix). */
export const REQUEST_HISTOGRAMS = {
  d: 'request_duration_seconds',
  u: 'response_duration_seconds',
  c: 'connect_duration_seconds',
  h: 'header_duration_seconds',
  q: 'request_size',
  r: 'response_size',
  b: 'bytes_sent',
} as const;

/** The field prefix of a histogram in the answer. */
export type RequestHistogramKey = keyof typeof REQUEST_HISTOGRAMS;

/** One histogram of one series: counts per bucket (not cumulative; one more than the bounds, for +Inf) and the sum. */
export interface HistogramCounts {
  buckets: number[];
  sum: number;
}

/** The requests of one route, status, method, backend and host since nginx started. */
export interface RequestSeries {
  /** The route's id; empty for requests that matched no route. */
  route: string;
  status: string;
  /** Upper case; made-up methods are counted as `OTHER`. */
  method: string;
  /** The backend a split chose; empty when the route has a single backend. */
  backend: string;
  /** The request's host (lower case); empty when series do not carry the host. */
  host: string;
  requests: number;
  histograms: Partial<Record<RequestHistogramKey, HistogramCounts>>;
}

/**
 * Why requests were not counted: their namespace had as many series as it may
 * (`series-limit`), or nginx's counting dict was full (`full`). Their series were not created.
 */
export type UncountedReason = 'series-limit' | 'full';

/** The requests of one namespace left out of the series for one reason, since nginx started. */
export interface UncountedRequests {
  /** The namespace of the requests' route; empty for requests no namespace's route answered. */
  namespace: string;
  reason: UncountedReason;
  requests: number;
}

/** The whole answer. */
export interface RequestMetrics {
  /** The upper bounds of each histogram's buckets, as nginx counts them; empty for one not counted. */
  bounds: Record<RequestHistogramKey, number[]>;
  series: RequestSeries[];
  /** The series each namespace has (empty: requests no namespace's route answered); absent when none. */
  seriesPerNamespace?: Record<string, number>;
  /** Requests counted in no series; absent when none. */
  uncounted?: UncountedRequests[];
}

const UNCOUNTED_REASONS: Readonly<Record<string, UncountedReason>> = { l: 'series-limit', f: 'full' };

/**
 * A route id from $ingresskit_route, or a host a client sent, where nginx's Lua percent-encodes
 * control characters and `%`.
 */
function decodeTag(tag: string): string {
  return tag.includes('%')
    ? tag.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    : tag;
}

function isHistogramKey(key: string): key is RequestHistogramKey {
  return Object.hasOwn(REQUEST_HISTOGRAMS, key);
}

/**
 * Parses what GET /metrics/requests answers. Lines that do not parse (there should be none) are
 * skipped rather than failing the scrape of every other series.
 */
export function parseRequestMetrics(text: string): RequestMetrics {
  const [header = '', ...lines] = text.split('\n');
  const bounds = Object.fromEntries(
    Object.keys(REQUEST_HISTOGRAMS).map((key) => [key, []]),
  ) as unknown as Record<RequestHistogramKey, number[]>;
  for (const part of header.split(' ')) {
    const [key = '', list = ''] = part.split('=');
    if (isHistogramKey(key)) bounds[key] = list.split(',').map(Number);
  }
  const bySeries = new Map<string, RequestSeries>();
  const seriesPerNamespace: Record<string, number> = {};
  const uncounted: UncountedRequests[] = [];
  for (const line of lines) {
    const fields = line.split('\t');
    if (fields[0] === '#' && fields.length === 3) {
      const value = Number(fields[2]);
      if (Number.isFinite(value)) seriesPerNamespace[fields[1]!] = value;
      continue;
    }
    if (fields[0] === '!' && fields.length === 4) {
      const reason = UNCOUNTED_REASONS[fields[1]!];
      const requests = Number(fields[3]);
      if (reason !== undefined && Number.isFinite(requests))
        uncounted.push({ namespace: fields[2]!, reason, requests });
      continue;
    }
    if (fields.length !== 7) continue;
    const [field, route, status, method, backend, host, rawValue] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const value = Number(rawValue);
    if (!Number.isFinite(value)) continue;
    const key = `${route}\t${status}\t${method}\t${backend}\t${host}`;
    let series = bySeries.get(key);
    if (series === undefined) {
      series = {
        route: decodeTag(route),
        status,
        method,
        backend,
        host: decodeTag(host),
        requests: 0,
        histograms: {},
      };
      bySeries.set(key, series);
    }
    if (field === 'n') {
      series.requests = value;
      continue;
    }
    const prefix = field.charAt(0);
    if (!isHistogramKey(prefix)) continue;
    const histogram = (series.histograms[prefix] ??= {
      buckets: new Array<number>(bounds[prefix].length + 1).fill(0),
      sum: 0,
    });
    const rest = field.slice(1);
    if (rest === 's') histogram.sum = value;
    else {
      const index = Number(rest) - 1;
      if (Number.isInteger(index) && index >= 0 && index < histogram.buckets.length)
        histogram.buckets[index] = value;
    }
  }
  return {
    bounds,
    series: [...bySeries.values()],
    ...(Object.keys(seriesPerNamespace).length === 0 ? {} : { seriesPerNamespace }),
    ...(uncounted.length === 0 ? {} : { uncounted }),
  };
}
