/**
 * The answer to "what does the controller do with this Ingress, and why": its class decision in
 * plain words, the routes it contributes (route-model entries, each marked served or not), and the
 * problems found in it. Served by `/explain` and printed by `ingresskit explain ingress NS/NAME`.
 */
import {
  NO_CERTIFICATE,
  type Problem,
  type Route,
  type RouteContribution,
  type RouteTable,
} from '@ingresskit/route-model';
import type { IngressRouting } from './ingress-routing.js';
import { explanationOf } from './ingress-verdict.js';

/** One route an Ingress contributes, as the route model has it. */
export interface ExplainedRoute {
  /** The hostname, or `*` for rules without a host (every host no other rule names). */
  hostname: string;
  route: Route;
  /** The Ingress's spec.defaultBackend: answers what no route of the host matches. */
  isFallback: boolean;
  /** Whether the data plane serves it (false: an older Ingress has the same match, or it was refused). */
  served: boolean;
  /** The backends it forwards to, with the endpoints each has (0 means requests get 503). */
  backends: { id: string; endpoints: number }[];
  /** Whether the hostname has a certificate. */
  tls: boolean;
}

/** The explanation of one Ingress. */
export interface IngressExplanation {
  ingress: string;
  found: boolean;
  owned: boolean;
  /** The class decision fields, absent when the Ingress does not exist. */
  decision?: {
    className?: string;
    via?: string;
    reason?: string;
    message: string;
    hint?: string;
    warning?: string;
    controller?: string;
  };
  /** The decision in plain words, naming the Ingress. */
  explanation: string;
  routes: ExplainedRoute[];
  problems: Problem[];
  /** The checksum gate, when enabled. */
  checksum?: { ok: boolean; message: string };
}

/** Explains the Ingress `key` (`namespace/name`) from what `routing` decided and assembled. */
export function explainIngress(
  routing: IngressRouting,
  key: string,
  checksum?: { ok: boolean; message: string },
): IngressExplanation {
  const verdict = routing.verdict(key);
  const extra = checksum === undefined ? {} : { checksum };
  if (verdict === undefined) {
    return {
      ingress: key,
      found: false,
      owned: false,
      explanation: `Ingress ${key} does not exist in the watched namespaces.`,
      routes: [],
      problems: [],
      ...extra,
    };
  }
  const { decision } = verdict;
  const details: NonNullable<IngressExplanation['decision']> = { message: decision.message };
  if (decision.owned) {
    details.className = decision.className;
    details.via = decision.via;
    if (decision.warning !== undefined) details.warning = decision.warning;
  } else {
    details.reason = decision.reason;
    details.hint = decision.hint;
    if (decision.className !== undefined) details.className = decision.className;
    if (decision.controller !== undefined) details.controller = decision.controller;
  }
  return {
    ingress: key,
    found: true,
    owned: decision.owned,
    decision: details,
    explanation: explanationOf(verdict),
    routes: decision.owned ? listRoutes(routing, key) : [],
    problems: routing.problemsOf(key),
    ...extra,
  };
}

/** The routes the Ingress `key` contributes, in its own order, each marked served or not. */
export function listRoutes(routing: IngressRouting, key: string): ExplainedRoute[] {
  const contribution = routing.contributionOf(key);
  return contribution === undefined ? [] : listContributionRoutes(routing, contribution);
}

/** The routes of any source's contribution (an HTTPRoute's too), as the table serves them now. */
export function listContributionRoutes(
  routing: IngressRouting,
  contribution: RouteContribution,
): ExplainedRoute[] {
  const table = routing.table();
  const backends = new Map(table.backends.map((backend) => [backend.id, backend]));
  const tlsHosts = new Set(
    table.tls.filter((binding) => binding.certificate !== NO_CERTIFICATE).map((binding) => binding.hostname),
  );
  const explained: ExplainedRoute[] = [];
  for (const host of contribution.hosts) {
    const virtualHost = routing.routingTable.virtualHost(host.hostname);
    const servedIds = new Set(virtualHost?.routes.map((route) => route.id));
    const describe = (route: Route, isFallback: boolean): ExplainedRoute => ({
      hostname: host.hostname,
      route,
      isFallback,
      served: isFallback ? virtualHost?.fallbackRoute?.id === route.id : servedIds.has(route.id),
      backends: backendsOf(route).map((id) => {
        const backend = backends.get(id);
        const endpoints =
          backend === undefined ? 0 : backend.externalName !== undefined ? 1 : backend.endpoints.length;
        return { id, endpoints };
      }),
      tls: tlsHosts.has(host.hostname),
    });
    for (const route of host.routes) explained.push(describe(route, false));
    if (host.fallback !== undefined && host.fallback !== 'table-default')
      explained.push(describe(host.fallback, true));
  }
  return explained;
}

