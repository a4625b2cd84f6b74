/**
 * The kinds of problem translateIngress reports: each problem's `code`, stable for programs that
 * act on it (its message is for people and may be reworded), with what it means. The one list:
 * the translation can only name a code from here, and docs/problem-codes.md is made from it.
 */
import type { ProblemLog } from '@ingresskit/route-model';

/** Every code of an Ingress problem, with what it means (the severity and what is left out). */
export const INGRESS_PROBLEM_CODES = {
  'invalid-name': 'error: metadata.name or metadata.namespace is no valid name; the Ingress is not served',
  'unreadable-object':
    'error: the object could not be read (a throwing getter, a proxy); the Ingress is not served',
  'blocked-annotation-value':
    "error: an annotation holds a word of the controller ConfigMap's annotation-value-word-blocklist; the Ingress is not served",
  'annotation-risk-refused':
    "error: an annotation is riskier than the controller ConfigMap's annotations-risk-level allows; the Ingress is not served",
  'invalid-annotation':
    'error: an annotation value is invalid, or annotations that work together contradict each other; the Ingress is not served',
  'refused-annotation':
    'error: an ingress-nginx annotation that protects something is not supported; the Ingress is not served without it',
  'unsupported-annotation': 'warning: an annotation under the prefix is not supported and is ignored',
  'annotation-without-effect':
    'warning: an annotation is set but has no effect (it needs another, or its value is not applied)',
  'auth-url-refused':
    'error: auth-url points where the auth address policy refuses; the Ingress is not served',
  'too-many-paths':
    'error: the Ingress holds more paths than the controller serves per Ingress; it is not served',
  'malformed-field':
    "error: spec.rules, spec.tls or a rule's http.paths is not a list; that part is left out",
  'invalid-host': 'error: a rule or TLS host is no valid host name; that rule or host is left out',
  'invalid-path': 'error: a path (or a regex path) is not valid; the path is left out',
  'invalid-path-type':
    'error: a pathType is unknown, or cannot be served with the rewrite asked for; the path is left out',
  'invalid-backend': 'error: a path or default backend names no valid Service port; the path is left out',
  'invalid-tls-secret-name': 'error: a TLS entry names no valid Secret; its hosts are served without TLS',
  'tls-secret-unusable':
    'error: a TLS Secret is missing or holds no usable certificate and key; its hosts are served without TLS',
  'certificate-expired': 'warning: a TLS certificate has expired; it is served',
  'certificate-host-mismatch': 'warning: a TLS certificate does not cover a host it is served for',
  'configmap-headers-unavailable':
    'error: the ConfigMap of custom-headers or auth-proxy-set-headers is missing or holds an invalid header; every request gets 503',
  'global-rate-limit-unavailable':
    "error: global-rate-limit without the controller ConfigMap's memcached; every request gets 503",
  'global-auth-unavailable':
    "error: the controller ConfigMap's global-auth-url cannot be served; every request gets 503",
  'auth-secret-unusable':
    'error: the Secret of basic or digest authentication is missing or unusable; every request gets 401',
  'backend-tls-secret-unusable':
    'error: the Secret of proxy-ssl-secret is missing or unusable; every forwarded request gets 503',
  'backend-tls-name-missing':
    'error: backend TLS verification needs proxy-ssl-name for a host that names no server; its requests get 503',
  'client-ca-unusable':
    'error: the CA Secret of auth-tls-secret is missing or unusable; every request for the hosts gets 403',
  'custom-errors-without-backend':
    'warning: custom-http-errors has no default backend to answer; intercepted answers become 404',
} as const satisfies Readonly<Record<string, string>>;

/** The code of an Ingress problem. */
export type IngressProblemCode = keyof typeof INGRESS_PROBLEM_CODES;

/** The codes a problem of the annotations can have (see parseAnnotations). */
export type AnnotationProblemCode = Extract<
  IngressProblemCode,
  'invalid-annotation' | 'refused-annotation' | 'unsupported-annotation' | 'annotation-without-effect'
>;

/** A problem log whose codes are IngressProblemCodes. */
export type IngressProblemLog = ProblemLog<IngressProblemCode>;
