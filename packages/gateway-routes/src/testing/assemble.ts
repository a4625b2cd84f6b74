/**
 * Test-only helpers that run translations through route-model's builder and reference router, so
 * tests assert what a request would get rather than how a contribution is spelled.
 */
import {
  createRouteTableBuilder,
  selectRoute,
  type Route,
  type RouteContribution,
  type RouteRequest,
  type RouteTableBuilder,
} from '@ingresskit/route-model';
import type { ConditionDraft, GatewayApiTranslation, ListenerStatusDraft } from '../types.js';

/** A committed builder with every contribution of `result` and listeners `http` (80) and `https` (443). */
export function assemble(result: GatewayApiTranslation): RouteTableBuilder {
  const builder = createRouteTableBuilder({
    listeners: [
      { name: 'http', port: 80, protocol: 'HTTP' },
      { name: 'https', port: 443, protocol: 'HTTPS' },
    ],
  });
  for (const contribution of result.routes) builder.setContribution(contribution);
  builder.commit();
  return builder;
}

/** A short name of a route: `<route name>/r<rule>/m<match>`. */
export function shortId(route: Route): string {
  return `${route.origin.name}/r${route.origin.index[0]}/m${route.origin.index[1]}`;
}

/** What answers a request (GET on `http` unless said): the short route id, or `404`. */
export function answer(
  builder: RouteTableBuilder,
  host: string,
  path: string,
  request: Partial<Omit<RouteRequest, 'host' | 'path'>> = {},
): string {
  const selection = selectRoute(builder.table(), { listener: 'http', method: 'GET', ...request, host, path });
  if (!selection.found) return '404';
  const { action } = selection.route;
  // A Gateway's listener-isolation fallback answers 404 on purpose: the same answer as no route.
  return action.type === 'respond' && action.statusCode === 404 ? '404' : shortId(selection.route);
}

/** The contributions of HTTPRoutes (Gateways contribute TLS claims and isolation fallbacks too). */
export function httpRouteContributions(result: GatewayApiTranslation): RouteContribution[] {
  return result.routes.filter((contribution) => contribution.source.kind === 'HTTPRoute');
}

/** The route that answers a request; throws when none does. */
export function routeFor(
  builder: RouteTableBuilder,
  host: string,
  path: string,
  request: Partial<Omit<RouteRequest, 'host' | 'path'>> = {},
): Route {
  const selection = selectRoute(builder.table(), { listener: 'http', method: 'GET', ...request, host, path });
  if (!selection.found) throw new Error(`nothing answers ${host}${path}`);
  return selection.route;
}

/** `type → "status reason"` of conditions. */
export function summarize(conditions: readonly ConditionDraft[]): Record<string, string> {
  return Object.fromEntries(
    conditions.map((condition) => [condition.type, `${condition.status} ${condition.reason}`]),
  );
}

/** The conditions of `parentIndex` of HTTPRoute `namespace/name`, summarized; `{}` when it has none. */
export function routeConditions(
  result: GatewayApiTranslation,
  name: string,
  parentIndex = 0,
  namespace = 'default',
): Record<string, string> {
  const entry = result.statuses.httpRoutes.find(
    (route) => route.name === name && route.namespace === namespace,
  );
  const parentStatus = entry?.parents[parentIndex];
  return parentStatus === undefined ? {} : summarize(parentStatus.conditions);
}

/** The status of Gateway `namespace/name`; throws when there is none. */
export function gatewayStatus(result: GatewayApiTranslation, name = 'gw', namespace = 'infra') {
  const entry = result.statuses.gateways.find(
    (gateway) => gateway.name === name && gateway.namespace === namespace,
  );
  if (entry === undefined) throw new Error(`no status for Gateway ${namespace}/${name}`);
  return entry.status;
}

/** The status of listener `listener` of a Gateway; throws when there is none. */
export function listenerStatus(
  result: GatewayApiTranslation,
  listener: string,
  gateway = 'gw',
): ListenerStatusDraft {
  const entry = gatewayStatus(result, gateway).listeners.find((candidate) => candidate.name === listener);
  if (entry === undefined) throw new Error(`no listener ${listener}`);
  return entry;
}
