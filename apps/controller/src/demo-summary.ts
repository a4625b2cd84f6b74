/**
 * What the demo prints: the routing table, the decisions (served without a class, ignored with the
 * reason, problems) and, once nginx serves, the checks and commands to try.
 */
import type { ControllerConfig } from './config.js';
import { ignoredVerdicts, listAllRoutes, ownedVerdicts, type RouteCheck } from './demo-checks.js';
import { isIgnoreReasonReported } from './event-policy.js';
import { formatFieldProblem, type ExplainedRoute } from './explain.js';
import type { IngressRouting } from './ingress-routing.js';
import { explanationOf, type IngressVerdict } from './ingress-verdict.js';

/** What the summary of a running demo shows. */
export interface SummaryInput {
  routing: IngressRouting;
  config: ControllerConfig;
  checks: RouteCheck[];
  /** The embedded API server's URL. */
  serverUrl: string;
  kubeconfigPath: string;
  logPath: string;
  prefix: string;
  kubectl: boolean;
}

/** The summary printed once nginx serves: table, decisions, checks and commands to try. */
export function formatSummary(input: SummaryInput): string {
  const { config, checks, kubeconfigPath, routing } = input;
  const healthz = `http://127.0.0.1:${config.healthzPort}`;
  const lines: string[] = [''];
  lines.push(
    formatRoutingTable(
      routing,
      config,
      `Routing table (what nginx serves now on 127.0.0.1, HTTP :${config.httpPort}, HTTPS :${config.httpsPort}):`,
    ),
  );
  lines.push(formatDecisions(routing));
  lines.push('Checks (real HTTP requests through nginx):');
  for (const check of checks)
    lines.push(
      `  ${check.ok ? 'ok  ' : 'FAIL'} ${check.url.padEnd(44)} expected ${check.expected}, got ${check.actual}`,
    );
  lines.push('');
  lines.push('Try it in another shell:');
  const firstServed = checks.filter((check) => check.expected.startsWith('200'));
  for (const check of firstServed) lines.push(`  ${check.curl}`);
  const firstMissing = checks.find((check) => check.expected.startsWith('404'));
  if (firstMissing !== undefined) lines.push(`  ${firstMissing.curl}        # not served: 404`);
  lines.push(`  curl '${healthz}/explain?ingress=demo/playground'`);
  lines.push(`  curl '${healthz}/explain?ingress=demo/broken'`);
  lines.push(`  curl '${healthz}/explain?httproute=demo/shop'`);
  lines.push(`  curl -s ${healthz}/metrics | grep '^ingresskit_'`);
  lines.push('');
  const kubectl = `kubectl --kubeconfig ${kubeconfigPath}`;
  if (!input.kubectl) lines.push('  (kubectl is not installed: sudo apt-get install -y kubernetes-client)');
  lines.push(`  kubectl --server ${input.serverUrl} get ingressclasses,ingresses -A`);
  lines.push(
    `  ${kubectl} get ingress -A -o 'custom-columns=NAME:.metadata.name,CLASS:.spec.ingressClassName,HOSTS:.spec.rules[*].host,ADDRESS:.status.loadBalancer.ingress[*].ip'`,
  );
  lines.push(
    `  ${kubectl} get events -n demo -o 'custom-columns=TYPE:.type,REASON:.reason,OBJECT:.involvedObject.name,MESSAGE:.message'`,
  );
  lines.push(
    `  ${kubectl} annotate ingress broken -n demo nginx.ingress.kubernetes.io/proxy-read-timeout=30 --overwrite   # fix it: served a moment later`,
  );
  lines.push(`  ${kubectl} delete ingress web -n demo            # web.demo.test answers 404 right after`);
  lines.push('');
  lines.push(
    `Controller log (JSON lines): ${input.logPath}; nginx runs in ${input.prefix} (access.log there).`,
  );
  return `${lines.join('\n')}\n`;
}

