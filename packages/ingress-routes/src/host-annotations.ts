/**
 * Annotations that add hostnames to an Ingress: server-alias (more names for its first host) and
 * from-to-www-redirect (the www. / bare counterpart of each host redirects to it).
 */
import { ANY_HOSTNAME, type HostContribution, type Route, routeIdOf } from '@ingresskit/route-model';
import { checkHost } from './grammar.js';
import { flatString } from '@ingresskit/kube-objects';
import { originOf, type Context } from './translation-context.js';
import { annotationField } from './annotation-field.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

function annotationFieldOf(context: Context, name: string): string {
  return annotationField(`${context.config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX}/${name}`);
}

/** `www.example.com` ↔ `example.com`; undefined for wildcards, the catch-all and invalid names. */
function counterpartOf(hostname: string): string | undefined {
  if (hostname === ANY_HOSTNAME || hostname.startsWith('*.')) return undefined;
  const other = hostname.startsWith('www.') ? hostname.slice(4) : `www.${hostname}`;
  return checkHost(other) === undefined && other.includes('.') ? other : undefined;
}

/**
 * from-to-www-redirect: for each host whose counterpart the Ingress does not name itself, the
 * counterpart answers 308 (the ConfigMap's http-redirect-code) to the same URL on the host
 * (ingress-nginx's redirect server). It is the
 * counterpart's fallback, so an Ingress that names the counterpart serves its own paths there.
 */
export function addWwwRedirects(context: Context, hosts: Map<string, HostContribution>): void {
  if (!context.annotations.fromToWwwRedirect) return;
  const field = annotationFieldOf(context, 'from-to-www-redirect');
  for (const hostname of [...hosts.keys()]) {
    const from = counterpartOf(hostname);
    if (from === undefined || hosts.has(from)) continue;
    const fallback: Route = {
      id: routeIdOf(context.source, `www-redirect/${from}`),
      origin: originOf(context, [-1], field),
      match: { path: { type: 'PathPrefix', value: '/' } },
      action: {
        type: 'redirect',
        redirect: { hostname, statusCode: context.annotations.httpRedirectCode ?? 308 },
      },
      policy: {},
    };
    hosts.set(from, { hostname: from, routes: [], fallback });
  }
}

/**
 * server-alias: each alias the Ingress does not name itself serves the routes and fallback of the
 * Ingress's first host, as the alias of ingress-nginx's server for that host does.
 */
export function addServerAliases(context: Context, hosts: Map<string, HostContribution>): void {
  const aliases = context.annotations.serverAliases;
  const [first] = hosts.values();
  if (aliases === undefined || first === undefined) return;
  for (const alias of aliases) {
    if (hosts.has(alias)) continue;
    // A copy per alias: routes never share their parts.
    const routes = first.routes.map((route) => ({
      ...structuredClone(route),
      id: flatString(`${route.id}/alias/${alias}`),
    }));
    const contribution: HostContribution = { hostname: alias, routes };
    if (first.fallback !== undefined) contribution.fallback = first.fallback;
    if (alias.startsWith('*.')) contribution.wildcard = 'one-label';
    hosts.set(alias, contribution);
  }
}
