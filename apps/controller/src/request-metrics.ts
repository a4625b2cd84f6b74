/**
 * ingress-nginx's request metrics under its own names, so that its dashboards and alerts keep
 * working: nginx_ingress_controller_requests and the duration (request, response, connect, header)
 * and size (request_size, response_size, bytes_sent) histograms, with its labels (status, method, path, namespace, ingress, service, canary, host,
 * and the controller's namespace, class and pod). nginx counts (lua/ingresskit/request_metrics.lua);
 * each scrape reads the counts and names the labels from the route table the controller serves.
 */
import { parseBackendId } from '@ingresskit/ingress-routes';
import { REQUEST_HISTOGRAMS, type RequestMetrics, type RequestSeries } from '@ingresskit/nginx-template';
import type { Route, RouteTable } from '@ingresskit/route-model';
import type { Registry } from 'prom-client';
import { registerScrapedMetric, shareReadPerScrape } from './scraped-metric.js';
import { REQUEST_METRIC_NAMES, renderRequestMetrics } from './request-metrics-text.js';
import type { StreamedMetrics } from './streamed-metrics.js';

/** ingress-nginx's metric name prefix. */
const PREFIX = 'nginx_ingress_controller_';

type HistogramName = (typeof REQUEST_HISTOGRAMS)[keyof typeof REQUEST_HISTOGRAMS];

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
  host: string;
  path: string;
  namespace: string;
  ingress: string;
  route: Route;
}

function routesById(table: RouteTable): Map<string, RouteLabels> {
  const routes = new Map<string, RouteLabels>();
  for (const virtualHost of table.virtualHosts) {
    const add = (route: Route) =>
      routes.set(route.id, {
        host: virtualHost.hostname,
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

/** The labels of one series, or undefined when its route is no longer served. */
function labelsOf(
  series: RequestSeries,
  routes: Map<string, RouteLabels>,
  controller: ControllerLabels,
): Labels | undefined {
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
    host: route.host,
    ...controller,
  };
}

/** One scrape's series with their labels; undefined while nginx does not answer. */
type Scrape =
  { bounds: RequestMetrics['bounds']; series: { labels: Labels; counts: RequestSeries }[] } | undefined;

/**
 * Registers the request metrics in `registry`. Each is read from nginx when the registry is
 * scraped; the metrics of one scrape share one read.
 */
export function registerRequestMetrics(
  registry: Registry,
  source: RequestMetricsSource,
  controller: ControllerLabels,
): void {
  const scrape = shareReadPerScrape(async (): Promise<Scrape> => {
    const metrics = await source.read();
    if (metrics === undefined) return undefined;
    const routes = routesById(source.table());
    const series = metrics.series.flatMap((counts) => {
      const labels = labelsOf(counts, routes, controller);
      return labels === undefined ? [] : [{ labels, counts }];
    });
    return { bounds: metrics.bounds, series };
  });
  registerScrapedMetric(registry, `${PREFIX}requests`, HELP.requests, 'counter', async () =>
    ((await scrape())?.series ?? []).map(({ labels, counts }) => ({ labels, value: counts.requests })),
  );
  for (const [key, name] of Object.entries(REQUEST_HISTOGRAMS) as [
    keyof typeof REQUEST_HISTOGRAMS,
    HistogramName,
  ][]) {
    registerScrapedMetric(registry, `${PREFIX}${name}`, HELP[name], 'histogram', async () => {
      const current = await scrape();
      if (current === undefined) return [];
      const bounds = current.bounds[key];
      return current.series.flatMap(({ labels, counts }) => {
        const histogram = counts.histograms[key];
        if (histogram === undefined) return [];
        let cumulative = 0;
        const buckets = histogram.buckets.map((count, index) => {
          cumulative += count;
          const le = index < bounds.length ? String(bounds[index]) : '+Inf';
          return { metricName: `${PREFIX}${name}_bucket`, labels: { ...labels, le }, value: cumulative };
        });
        return [
          ...buckets,
          { metricName: `${PREFIX}${name}_sum`, labels, value: histogram.sum },
          { metricName: `${PREFIX}${name}_count`, labels, value: cumulative },
        ];
      });
    });
  }
}

/** nginx's answer while it does not answer: every metric is shown, without series. */
const NO_REQUESTS: RequestMetrics = {
  bounds: Object.fromEntries(
    Object.keys(REQUEST_HISTOGRAMS).map((key) => [key, []]),
  ) as unknown as RequestMetrics['bounds'],
  series: [],
};

/**
 * The request metrics as streamed text: each scrape reads nginx once and labels the series from
 * the routes served at that moment.
 */
export function createRequestMetrics(
  source: RequestMetricsSource,
  controller: ControllerLabels,
): StreamedMetrics {
  return {
    names: REQUEST_METRIC_NAMES,
    async read(names) {
      const metrics = (await source.read()) ?? NO_REQUESTS;
      const routes = routesById(source.table());
      return renderRequestMetrics(metrics, (series) => labelsOf(series, routes, controller), names);
    },
  };
}