/** The routes of the owned Ingresses as a table under `title`. */
export function formatRoutingTable(routing: IngressRouting, config: ControllerConfig, title: string): string {
  const rows = listAllRoutes(routing).map(({ ingress, route }) => [
    `${route.tls ? 'https' : 'http'}://${route.hostname}`,
    route.isFallback ? '(default backend)' : route.route.match.path.value,
    route.isFallback ? '' : route.route.match.path.type,
    ingress,
    route.backends.map((backend) => backend.id).join(', ') || answerOf(route),
    route.backends.map((backend) => String(backend.endpoints)).join(', ') || '-',
  ]);
  const header = ['HOST', 'PATH', 'PATH TYPE', 'INGRESS', 'BACKEND', 'ENDPOINTS'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const format = (row: string[]) =>
    `  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd();
  const lines = [title, format(header), ...rows.map(format)];
  if (rows.length === 0) lines.push('  (nothing)');
  lines.push(
    `  Anything else: 404 (unknown TLS names get the default certificate). Ports: HTTP ${config.httpPort}, HTTPS ${config.httpsPort}.`,
  );
  return `${lines.join('\n')}\n\n`;
}

function answerOf(route: ExplainedRoute): string {
  const { action } = route.route;
  return action.type === 'respond' ? String(action.statusCode) : action.type;
}

/** The Ingresses served without a class, the ignored ones with why, and the problems. */
export function formatDecisions(routing: IngressRouting): string {
  const lines: string[] = [];
  const byDefault = ownedVerdicts(routing).filter(
    (verdict) => verdict.decision.owned && verdict.decision.via === 'default-class',
  );
  for (const verdict of byDefault) {
    const className = verdict.decision.owned ? verdict.decision.className : '';
    lines.push(`Served without any class: ${verdict.key}`);
    lines.push(
      wrap(
        `It has neither spec.ingressClassName nor the kubernetes.io/ingress.class annotation: it was created before IngressClass "${className}" ` +
          'was marked as the cluster default, and the API server fills in the default class only when an Ingress is created. ' +
          'ingress-nginx would ignore it until someone edits it (it never reads the is-default-class annotation; see seed 000, "Default Ingress Class"). ' +
          `ingresskit serves it because the cluster default IngressClass "${className}" is its own (--honor-default-class).`,
      ),
    );
    lines.push('');
  }
  const isReported = (verdict: IngressVerdict) =>
    !verdict.decision.owned && isIgnoreReasonReported(verdict.decision.reason);
  const groups = [
    {
      title: 'Ignored Ingresses that may be meant for this controller (each also gets a Warning Event):',
      verdicts: ignoredVerdicts(routing).filter(isReported),
    },
    {
      title:
        'Ignored Ingresses of other controllers (no Event on their objects; /explain and the metric cover them):',
      verdicts: ignoredVerdicts(routing).filter((verdict) => !isReported(verdict)),
    },
  ];
  for (const { title, verdicts } of groups) {
    lines.push(title);
    if (verdicts.length === 0) lines.push('  none');
    for (const verdict of verdicts) lines.push(wrap(explanationOf(verdict), `  ${verdict.key}: `));
    lines.push('');
  }
  lines.push('Problems (the part at fault is left out and reported as an Event; everything else is served):');
  const problems = ownedVerdicts(routing).flatMap((verdict) => routing.problemsOf(verdict.key));
  if (problems.length === 0) lines.push('  none');
  for (const problem of problems) {
    lines.push(
      wrap(
        formatFieldProblem(problem),
        `  ${problem.severity} in ${problem.object.kind} ${problem.object.namespace}/${problem.object.name}: `,
      ),
    );
  }
  return `${lines.join('\n')}\n\n`;
}

function wrap(text: string, firstPrefix = '  ', width = 110): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = firstPrefix;
  const indent = ' '.repeat(Math.min(firstPrefix.length, 4));
  for (const word of words) {
    if (line.trim() !== '' && line.length + word.length + 1 > width && line !== firstPrefix) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += (line.endsWith(' ') || line === '' ? '' : ' ') + word;
  }
  lines.push(line.trimEnd());
  return lines.join('\n');
}
