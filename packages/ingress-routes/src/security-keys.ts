/**
 * The keys of ingress-nginx's ConfigMap added after its CVEs: the Ingress checks
 * (strict-validate-path-type, annotation-value-word-blocklist, annotations-risk-level) read into
 * IngressChecks, and the catalogue entries of those and of their neighbours we do not apply.
 */
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import { ANNOTATION_RISKS, readAnnotationsRiskLevel } from './annotation-risk.js';
import { readAnnotationWordBlocklist } from './annotation-word-blocklist.js';
import type { IngressChecks } from './ingress-checks.js';
import type { ConfigMapProblem, IngressNginxConfigKey } from './configmap-key.js';

const RISK_LEVELS = ANNOTATION_RISKS.join(', ');

/** The catalogue entries of the keys this module is about. */
export const SECURITY_CONFIG_KEYS: IngressNginxConfigKey[] = [
  {
    name: 'strict-validate-path-type',
    applied: 'live',
    difference:
      'as ingress-nginx, the admission webhook denies an Ingress with an Exact or Prefix path outside A-Z a-z 0-9 . _ - /; the controller also checks stored Ingresses and leaves out such a path (not the rest of its Ingress), with an error naming it (ingress-nginx serves an Ingress stored before its webhook ran). "false" allows only "~" more, the rest of our literal path grammar: never regex characters or spaces',
  },
  {
    name: 'annotation-value-word-blocklist',
    applied: 'live',
    difference:
      "words separated by commas, each trimmed; an empty word is dropped (ingress-nginx's store keeps it, and it blocks every annotation). An Ingress with a word in the value of an annotation of the prefix is left out whole, with an error naming the annotation and the word",
  },
  {
    name: 'annotations-risk-level',
    applied: 'live',
    difference: `${RISK_LEVELS} in any case, spaces around it trimmed; another value means Low, as in ingress-nginx, with an error. An Ingress with an annotation of a higher risk than ingress-nginx declares for it is left out whole, with an error naming the annotation. Snippets (Critical) are left to allow-snippet-annotations and --allow-snippet-directives, which never serve one as nginx configuration whatever the level`,
  },
  {
    name: 'allow-cross-namespace-resources',
    unsupported: {
      severity: 'warning',
      reason:
        "annotations read Secrets and ConfigMaps of the Ingress's own namespace only (auth-secret, auth-tls-secret, proxy-ssl-secret, auth-proxy-set-headers, custom-headers): one naming another namespace still closes what it protects (401, 403 or 503) with an error on the Ingress",
    },
    sameAs: ['false'],
  },
  {
    name: 'allow-backend-server-header',
    unsupported: { severity: 'warning', reason: "not supported yet (nginx's own Server header is sent)" },
    sameAs: ['false'],
  },
  ...['nginx-status-ipv4-whitelist', 'nginx-status-ipv6-whitelist'].map((name): IngressNginxConfigKey => ({
    name,
    unsupported: {
      severity: 'warning',
      reason:
        "nginx's status (stub_status) is answered on the controller's control socket only, never on a port, so no client can ask it",
    },
    sameAs: [name.includes('ipv4') ? '127.0.0.1' : '::1'],
  })),
  {
    name: 'enable-serial-reloads',
    unsupported: {
      severity: 'warning',
      reason:
        'not supported yet (a reload does not wait for the workers of the last one to exit; nginx reloads here only when listeners or directive profiles grow)',
    },
    sameAs: ['false'],
  },
  {
    name: 'debug-connections',
    unsupported: {
      severity: 'warning',
      reason: "not supported yet (nginx's debug_connection is not rendered)",
    },
    sameAs: [''],
  },
];

/** How each Ingress check key is read into `into`: the reason it is invalid, or undefined. */
export const INGRESS_CHECK_KEYS: Readonly<
  Record<string, (value: string, into: IngressChecks) => string | undefined>
> = {
  'strict-validate-path-type': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    into.strictPathType = on;
    return undefined;
  },
  'annotation-value-word-blocklist': (value, into) => {
    into.annotationWordBlocklist = readAnnotationWordBlocklist(value);
    return undefined;
  },
  'annotations-risk-level': (value, into) => {
    // ingress-nginx reads a level it does not know as Low, the strictest: a typo never opens up.
    into.annotationsRiskLevel = readAnnotationsRiskLevel(value) ?? 'Low';
    return undefined;
  },
};

/**
 * Settles annotations-risk-level after the keys are read: a value that names no level, even one
 * refused before it was read (control characters), means Low, as ingress-nginx reads it, so a
 * typo never accepts more than the operator meant. Adds its error unless one is already there.
 */
export function settleRiskLevel(record: object, checks: IngressChecks, problems: ConfigMapProblem[]): void {
  const value: unknown = (record as Record<string, unknown>)['annotations-risk-level'];
  if (typeof value !== 'string' || readAnnotationsRiskLevel(value) !== undefined) return;
  checks.annotationsRiskLevel = 'Low';
  const field = 'data["annotations-risk-level"]';
  if (problems.some((problem) => problem.field === field)) return;
  problems.push({
    field,
    message: `"annotations-risk-level" must be one of ${RISK_LEVELS}; Low, the strictest, applies (as in ingress-nginx)`,
    severity: 'error',
    value,
  });
}
