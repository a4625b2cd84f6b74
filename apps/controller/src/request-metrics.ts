/**
 * ingress-nginx's request metrics under its own names, so that its dashboards and alerts keep
 * working: nginx_ingress_controller_requests and the duration (request, response, connect, header)
 * and size (request_size, response_size, bytes_sent) histograms, with its labels (status, method,
 * path, namespace, ingress, service, canary, host unless --metrics-per-host=false, and the
 * controller's namespace, class and pod). nginx counts (lua/ingresskit/request_metrics.lua); each
 * scrape reads the counts once and names the labels from the route table the controller serves;
 * nginx-template writes the text as it renders (renderRequestMetrics), not registered in
 * prom-client. Each namespace has at most --max-series-per-namespace series, and the requests
 * nginx could not count are served as ingresskit_uncounted_requests_total.
 */
import { createDefaultBackendRoute } from '@ingresskit/ingress-routes';
import {
  labelSeriesOf,
  REQUEST_HISTOGRAMS,
  REQUEST_METRIC_NAMES,
  renderRequestMetrics,
  SERIES_METRIC_NAMES,
  type ControllerLabels,
  type LabelsOf,
  type RequestMetrics,
  type RequestSeries,
  type SeriesLabelOptions,
} from '@ingresskit/nginx-template';
import { parseServiceBackendId, type RouteTable } from '@ingresskit/route-model';
import type { Clock } from '@ingresskit/task-queue';
import { shareReadPerScrape } from './scraped-metric.js';
import type { StreamedMetrics } from './streamed-metrics.js';

/** Where the counts and the routes come from. */
export interface RequestMetricsSource {
  /** nginx's counts; undefined while nginx does not answer (the scrape then shows none). */
  read(): Promise<RequestMetrics | undefined>;
  /** The routes being served, to name each series' labels. */
  table(): RouteTable;
}

/** How the controller's backend ids name their Service, and its default backend's route. */
const CONTROLLER_ROUTES: Pick<SeriesLabelOptions, 'serviceOf' | 'unroutedRoutes'> = {
  // The Service of a backend id (`namespace/name:port`), or the id itself for any other backend.
  serviceOf: (backend) => parseServiceBackendId(backend)?.name ?? backend,
  // The route of requests no Ingress or HTTPRoute route matched.
  unroutedRoutes: new Set([createDefaultBackendRoute(undefined).id]),
};

/** nginx-template's labelSeriesOf over the controller's backend ids and default backend: what /metrics serves. */
export function labelControllerSeries(
  table: RouteTable,
  controller: ControllerLabels,
  options: Pick<SeriesLabelOptions, 'perHost'> = {},
  series?: readonly RequestSeries[],
): LabelsOf {
  return labelSeriesOf(table, controller, { perHost: options.perHost, ...CONTROLLER_ROUTES }, series);
}

/** nginx's answer while it does not answer: every metric is shown, without series. */
const NO_REQUESTS: RequestMetrics = {
  bounds: Object.fromEntries(
    Object.keys(REQUEST_HISTOGRAMS).map((key) => [key, []]),
  ) as unknown as RequestMetrics['bounds'],
  series: [],
};

/** How the request metrics are served. */
export interface RequestMetricsServing extends Pick<SeriesLabelOptions, 'perHost'> {
  /** Full names of the metrics not served (`--exclude-socket-metrics`). */
  excluded?: readonly string[];
  /** Label sets served per namespace at most (`--max-series-per-namespace`); 0 or unset: all. */
  seriesPerNamespace?: number;
}

/**
 * The request metrics as streamed text: each scrape reads nginx once (scrapes within a second
 * share the read, as the registry's nginx_process_* metrics do theirs) and labels the series
 * from the routes served at that moment. Excluded metrics are not served, not even their HELP.
 */
export function createRequestMetrics(
  source: RequestMetricsSource,
  controller: ControllerLabels,
  serving: RequestMetricsServing = {},
  clock?: Clock,
): StreamedMetrics {
  const read = shareReadPerScrape(() => source.read(), clock);
  const excluded = new Set(serving.excluded);
  const names = [...REQUEST_METRIC_NAMES.filter((name) => !excluded.has(name)), ...SERIES_METRIC_NAMES];
  const served = new Set(names);
  return {
    names,
    async read(wanted) {
      const metrics = (await read()) ?? NO_REQUESTS;
      const labelsOf = labelControllerSeries(source.table(), controller, serving, metrics.series);
      return renderRequestMetrics(metrics, labelsOf, wanted ?? served, serving.seriesPerNamespace ?? 0);
    },
  };
}
