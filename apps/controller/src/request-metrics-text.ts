/**
 * The Prometheus text of the request metrics, written series by series in bounded chunks rather
 * than built whole: a scrape of thousands of routes' histograms is tens of megabytes of text. Each
 * series' labels are escaped and joined once; a bucket line only appends its `le`. The text is
 * prom-client's for the same values (escaping, number formatting, HELP and TYPE lines).
 */
import {
  REQUEST_HISTOGRAMS,
  type HistogramCounts,
  type RequestHistogramKey,
  type RequestMetrics,
  type RequestSeries,
} from '@ingresskit/nginx-template';

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

/** A chunk is yielded once it holds this many characters (a line is never split). */
const CHUNK_CHARS = 64 * 1024;

/** The labels of one series, in exposition order; undefined leaves the series out. */
export type LabelsOf = (series: RequestSeries) => Record<string, string> | undefined;

/**
 * Yields the text of the request metrics of `metrics` in chunks of about 64 KiB, labelling each
 * series with `labelsOf`; only the metrics in `names` when given. Every metric has its HELP and
 * TYPE lines, with no series too.
 */
export function* renderRequestMetrics(
  metrics: RequestMetrics,
  labelsOf: LabelsOf,
  names?: ReadonlySet<string>,
): Generator<string, void, undefined> {
  const series: { labels: string; counts: RequestSeries }[] = [];
  for (const counts of metrics.series) {
    const labels = labelsOf(counts);
    if (labels !== undefined) series.push({ labels: formatLabels(labels), counts });
  }
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
  if (chunk !== '') yield chunk;
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

/** `name="value"` pairs joined by commas, values escaped as the text format (and prom-client) does. */
export function formatLabels(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeText(value).replaceAll('"', '\\"')}"`)
    .join(',');
}

function escapeText(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

/** A sample value or bucket bound as prom-client writes it: `+Inf`, `-Inf`, `Nan`, else JavaScript's. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
