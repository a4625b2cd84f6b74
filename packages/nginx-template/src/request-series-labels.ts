/**
 * The labels ingress-nginx gives its request series (status, method, path, namespace, ingress,
 * service, canary, host unless turned off, and the controller's namespace, class and pod), named
 * from the route table being served: nginx counts by route id and backend, and the route says the
 * rest. Backend ids are the caller's, so the caller says which Service a backend is.
 */
import type { Route, RouteTable } from '@ingresskit/route-model';
import type { RequestSeries } from './request-metrics.js';
import type { LabelsOf } from './request-series-bound.js';

/** The labels ingress-nginx gives every series of a controller: its namespace, class and pod. */
export interface ControllerLabels {
  controller_namespace: string;
  controller_class: string;
  controller_pod: string;
}

/** How the series are labelled. */
export interface SeriesLabelOptions {
  /** Series carry the request's host (`--metrics-per-host`); default true. */
  perHost?: boolean;
  /** The `service` label of a backend id (the Service's name); the id itself by default. */
  serviceOf?: (backend: string) => string;
  /**
   * Routes whose requests are labelled as no route's, as ingress-nginx's default server and
   * default locations label them: a controller's own default backend.
   */
  unroutedRoutes?: ReadonlySet<string>;
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

/**
 * The labels of the series of `table`'s routes (only of `series`' routes when given); undefined for
 * a route no longer served. A request that matched no route, or only an unrouted one (the default
 * backend's), has empty route labels, as ingress-nginx's default server and default locations give
 * them (no Ingress, path or Service).
 */
export function labelSeriesOf(
  table: RouteTable,
  controller: ControllerLabels,
  options: SeriesLabelOptions = {},
  series?: readonly RequestSeries[],
): LabelsOf {
  const routes = routesById(table, series && new Set(series.map((one) => one.route)));
  const perHost = options.perHost !== false;
  const serviceOf = options.serviceOf ?? ((backend: string) => backend);
  return (series) => {
    const labels =
      series.route === '' || options.unroutedRoutes?.has(series.route) === true
        ? unroutedLabels(series)
        : labelsOf(series, routes, serviceOf);
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
function labelsOf(
  series: RequestSeries,
  routes: Map<string, RouteLabels>,
  serviceOf: (backend: string) => string,
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
  };
}
