/**
 * The Ingresses ingress-nginx serves as Gateway API objects, for `ingresskit migrate
 * --to=gateway-api`: one Gateway (an HTTP listener, and an HTTPS listener per certificate host),
 * the ReferenceGrants its certificates need, and the HTTPRoutes of each Ingress, made from the
 * route model its translation produced. An Ingress with a protection HTTPRoute cannot carry is
 * not converted at all.
 */
import { tlsSecretNameOf } from '@ingresskit/ingress-routes';
import { NO_CERTIFICATE, type HostContribution, type Route, type RouteTable } from '@ingresskit/route-model';
import { namespacedKey } from '@ingresskit/kube-objects';
import type { ClusterView } from './cluster-view.js';
import { convertRoute, type HTTPRouteRule } from './httproute-rules.js';
import type { IngressRouting } from './ingress-routing.js';
import type { MigrationFinding } from './migration.js';

/** The Gateway the HTTPRoutes attach to. */
export interface GatewayTarget {
  name: string;
  namespace: string;
  className: string;
}

/** What became of one Ingress. */
export interface IngressConversion {
  ingress: string;
  /** Its HTTPRoutes are among the objects. */
  converted: boolean;
  /** The names of its HTTPRoutes. */
  httpRoutes: string[];
  findings: MigrationFinding[];
}

/** The objects to apply, and what became of each Ingress. */
export interface GatewayApiConversion {
  /** The Gateway, then ReferenceGrants, then HTTPRoutes (plain JSON). */
  objects: Record<string, unknown>[];
  ingresses: IngressConversion[];
}

const GATEWAY_API = 'gateway.networking.k8s.io';

/** The HTTPS listener name of a certificate's hostname: a section name is a DNS label. */
function httpsListenerName(hostname: string): string {
  return `https-${hostname.replace(/^\*\./, 'wildcard.').replace(/\./g, '-')}`;
}

/** Converts every Ingress `routing` owns; `view` gives Services' named ports and Ingresses' TLS Secrets. */
export function convertToGatewayApi(
  routing: IngressRouting,
  view: ClusterView,
  gateway: GatewayTarget,
): GatewayApiConversion {
  const table = routing.table();
  const { listeners, grants, tlsHosts } = gatewayListeners(table, view, gateway);
  const ingresses: IngressConversion[] = [];
  const httpRoutes: Record<string, unknown>[] = [];
  const keys = [...routing.verdicts()]
    .filter((verdict) => verdict.decision.owned)
    .map((verdict) => verdict.key)
    .sort();
  for (const key of keys) {
    const contribution = routing.contributionOf(key);
    if (contribution === undefined) {
      ingresses.push({
        ingress: key,
        converted: false,
        httpRoutes: [],
        findings: [
          {
            kind: 'error',
            field: 'metadata',
            message: 'not served, so not converted (see the report without --to)',
          },
        ],
      });
      continue;
    }
    const findings: MigrationFinding[] = [];
    const routes: Record<string, unknown>[] = [];
    let blocked = false;
    contribution.hosts.forEach((host, index) => {
      if (host.routes.length === 0 && host.fallback === undefined) {
        if (host.canaries !== undefined && host.canaries.length > 0)
          findings.push({
            kind: 'note',
            field: 'metadata.annotations',
            message: `a canary: its split is in the HTTPRoute of the Ingress it is the canary of, on ${host.hostname}`,
          });
        return;
      }
      const name =
        contribution.hosts.length === 1 ? contribution.source.name : `${contribution.source.name}-${index}`;
      const converted = convertHost(
        routing,
        view,
        gateway,
        tlsHosts,
        contribution.source.namespace,
        name,
        host,
      );
      routes.push(...converted.routes);
      findings.push(...converted.findings);
      blocked ||= converted.blocked;
    });
    const converted = !blocked;
    if (converted) httpRoutes.push(...routes);
    ingresses.push({
      ingress: key,
      converted,
      httpRoutes: converted ? routes.map((route) => (route.metadata as { name: string }).name) : [],
      findings: dedupe(findings),
    });
  }
  const gatewayObject = {
    apiVersion: `${GATEWAY_API}/v1`,
    kind: 'Gateway',
    metadata: { name: gateway.name, namespace: gateway.namespace },
    spec: { gatewayClassName: gateway.className, listeners },
  };
  return { objects: [gatewayObject, ...grants, ...httpRoutes], ingresses };
}

/** HTTPRoute allows this many rules. */
const MAX_RULES = 16;

/**
 * The HTTPRoutes of one host of an Ingress (several when it has more than 16 rules), and the
 * HTTPRoute that redirects plain HTTP to HTTPS where ingress-nginx would.
 */
