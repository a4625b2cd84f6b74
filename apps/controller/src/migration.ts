/**
 * What switching from ingress-nginx does to each Ingress it served: served identically, served
 * with differences, or not served, with every reason and what to do about it. Pure: it reads a
 * routing that already translated the cluster with ingress-nginx's class settings.
 */
import {
  findIngressNginxAnnotation,
  SUPPORTED_ANNOTATIONS,
  type BackendProblemCode,
} from '@ingresskit/ingress-routes';
import type { AssemblyNote, Problem } from '@ingresskit/route-model';
import { formatProblemMessage, listRoutes } from './explain.js';
import type { IngressRouting } from './ingress-routing.js';
import { explanationOf } from './ingress-verdict.js';

/**
 * The problem codes of what IngressKit decides as ingress-nginx does: of two Ingresses with the
 * same host and path (or default backend, or TLS host), the older one is served; a backend that
 * does not exist (its Service or its port) answers 503.
 */
const AS_IN_INGRESS_NGINX: ReadonlySet<string | undefined> = new Set<
  AssemblyNote['type'] | BackendProblemCode
>(['route-shadowed', 'fallback-overridden', 'tls-overridden', 'service-not-found', 'service-port-not-found']);

/** The three answers a migrating team needs per Ingress. */
export type MigrationOutcome = 'served identically' | 'served with differences' | 'not served';

/** One reason an Ingress is not served exactly as ingress-nginx served it. */
export interface MigrationFinding {
  /**
   * `error`: that part (or the whole Ingress) is left out; `warning`: served without it;
   * `difference`: served, differently; `note`: served as ingress-nginx serves it, and worth
   * knowing (an older Ingress keeps the same path, a Service does not exist).
   */
  kind: 'error' | 'warning' | 'difference' | 'note';
  /** Where in the Ingress, e.g. `metadata.annotations["nginx.ingress.kubernetes.io/auth-url"]`. */
  field: string;
  message: string;
  /** What to do about it, when there is more to say than the message. */
  advice?: string;
}

/** The assessment of one Ingress. */
export interface IngressMigration {
  /** `namespace/name`. */
  ingress: string;
  outcome: MigrationOutcome;
  findings: MigrationFinding[];
  /**
   * Its routes, and how many of them are served: the others have a host and match an older
   * Ingress has too, which that one keeps (as in ingress-nginx).
   */
  routes: { total: number; served: number };
}

/** The assessment of every Ingress of a cluster or a manifest directory. */
export interface MigrationReport {
  /** The Ingresses ingress-nginx served (by the class settings given), by key. */
  ingresses: IngressMigration[];
  /** The Ingresses it did not serve, with the class decision in words. */
  otherClasses: { ingress: string; explanation: string }[];
  totals: Record<MigrationOutcome, number>;
}

/**
 * What to do about an annotation IngressKit refuses or ignores, by the group of ingress-nginx's
 * documentation it belongs to. The problem's own message already says what happens.
 */
const ADVICE_BY_GROUP: Readonly<Record<string, string>> = {
  'Backend certificate authentication':
    'let the backend accept the controller without verifying it (backend-protocol HTTPS still encrypts), or keep this Ingress on ingress-nginx',
  ModSecurity: 'filter requests in a web application firewall in front of the backend',
  Snippets:
    'replace the snippet with the annotations that do the same (docs/annotations.md); raw nginx configuration is never accepted, for it is how one namespace takes over the controller. A configuration-snippet of header directives alone is served when the operator allows them with --allow-snippet-directives',
  'SSL passthrough': 'terminate TLS at the controller, or keep this Ingress on ingress-nginx',
  Canary: 'express the split with canary-weight or canary-by-header, which are supported',
};

/** The annotation name (without prefix) a problem's field points at, if it points at one. */
function annotationOfField(field: string, prefix: string): string | undefined {
  const match = /^metadata\.annotations\[(".*")\]$/.exec(field);
  if (match === null) return undefined;
  const key = JSON.parse(match[1]!) as string;
  return key.startsWith(`${prefix}/`) ? key.slice(prefix.length + 1) : undefined;
}

