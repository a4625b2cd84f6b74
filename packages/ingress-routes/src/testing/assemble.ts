/**
 * Test-only helpers that run translations through route-model's builder and reference router, so
 * tests can assert what a request would get rather than how the contribution is spelled.
 */
import {
  createRouteTableBuilder,
  selectRoute,
  type HostContribution,
  type Route,
  type RouteTableBuilder,
  type RouteTableBuilderOptions,
} from '@ingresskit/route-model';
import type { IngressTranslation } from '../types.js';

/** A builder holding every contribution of `translations`, committed. */
export function assemble(
  translations: readonly IngressTranslation[],
  options: RouteTableBuilderOptions = {},
): RouteTableBuilder {
  const builder = createRouteTableBuilder(options);
  for (const translation of translations) {
    if (translation.contribution !== undefined) builder.setContribution(translation.contribution);
  }
  builder.commit();
  return builder;
}

/** What answers a GET for `host` and `path`: a route id, `fallback <id>`, or `404`. */
export function answer(builder: RouteTableBuilder, host: string, path: string): string {
  const selection = selectRoute(builder.table(), { listener: 'http', host, path, method: 'GET' });
  if (!selection.found) return '404';
  return selection.isFallback ? `fallback ${selection.route.id}` : selection.route.id;
}

/** Where a route sends traffic: its backend ids, or its status. */
export function targetOf(route: Route): string {
  switch (route.action.type) {
    case 'forward':
      return route.action.backends
        .map((member) => member.backend ?? String(member.statusCode ?? 500))
        .join(',');
    case 'respond':
      return String(route.action.statusCode);
    case 'redirect':
      return `redirect ${route.action.redirect.statusCode}`;
  }
}

/** The routes of a host contribution as `<path type> <value> -> <target>`. */
export function describeRoutes(host: HostContribution): string[] {
  return host.routes.map(
    (route) => `${route.match.path.type} ${route.match.path.value} -> ${targetOf(route)}`,
  );
}

/** The contribution of `translation` to `hostname`; throws when there is none. */
export function hostOf(translation: IngressTranslation, hostname: string): HostContribution {
  const host = translation.contribution?.hosts.find((candidate) => candidate.hostname === hostname);
  if (host === undefined) throw new Error(`no host ${hostname}`);
  return host;
}
