/**
 * nginx's request series as a scrape is served them: labelled, those with the same labels
 * added together (as a Prometheus client adds observations of one label set), and at most a
 * number of label sets per namespace. nginx already refuses a namespace's series past that number
 * (request_metrics.lua); this bound holds what is served to it whatever nginx answered.
 */
import type { HistogramCounts, RequestHistogramKey, RequestSeries } from './request-metrics.js';

/** The labels of one series, in exposition order; undefined leaves the series out. */
export type LabelsOf = (series: RequestSeries) => Record<string, string> | undefined;

/** A served series: its labels, written once, and its counts. */
export interface LabelledSeries {
  labels: string;
  counts: RequestSeries;
}

/** The series to serve, and per namespace the requests of the label sets past its bound. */
export interface BoundedSeries {
  series: LabelledSeries[];
  /** Namespace → requests left out because the namespace had `seriesPerNamespace` label sets. */
  limited: Map<string, number>;
}

/**
 * Labels `all` with `labelsOf`, adds up the series with equal labels, and keeps at most
 * `seriesPerNamespace` label sets per namespace (0: all), the first in the order of their labels,
 * so that the same series are served from one scrape to the next.
 */
export function boundRequestSeries(
  all: readonly RequestSeries[],
  labelsOf: LabelsOf,
  seriesPerNamespace: number,
): BoundedSeries {
  const byNamespace = new Map<string, Map<string, RequestSeries>>();
  for (const counts of all) {
    const labels = labelsOf(counts);
    if (labels === undefined) continue;
    const namespace = labels.namespace ?? '';
    let sets = byNamespace.get(namespace);
    if (sets === undefined) {
      sets = new Map<string, RequestSeries>();
      byNamespace.set(namespace, sets);
    }
    const text = formatLabels(labels);
    const same = sets.get(text);
    sets.set(text, same === undefined ? counts : addSeries(same, counts));
  }
  const series: LabelledSeries[] = [];
  const limited = new Map<string, number>();
  for (const [namespace, sets] of byNamespace) {
    const texts = [...sets.keys()];
    const kept = seriesPerNamespace > 0 && texts.length > seriesPerNamespace ? texts.sort() : texts;
    for (const [index, labels] of kept.entries()) {
      const counts = sets.get(labels)!;
      if (seriesPerNamespace === 0 || index < seriesPerNamespace) series.push({ labels, counts });
      else limited.set(namespace, (limited.get(namespace) ?? 0) + counts.requests);
    }
  }
  return { series, limited };
}

/** `name="value"` pairs joined by commas, values escaped as the text format (and prom-client) does. */
export function formatLabels(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeText(value).replaceAll('"', '\\"')}"`)
    .join(',');
}

/** A HELP text or label value escaped as the text format wants: backslashes and newlines. */
export function escapeText(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

/** Two series with the same labels as one: their counts added (neither is changed). */
function addSeries(a: RequestSeries, b: RequestSeries): RequestSeries {
  const histograms: Partial<Record<RequestHistogramKey, HistogramCounts>> = { ...a.histograms };
  for (const [key, histogram] of Object.entries(b.histograms) as [RequestHistogramKey, HistogramCounts][]) {
    const other = histograms[key];
    histograms[key] =
      other === undefined
        ? histogram
        : {
            buckets: other.buckets.map((count, index) => count + (histogram.buckets[index] ?? 0)),
            sum: other.sum + histogram.sum,
          };
  }
  return { ...a, requests: a.requests + b.requests, histograms };
}
