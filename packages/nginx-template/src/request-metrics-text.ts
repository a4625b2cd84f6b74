/**
 * ingress-nginx's request metrics as Prometheus text, from the counts nginx keeps
 * (request-metrics.ts): its metric names, HELP texts and buckets, so that its dashboards and alerts
 * keep working. The text is written series by series in bounded chunks rather than built whole: a
 * scrape of thousands of routes' histograms is tens of megabytes of text. Each series' labels are
 * escaped and joined once; a bucket line only appends its `le`. The text is prom-client's for the
 * same values (escaping, number formatting, HELP and TYPE lines).
 */
import {
  REQUEST_HISTOGRAMS,
  type HistogramCounts,
  type RequestHistogramKey,
  type RequestMetrics,
} from './request-metrics.js';
import { boundRequestSeries, escapeText, formatLabels, type LabelsOf } from './request-series-bound.js';

/** ingress-nginx's metric name prefix. */
const PREFIX = 'nginx_ingress_controller_';

type HistogramName = (typeof REQUEST_HISTOGRAMS)[RequestHistogramKey];

const HELP: Record<'requests' | HistogramName, string> = {
  requests: 'The total number of client requests',
  request_duration_seconds: 'The request processing time in seconds',
  response_duration_seconds: 'The time spent on receiving the response from the upstream server',
  connect_duration_seconds: 'The time spent on establishing a connection with the upstream server',
  header_duration_seconds: 'The time spent on receiving first header from the upstream server',
  request_size: 'The request length (including request line, header, and request body)',
  response_size: 'The response length (including request line, header, and request body)',
  bytes_sent: 'DEPRECATED The number of bytes sent to a client',
};

/** One request metric: its full name, HELP text and type; a histogram's field in nginx's answer. */
export interface RequestMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  key?: RequestHistogramKey;
}

/** The request metrics, the counter first, then the histograms. */
export const REQUEST_METRICS: readonly RequestMetric[] = [
  { name: `${PREFIX}requests`, help: HELP.requests, type: 'counter' },
  ...(Object.entries(REQUEST_HISTOGRAMS) as [RequestHistogramKey, HistogramName][]).map(
    ([key, name]): RequestMetric => ({ name: `${PREFIX}${name}`, help: HELP[name], type: 'histogram', key }),
  ),
];

/** The full names of the request metrics. */
export const REQUEST_METRIC_NAMES: readonly string[] = REQUEST_METRICS.map((metric) => metric.name);

/** The series nginx has per namespace, which `--max-series-per-namespace` bounds. */
const SERIES_METRIC = {
  name: 'ingresskit_request_series',
  help: "Request metric series of each namespace in nginx (empty: requests no namespace's route answered).",
};

/** Requests left out of the request metrics because their series could not be created. */
const UNCOUNTED_METRIC = {
  name: 'ingresskit_uncounted_requests_total',
  help: "Requests counted in no request metric series: their namespace had --max-series-per-namespace series (series-limit), or nginx's metric memory was full (full).",
};

/** The full names of what is served of the series themselves: how many, and what went uncounted. */
export const SERIES_METRIC_NAMES: readonly string[] = [SERIES_METRIC.name, UNCOUNTED_METRIC.name];

/** A chunk is yielded once it holds this many characters (a line is never split). */
const CHUNK_CHARS = 64 * 1024;

/**
 * Yields the text of the request metrics of `metrics` in chunks of about 64 KiB, labelling each
 * series with `labelsOf` (series with equal labels added together, at most `seriesPerNamespace`
 * label sets per namespace, 0: all), then the series per namespace and the requests counted in
 * none; only the metrics in `names` when given. Every metric has its HELP and TYPE lines, with no
 * series too.
 */
export function* renderRequestMetrics(
  metrics: RequestMetrics,
  labelsOf: LabelsOf,
  names?: ReadonlySet<string>,
  seriesPerNamespace = 0,
): Generator<string, void, undefined> {
  const { series, limited } = boundRequestSeries(metrics.series, labelsOf, seriesPerNamespace);
  let chunk = '';
  for (const { name, help, type, key } of REQUEST_METRICS) {
    if (names !== undefined && !names.has(name)) continue;
    chunk += `# HELP ${name} ${escapeText(help)}\n# TYPE ${name} ${type}\n`;
    // prom-client writes a bound as String() does, as its own histograms' `le`.
    const bounds = key === undefined ? [] : metrics.bounds[key].map((bound) => `le="${String(bound)}"}`);
    for (const { labels, counts } of series) {
      if (key === undefined) chunk += sample(name, labels, counts.requests);
      else chunk += histogramLines(name, labels, bounds, counts.histograms[key]);
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
  }
  chunk += seriesLines(metrics, limited, names);
  if (chunk !== '') yield chunk;
}

/** The lines of the series per namespace and of the uncounted requests (only those `names` names). */
function seriesLines(
  metrics: RequestMetrics,
  limited: Map<string, number>,
  names?: ReadonlySet<string>,
): string {
  let lines = '';
  if (names === undefined || names.has(SERIES_METRIC.name)) {
    lines += `# HELP ${SERIES_METRIC.name} ${escapeText(SERIES_METRIC.help)}\n# TYPE ${SERIES_METRIC.name} gauge\n`;
    for (const [namespace, count] of Object.entries(metrics.seriesPerNamespace ?? {}))
      lines += sample(SERIES_METRIC.name, formatLabels({ namespace }), count);
  }
  if (names === undefined || names.has(UNCOUNTED_METRIC.name)) {
    const uncounted = new Map<string, number>();
    const add = (namespace: string, reason: string, requests: number) => {
      const labels = formatLabels({ namespace, reason });
      uncounted.set(labels, (uncounted.get(labels) ?? 0) + requests);
    };
    for (const { namespace, reason, requests } of metrics.uncounted ?? []) add(namespace, reason, requests);
    for (const [namespace, requests] of limited) add(namespace, 'series-limit', requests);
    lines += `# HELP ${UNCOUNTED_METRIC.name} ${escapeText(UNCOUNTED_METRIC.help)}\n# TYPE ${UNCOUNTED_METRIC.name} counter\n`;
    for (const [labels, requests] of uncounted) lines += sample(UNCOUNTED_METRIC.name, labels, requests);
  }
  return lines;
}

/** A series' cumulative buckets (`bounds` are the `le="…"}` ends of their lines), `_sum` and `_count`. */
function histogramLines(
  name: string,
  labels: string,
  bounds: string[],
  histogram: HistogramCounts | undefined,
): string {
  if (histogram === undefined) return '';
  const bucket = `${name}_bucket{${labels === '' ? '' : `${labels},`}`;
  let lines = '';
  let cumulative = 0;
  for (let index = 0; index < histogram.buckets.length; index++) {
    cumulative += histogram.buckets[index]!;
    lines += `${bucket}${bounds[index] ?? 'le="+Inf"}'} ${formatValue(cumulative)}\n`;
  }
  return lines + sample(`${name}_sum`, labels, histogram.sum) + sample(`${name}_count`, labels, cumulative);
}

function sample(name: string, labels: string, value: number): string {
  return `${name}${labels === '' ? '' : `{${labels}}`} ${formatValue(value)}\n`;
}

/** A sample value or bucket bound as prom-client writes it: `+Inf`, `-Inf`, `Nan`, else JavaScript's. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