function findingOf(problem: Problem, prefix: string): MigrationFinding {
  const finding: MigrationFinding = {
    kind: AS_IN_INGRESS_NGINX.has(problem.code) ? 'note' : problem.severity,
    field: problem.field,
    message: formatProblemMessage(problem),
  };
  const annotation = annotationOfField(problem.field, prefix);
  const group = annotation === undefined ? undefined : findIngressNginxAnnotation(annotation)?.group;
  const advice =
    group === undefined || SUPPORTED_ANNOTATIONS.has(annotation!) ? undefined : ADVICE_BY_GROUP[group];
  if (advice !== undefined) finding.advice = advice;
  return finding;
}

/** The supported annotations of `annotations` that IngressKit serves differently, as findings. */
function differencesOf(
  annotations: Readonly<Record<string, string>> | undefined,
  prefix: string,
): MigrationFinding[] {
  const findings: MigrationFinding[] = [];
  for (const key of Object.keys(annotations ?? {}).sort()) {
    if (!key.startsWith(`${prefix}/`)) continue;
    const name = key.slice(prefix.length + 1);
    const difference = SUPPORTED_ANNOTATIONS.has(name)
      ? findIngressNginxAnnotation(name)?.difference
      : undefined;
    if (difference !== undefined)
      findings.push({
        kind: 'difference',
        field: `metadata.annotations[${JSON.stringify(key)}]`,
        message: difference,
      });
  }
  return findings;
}

/** Assesses every Ingress `routing` has a class decision for. */
export function assessMigration(routing: IngressRouting, annotationPrefix: string): MigrationReport {
  const report: MigrationReport = {
    ingresses: [],
    otherClasses: [],
    totals: { 'served identically': 0, 'served with differences': 0, 'not served': 0 },
  };
  const verdicts = [...routing.verdicts()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const verdict of verdicts) {
    if (!verdict.decision.owned) {
      report.otherClasses.push({ ingress: verdict.key, explanation: explanationOf(verdict) });
      continue;
    }
    const findings = [
      ...routing.problemsOf(verdict.key).map((problem) => findingOf(problem, annotationPrefix)),
      ...differencesOf(verdict.ingress.metadata.annotations, annotationPrefix),
    ];
    const routes = listRoutes(routing, verdict.key);
    // A route an older Ingress keeps (the same host and match) is not served by ingress-nginx
    // either: counted, not a difference.
    const served = routes.filter((route) => route.served).length;
    const outcome: MigrationOutcome =
      routing.contributionOf(verdict.key) === undefined
        ? 'not served'
        : findings.some((finding) => finding.kind !== 'note')
          ? 'served with differences'
          : 'served identically';
    report.ingresses.push({
      ingress: verdict.key,
      outcome,
      findings,
      routes: { total: routes.length, served },
    });
    report.totals[outcome] += 1;
  }
  return report;
}

/** The report as text for a terminal: one line per Ingress, its findings indented below it. */
export function formatMigrationReport(report: MigrationReport): string {
  const width = Math.max(0, ...report.ingresses.map((entry) => entry.outcome.length));
  const lines: string[] = [];
  for (const entry of report.ingresses) {
    lines.push(`${entry.outcome.padEnd(width)}  ${entry.ingress}`);
    for (const finding of entry.findings) {
      lines.push(`    ${finding.kind}: ${finding.field}: ${finding.message}`);
      if (finding.advice !== undefined) lines.push(`      what to do: ${finding.advice}`);
    }
  }
  const { totals } = report;
  lines.push(
    '',
    `${report.ingresses.length} Ingress(es) of ingress-nginx's class: ${totals['served identically']} served identically, ` +
      `${totals['served with differences']} served with differences, ${totals['not served']} not served.`,
  );
  if (report.otherClasses.length > 0) {
    lines.push(`${report.otherClasses.length} Ingress(es) of other classes, not assessed:`);
    for (const other of report.otherClasses) lines.push(`    ${other.explanation}`);
  }
  return `${lines.join('\n')}\n`;
}
