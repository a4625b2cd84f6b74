/**
 * ingress-nginx's request metrics under its own names, so that its dashboards and alerts keep
 * working: nginx_ingress_controller_requests and the duration (request, response, connect, header)
 * and size (request_size, response_size, bytes_sent) histograms, with its labels (status, method,
 * path, namespace, ingress, service, canary, host unless --metrics-per-host=false, and the
 * controller's namespace, class and pod). nginx counts (lua/ingresskit/request_metrics.lua); each
 * scrape reads the counts once and names the labels from the route table the controller serves;
 * the text is written as it renders (request-metrics-text.ts), not registered in prom-client. Each
 * namespace has at most --max-series-per-namespace series (request-series-bound.ts), and
 * the requests nginx could not count are served as ingresskit_uncounted_requests_total.
 */
import { createDefaultBackendRoute, parseBackendId } from '@ingresskit/ingress-routes';
import { REQUEST_HISTOGRAMS, type RequestMetrics, type RequestSeries } from '@ingresskit/nginx-template';
import type { Route, RouteTable } from '@ingresskit/route-model';
import type { Clock } from '@ingresskit/task-queue';
import {
  REQUEST_METRIC_NAMES,
  renderRequestMetrics,
  SERIES_METRIC_NAMES,
  type LabelsOf,
} from './request-metrics-text.js';
import { shareReadPerScrape } from './scraped-metric.js';
import type { StreamedMetrics } from './streamed-metrics.js';

/** Where the counts and the routes come from. */
export interface RequestMetricsSource {
  /** nginx's counts; undefined while nginx does not answer (the scrape then shows none). */
  read(): Promise<RequestMetrics | undefined>;
  /** The routes being served, to name each series' labels. */
  table(): RouteTable;
}

/** The labels every series carries: the controller's own. */
export interface ControllerLabels {
  controller_namespace: string;
  controller_class: string;
  controller_pod: string;
}

type Labels = Record<string, string>;

/** What a route contributes to its series' labels. */
interface RouteLabels {
  path: string;
  namespace: string;
  ingress: string;
  route: Route;
}

/**
 * The labels of the routes `wanted` names (all when undefined). A scrape asks only for the routes
 * that took traffic: at 10,000 Ingresses a map of every route is some 2 MiB of garbage per scrape.
 */
function routesById(table: RouteTable, wanted: ReadonlySet<string> | undefined): Map<string, RouteLabels> {
  const routes = new Map<string, RouteLabels>();
  for (const virtualHost of table.virtualHosts) {
    const add = (route: Route) =>
      (wanted === undefined || wanted.has(route.id)) &&
      routes.set(route.id, {
        path: route.match.path.value,
        namespace: route.origin.namespace,
        // ingress-nginx knows only Ingresses; another source (an HTTPRoute) leaves the label empty.
        ingress: route.origin.kind === 'Ingress' ? route.origin.name : '',
        route,
      });
    for (const route of virtualHost.routes) add(route);
    if (virtualHost.fallbackRoute !== undefined) add(virtualHost.fallbackRoute);
  }
  return routes;
}

/** The Service of a backend id (`namespace/name:port`), or the id itself for any other backend. */
function serviceOf(backend: string): string {
  return parseBackendId(backend)?.name ?? backend;
}

/** The route of requests no Ingress or HTTPRoute route matched: the controller's default backend. */
const DEFAULT_BACKEND_ROUTE_ID = createDefaultBackendRoute(undefined).id;

/** How the series are labelled. */
export interface LabelOptions {
  /** Series carry the request's host (`--metrics-per-host`); default true. */
  perHost?: boolean;
}

/**
 * The labels of the series of `table`'s routes (only of `series`' routes when given); undefined for
 * a route no longer served. A request that matched no route, or only the default backend's, has
 * empty route labels, as ingress-nginx's default server and default locations give them (no
 * Ingress, path or Service).
 */
export function labelSeriesOf(
  table: RouteTable,
  controller: ControllerLabels,
  options: LabelOptions = {},
  series?: readonly RequestSeries[],
): LabelsOf {
  const routes = routesById(table, series && new Set(series.map((one) => one.route)));
  const perHost = options.perHost !== false;
  return (series) => {
    const labels =
      series.route === '' || series.route === DEFAULT_BACKEND_ROUTE_ID
        ? unroutedLabels(series)
        : labelsOf(series, routes);
    if (labels === undefined) return undefined;
    return perHost ? { ...labels, host: series.host, ...controller } : { ...labels, ...controller };
  };
}

/** The labels of a series that matched no route. */
function unroutedLabels(series: RequestSeries): Labels {
  return {
    status: series.status,
    method: series.method,
    path: '',
    namespace: '',
    ingress: '',
    service: '',
    canary: '',
  };
}

/** A routed series' labels but the host and the controller's. */
function labelsOf(series: RequestSeries, routes: Map<string, RouteLabels>): Labels | undefined {
  const route = routes.get(series.route);
  if (route === undefined) return undefined;
  const { action } = route.route;
  const members = action.type === 'forward' ? action.backends : [];
  const backend =
    series.backend !== '' ? series.backend : (members.find((member) => member.backend)?.backend ?? '');
  const isCanary =
    action.type === 'forward' &&
    action.canary !== undefined &&
    action.canary.backends.some((member) => member.backend === backend);
  return {
    status: series.status,
    method: series.method,
    path: route.path,
    namespace: route.namespace,
    ingress: route.ingress,
    service: backend === '' ? '' : serviceOf(backend),
    canary: isCanary ? backend : '',
  };
}

/** nginx's answer while it does not answer: every metric is shown, without series. */
const NO_REQUESTS: RequestMetrics = {
  bounds: Object.fromEntries(
    Object.keys(REQUEST_HISTOGRAMS).map((key) => [key, []]),
  ) as unknown as RequestMetrics['bounds'],
  series: [],
};

/** How the request metrics are served. */
export interface RequestMetricsServing extends LabelOptions {
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
      const labelsOf = labelSeriesOf(source.table(), controller, serving, metrics.series);
      return renderRequestMetrics(metrics, labelsOf, wanted ?? served, serving.seriesPerNamespace ?? 0);
    },
  };
}
