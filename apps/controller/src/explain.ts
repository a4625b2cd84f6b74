/**
 * The answer to "what does the controller do with this Ingress, and why": its class decision in
 * plain words, the routes served for it, and the problems found in it. Served by `/explain` and
 * printed by `ingresskit explain ingress NS/NAME`.
 */
import type { Configuration, Problem, Server } from '@ingresskit/nginx-template';
import type { SyncPlan } from './sync-plan.js';

/** One route nginx serves for an Ingress. */
export interface ServedRoute {
  /** The host, or `*` for rules without a host (the catch-all server). */
  host: string;
  path: string;
  pathType: string;
  /** `namespace/service:port`, or `404`/`503` when the location answers with a status. */
  backend: string;
  /** Endpoints known for the backend (0 means requests get 503). */
  endpoints: number;
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
  /** Routes in the configuration the answer is about (the running one for `/explain`). */
  routes: ServedRoute[];
  /** Problems found in this Ingress by the last build. */
  problems: Problem[];
  /** The checksum gate, when enabled. */
  checksum?: { ok: boolean; message: string };
  /** Where the routes come from: what nginx runs now, or what it would run. */
  routesFrom: 'running' | 'planned';
}

/**
 * Explains the Ingress `key` (`namespace/name`) using `plan` for the decision and problems and
 * `running` for the routes (the planned configuration when undefined).
 */
export function explainIngress(plan: SyncPlan, key: string, running?: Configuration): IngressExplanation {
  const verdict = plan.verdicts.get(key);
  const configuration = running ?? plan.build.configuration;
  const routesFrom = running === undefined ? 'planned' : 'running';
  const checksum =
    plan.checksum === undefined ? {} : { checksum: { ok: plan.checksum.ok, message: plan.checksum.message } };
  if (verdict === undefined) {
    return {
      ingress: key,
      found: false,
      owned: false,
      explanation: `Ingress ${key} does not exist in the watched namespaces.`,
      routes: [],
      problems: [],
      routesFrom,
      ...checksum,
    };
  }
  const { decision } = verdict;
  const [namespace, name] = splitKey(key);
  const problems = plan.build.problems.filter(
    (problem) =>
      problem.object.kind === 'Ingress' &&
      problem.object.namespace === namespace &&
      problem.object.name === name,
  );
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
    explanation: verdict.explanation,
    routes: decision.owned ? listRoutes(configuration, namespace, name) : [],
    problems,
    routesFrom,
    ...checksum,
  };
}

/** The routes of the Ingress `namespace/name` in a configuration, in server order. */
export function listRoutes(configuration: Configuration, namespace: string, name: string): ServedRoute[] {
  const routes: ServedRoute[] = [];
  // A Prefix path renders as two locations (`= /p` and `/p/`); list the Ingress path once.
  const seen = new Set<string>();
  const endpointsOf = new Map(configuration.backends.map((backend) => [backend.name, backend]));
  const visit = (server: Server, host: string) => {
    for (const location of server.locations) {
      const source = location.source;
      if (source === undefined || source.ingress.namespace !== namespace || source.ingress.name !== name)
        continue;
      const backend =
        location.target.kind === 'backend' ? endpointsOf.get(location.target.backend) : undefined;
      const key = `${host}\u0000${source.path}\u0000${source.pathType}`;
      if (seen.has(key)) continue;
      seen.add(key);
      routes.push({
        host,
        path: source.path,
        pathType: source.pathType,
        backend:
          location.target.kind === 'backend' ? location.target.backend : String(location.target.status),
        endpoints:
          backend === undefined ? 0 : backend.externalName !== undefined ? 1 : backend.endpoints.length,
        tls: server.tls !== undefined,
      });
    }
  };
  visit(configuration.defaultServer, '*');
  for (const server of configuration.servers) visit(server, server.host);
  return routes;
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
    const label = explanation.routesFrom === 'running' ? 'Routes served' : 'Routes';
    if (explanation.routes.length === 0) lines.push(`  ${label}:      none`);
    else {
      lines.push(`  ${label}:`);
      for (const route of explanation.routes) lines.push(`    ${formatRoute(route)}`);
    }
  }
  if (explanation.problems.length === 0) lines.push('  Problems:    none');
  else {
    lines.push('  Problems:');
    for (const problem of explanation.problems)
      lines.push(`    ${problem.severity}: ${formatProblem(problem)}`);
  }
  if (explanation.checksum !== undefined) {
    lines.push(
      `  Checksum:    ${explanation.checksum.ok ? 'ok' : 'MISMATCH'}: ${explanation.checksum.message}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** One route as `https://host/path (Prefix) → backend (N endpoints)`. */
export function formatRoute(route: ServedRoute): string {
  const scheme = route.tls ? 'https' : 'http';
  const target = /^\d+$/.test(route.backend)
    ? `answers ${route.backend}`
    : `→ ${route.backend} (${route.endpoints} endpoint${route.endpoints === 1 ? '' : 's'})`;
  return `${scheme}://${route.host}${route.path} (${route.pathType}) ${target}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return slash < 0 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
}

/** A problem as one line: `field: message (value "…")`. */
export function formatProblem(problem: Problem): string {
  const value =
    problem.value !== undefined && !problem.message.includes(problem.value)
      ? ` (value ${JSON.stringify(problem.value)})`
      : '';
  return `${problem.field}: ${problem.message}${value}`;
}