function backendsOf(route: Route): string[] {
  if (route.action.type !== 'forward') return [];
  return route.action.backends.flatMap((member) => (member.backend === undefined ? [] : [member.backend]));
}

/** The explanation as text for a terminal. */
export function formatExplanation(explanation: IngressExplanation): string {
  const lines = [`Ingress ${explanation.ingress}`];
  if (!explanation.found) {
    lines.push(`  ${explanation.explanation}`);
    return lines.join('\n') + '\n';
  }
  const decision = explanation.decision;
  lines.push(
    `  Owned:       ${explanation.owned ? `yes, as class "${decision?.className ?? ''}" (${decision?.via ?? ''})` : `no (${decision?.reason ?? ''})`}`,
  );
  lines.push(`  Why:         ${explanation.explanation}`);
  if (decision?.warning !== undefined) lines.push(`  Warning:     ${decision.warning}`);
  if (explanation.owned) {
    if (explanation.routes.length === 0) lines.push('  Routes:      none');
    else {
      lines.push('  Routes:');
      for (const route of explanation.routes) lines.push(`    ${formatRoute(route)}`);
    }
  }
  if (explanation.problems.length === 0) lines.push('  Problems:    none');
  else {
    lines.push('  Problems:');
    for (const problem of explanation.problems)
      lines.push(`    ${problem.severity}: ${formatFieldProblem(problem)}`);
  }
  if (explanation.checksum !== undefined) {
    lines.push(
      `  Checksum:    ${explanation.checksum.ok ? 'ok' : 'MISMATCH'}: ${explanation.checksum.message}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** A path condition as `/path (PathPrefix)`. */
function formatMatch(route: Route): string {
  const { path, method, headers, queryParams } = route.match;
  const conditions = [
    method,
    ...(headers ?? []).map((header) => `header ${header.name}`),
    ...(queryParams ?? []).map((param) => `query ${param.name}`),
  ].filter((condition) => condition !== undefined);
  return `${path.value} (${path.type}${conditions.length > 0 ? `, ${conditions.join(', ')}` : ''})`;
}

function formatAction(route: ExplainedRoute): string {
  const { action } = route.route;
  switch (action.type) {
    case 'respond':
      return `answers ${action.statusCode}`;
    case 'redirect':
      return `redirects (${action.redirect.statusCode})`;
    case 'forward':
      return route.backends.length === 0
        ? 'answers 500'
        : route.backends
            .map(({ id, endpoints }) => `→ ${id} (${endpoints} endpoint${endpoints === 1 ? '' : 's'})`)
            .join(', ');
  }
}

/** One route as `https://host/path (PathPrefix) → backend (N endpoints)`, with its state. */
export function formatRoute(route: ExplainedRoute): string {
  const scheme = route.tls ? 'https' : 'http';
  const where = route.isFallback
    ? `${scheme}://${route.hostname} (default backend)`
    : `${scheme}://${route.hostname}${formatMatch(route.route)}`;
  return `${where} ${formatAction(route)}${route.served ? '' : ' [not served]'}`;
}

/** A problem as one line without its object, for where the object is already named: `field: message (value "…")`. */
export function formatFieldProblem(problem: Problem): string {
  return `${problem.field}: ${formatProblemMessage(problem)}`;
}

/** A problem's message with its value, when the message does not show it already: `message (value "…")`. */
export function formatProblemMessage(problem: Problem): string {
  const value =
    problem.value !== undefined && !problem.message.includes(problem.value)
      ? ` (value ${JSON.stringify(problem.value)})`
      : '';
  return `${problem.message}${value}`;
}

/** The route table as printed by `render` and kept in files: private keys are left out. */
export function redactTable(table: RouteTable): RouteTable {
  return {
    ...table,
    certificates: table.certificates.map((certificate) => ({
      ...certificate,
      privateKeyPem: '(private key not shown)',
    })),
  };
}
