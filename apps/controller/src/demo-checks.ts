/**
 * The demo's checks: one real HTTP request through nginx for every route it serves, and one for
 * every host of an Ingress it leaves out, each with what it should answer and a curl to repeat it.
 */
import type { RouteContribution } from '@ingresskit/route-model';
import type { ControllerConfig } from './config.js';
import { listContributionRoutes, listRoutes, type ExplainedRoute } from './explain.js';
import { probe } from './http-probe.js';
import type { IngressRouting } from './ingress-routing.js';
import type { IngressVerdict } from './ingress-verdict.js';

/** One real request through nginx and what it should give. */
export interface RouteCheck {
  url: string;
  curl: string;
  expected: string;
  ok: boolean;
  actual: string;
}

/** A route of an owned Ingress, with that Ingress. */
export interface RouteEntry {
  ingress: string;
  route: ExplainedRoute;
}

/** The owned Ingresses' verdicts, by key. */
export function ownedVerdicts(routing: IngressRouting): IngressVerdict[] {
  return [...routing.verdicts()]
    .filter((verdict) => verdict.decision.owned)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The ignored Ingresses' verdicts, by key. */
export function ignoredVerdicts(routing: IngressRouting): IngressVerdict[] {
  return [...routing.verdicts()]
    .filter((verdict) => !verdict.decision.owned)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Every route of the owned Ingresses, by Ingress. */
export function listAllRoutes(routing: IngressRouting): RouteEntry[] {
  return ownedVerdicts(routing).flatMap((verdict) =>
    listRoutes(routing, verdict.key).map((route) => ({ ingress: verdict.key, route })),
  );
}

/** Sends a real request for every served route, and for every host the controller leaves out. */
export async function checkRoutes(
  routing: IngressRouting,
  config: ControllerConfig,
  gatewayContributions: readonly RouteContribution[],
): Promise<RouteCheck[]> {
  const checks: RouteCheck[] = [];
  const served = new Set(routing.table().virtualHosts.map((host) => host.hostname));
  const gatewayRoutes = gatewayContributions.flatMap((contribution) =>
    listContributionRoutes(routing, contribution).map((route) => ({ route })),
  );
  for (const { route } of [...listAllRoutes(routing), ...gatewayRoutes]) {
    const path = route.route.match.path;
    if (route.hostname === '*' || route.isFallback || !route.served || path.type === 'RegularExpression')
      continue;
    const backend = route.backends[0];
    if (backend === undefined) continue;
    const service = backend.id.replace(/^[^/]+\//, '').replace(/:.*$/, '');
    const expected = backend.endpoints > 0 ? `200 from backend ${service}-*` : '503 (no endpoints)';
    checks.push(
      await runCheck(
        route.hostname,
        path.value,
        route.tls,
        config,
        (status, body) =>
          backend.endpoints > 0 ? status === 200 && body.startsWith(`${service}-`) : status === 503,
        expected,
      ),
    );
  }
  const leftOut = new Set<string>();
  for (const verdict of routing.verdicts()) {
    for (const host of hostsOf(verdict)) if (!served.has(host)) leftOut.add(host);
  }
  for (const host of [...leftOut].sort()) {
    checks.push(await runCheck(host, '/', false, config, (status) => status === 404, '404 (not served)'));
  }
  return checks;
}

async function runCheck(
  host: string,
  path: string,
  tls: boolean,
  config: ControllerConfig,
  isExpected: (status: number, body: string) => boolean,
  expected: string,
): Promise<RouteCheck> {
  const port = tls ? config.httpsPort : config.httpPort;
  const scheme = tls ? 'https' : 'http';
  const url = `${scheme}://${host}:${port}${path}`;
  const curl = `curl ${tls ? '-k ' : ''}--resolve ${host}:${port}:127.0.0.1 ${url}`;
  try {
    const response = await probe({ port, host, path, tls });
    const firstLine = response.body.split('\n')[0]?.trim() ?? '';
    return {
      url,
      curl,
      expected,
      ok: isExpected(response.status, response.body),
      actual: `${response.status}${firstLine ? ` ${firstLine.slice(0, 60)}` : ''}`,
    };
  } catch (error) {
    return { url, curl, expected, ok: false, actual: (error as Error).message };
  }
}

function hostsOf(verdict: IngressVerdict): string[] {
  const rules = (verdict.ingress.spec?.rules ?? []) as readonly { host?: string }[];
  return rules
    .map((rule) => rule.host)
    .filter((host): host is string => typeof host === 'string' && host !== '');
}