function convertHost(
  routing: IngressRouting,
  view: ClusterView,
  gateway: GatewayTarget,
  tlsHosts: ReadonlySet<string>,
  namespace: string,
  name: string,
  host: HostContribution,
): { routes: Record<string, unknown>[]; findings: MigrationFinding[]; blocked: boolean } {
  const hostHasTls = tlsHosts.has(host.hostname);
  const context = {
    namespace,
    hostHasTls,
    servicePort: (serviceKey: string, portName: string) =>
      view.service(serviceKey)?.spec?.ports?.find((port) => port.name === portName)?.port,
  };
  // The table's copy of a route carries what assembly added to it (a canary of another Ingress).
  const served = new Map(
    routing.routingTable.virtualHost(host.hostname)?.routes.map((route) => [route.id, route]),
  );
  const sourceRoutes: Route[] = host.routes.map((route) => served.get(route.id) ?? route);
  if (host.fallback !== undefined && host.fallback !== 'table-default') {
    // The Ingress's default backend answers what no path matches: the least specific rule.
    sourceRoutes.push({ ...host.fallback, match: { path: { type: 'PathPrefix', value: '/' } } });
  }
  const findings: MigrationFinding[] = [];
  const rules: HTTPRouteRule[] = [];
  let blocked = false;
  // auth-tls holds for every path of its host, those of other Ingresses too: none of them may be
  // converted into a route that serves the host without asking for a client certificate.
  if (served.size > 0 && [...served.values()].some((route) => route.policy.clientCertificate !== undefined)) {
    blocked = true;
    findings.push({
      kind: 'error',
      field: 'spec.rules',
      message: `${host.hostname} requires client certificates (auth-tls), which HTTPRoute cannot express; the Ingress is not converted, since the host would be served without them`,
    });
  }
  for (const route of sourceRoutes) {
    const converted = convertRoute(route, context);
    rules.push(...converted.rules);
    findings.push(...converted.findings);
    blocked ||= converted.blocked;
  }
  if (host.hostname.startsWith('*.') && host.wildcard !== 'suffix')
    findings.push({
      kind: 'difference',
      field: 'spec.rules',
      message: `in Gateway API ${host.hostname} also matches names of more than one label before ${host.hostname.slice(2)}`,
    });
  const hostnames = host.hostname === '*' ? {} : { hostnames: [host.hostname] };
  // ingress-nginx redirects plain HTTP to HTTPS for a host with a certificate: the routes go on
  // the HTTPS listener, and an HTTPRoute of their own on the HTTP one answers with the redirect.
  const redirect = hostHasTls
    ? sourceRoutes.find((route) => route.policy.redirectToHttps)?.policy.redirectToHttps
    : undefined;
  const parentRef = (sectionName?: string) => ({
    group: GATEWAY_API,
    kind: 'Gateway',
    name: gateway.name,
    namespace: gateway.namespace,
    ...(sectionName === undefined ? {} : { sectionName }),
  });
  const routes: Record<string, unknown>[] = [];
  for (let start = 0; start < rules.length; start += MAX_RULES) {
    routes.push(
      httpRoute(namespace, start === 0 ? name : `${name}-${start / MAX_RULES + 1}`, {
        parentRefs: [parentRef(redirect === undefined ? undefined : httpsListenerName(host.hostname))],
        ...hostnames,
        rules: rules.slice(start, start + MAX_RULES),
      }),
    );
  }
  if (redirect !== undefined) {
    const requestRedirect = { scheme: 'https', statusCode: redirect.statusCode };
    routes.push(
      httpRoute(namespace, `${name}-to-https`, {
        parentRefs: [parentRef('http')],
        ...hostnames,
        rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect }] }],
      }),
    );
  }
  return { routes, findings, blocked };
}

function httpRoute(namespace: string, name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: `${GATEWAY_API}/v1`, kind: 'HTTPRoute', metadata: { name, namespace }, spec };
}

/**
 * The Gateway's listeners: HTTP on 80 for every host, HTTPS on 443 per hostname with a
 * certificate (the Secret of the Ingress whose certificate the table serves for it), and the
 * ReferenceGrants that let the Gateway read Secrets of other namespaces.
 */
function gatewayListeners(
  table: RouteTable,
  view: ClusterView,
  gateway: GatewayTarget,
): { listeners: Record<string, unknown>[]; grants: Record<string, unknown>[]; tlsHosts: Set<string> } {
  const allRoutes = { namespaces: { from: 'All' } };
  const listeners: Record<string, unknown>[] = [
    { name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: allRoutes },
  ];
  const secretsByNamespace = new Map<string, Set<string>>();
  const tlsHosts = new Set<string>();
  for (const binding of table.tls) {
    const { origin } = binding;
    const secretName = tlsSecretNameOf(view.ingress(namespacedKey(origin.namespace, origin.name)), origin);
    if (secretName === undefined || binding.hostname === '*' || binding.certificate === NO_CERTIFICATE)
      continue;
    tlsHosts.add(binding.hostname);
    listeners.push({
      name: httpsListenerName(binding.hostname),
      protocol: 'HTTPS',
      port: 443,
      hostname: binding.hostname,
      tls: {
        mode: 'Terminate',
        certificateRefs: [
          {
            kind: 'Secret',
            name: secretName,
            ...(origin.namespace === gateway.namespace ? {} : { namespace: origin.namespace }),
          },
        ],
      },
      allowedRoutes: allRoutes,
    });
    if (origin.namespace !== gateway.namespace) {
      const names = secretsByNamespace.get(origin.namespace) ?? new Set<string>();
      names.add(secretName);
      secretsByNamespace.set(origin.namespace, names);
    }
  }
  const grants = [...secretsByNamespace]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([namespace, names]) => ({
      apiVersion: `${GATEWAY_API}/v1beta1`,
      kind: 'ReferenceGrant',
      metadata: { name: `${gateway.name}-certificates`, namespace },
      spec: {
        from: [{ group: GATEWAY_API, kind: 'Gateway', namespace: gateway.namespace }],
        to: [...names].sort().map((name) => ({ group: '', kind: 'Secret', name })),
      },
    }));
  return { listeners, grants, tlsHosts };
}

function dedupe(findings: MigrationFinding[]): MigrationFinding[] {
  const seen = new Set<string>();
  return findings.filter((finding) => {
    const key = `${finding.kind}\n${finding.field}\n${finding.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
