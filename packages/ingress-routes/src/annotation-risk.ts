/**
 * annotations-risk-level: the risk ingress-nginx declares for each of its annotations (Low,
 * Medium, High, Critical), and the check that leaves out an Ingress using one above the level the
 * controller ConfigMap accepts, as ingress-nginx's annotation parsers refuse it.
 */
import { annotationField } from './annotation-field.js';

/** The risk levels of ingress-nginx, from least to most risky. */
export const ANNOTATION_RISKS = ['Low', 'Medium', 'High', 'Critical'] as const;

/** A risk level of ingress-nginx. */
export type AnnotationRisk = (typeof ANNOTATION_RISKS)[number];

/** ingress-nginx's default of annotations-risk-level. */
export const DEFAULT_ANNOTATIONS_RISK_LEVEL: AnnotationRisk = 'High';

// What ingress-nginx (v1.15) declares per annotation, aliases (whitelist-source-range,
// limit-whitelist) with the level of their annotation; the global-rate-limit-* levels are those
// of v1.11, its last version with them. Names it declares no level for are not checked, as there.
const DECLARED: Readonly<Record<AnnotationRisk, readonly string[]>> = {
  Critical: [
    'auth-snippet',
    'configuration-snippet',
    'modsecurity-snippet',
    'server-snippet',
    'stream-snippet',
  ],
  High: [
    'auth-signin',
    'auth-tls-error-page',
    'auth-tls-match-cn',
    'auth-url',
    'global-rate-limit-key',
    'mirror-host',
    'mirror-target',
    'modsecurity-transaction-id',
    'proxy-ssl-name',
    'server-alias',
    'upstream-hash-by',
  ],
  Medium: [
    'affinity-mode',
    'allowlist-source-range',
    'app-root',
    'auth-cache-duration',
    'auth-cache-key',
    'auth-proxy-set-headers',
    'auth-realm',
    'auth-request-redirect',
    'auth-response-headers',
    'auth-secret',
    'auth-signin-redirect-param',
    'auth-tls-secret',
    'auth-tls-verify-client',
    'canary-by-cookie',
    'canary-by-header',
    'canary-by-header-pattern',
    'canary-by-header-value',
    'cors-allow-headers',
    'cors-allow-methods',
    'cors-allow-origin',
    'cors-expose-headers',
    'custom-headers',
    'denylist-source-range',
    'fastcgi-index',
    'fastcgi-params-configmap',
    'force-ssl-redirect',
    'global-rate-limit-ignored-cidrs',
    'opentelemetry-operation-name',
    'permanent-redirect',
    'preserve-trailing-slash',
    'proxy-body-size',
    'proxy-cookie-domain',
    'proxy-cookie-path',
    'proxy-next-upstream',
    'proxy-redirect-from',
    'proxy-redirect-to',
    'proxy-ssl-ciphers',
    'proxy-ssl-secret',
    'rewrite-target',
    'session-cookie-domain',
    'session-cookie-expires',
    'session-cookie-max-age',
    'session-cookie-name',
    'session-cookie-path',
    'temporal-redirect',
    'whitelist-source-range',
    'x-forwarded-prefix',
  ],
  Low: [
    'affinity',
    'affinity-canary-behavior',
    'auth-always-set-cookie',
    'auth-keepalive',
    'auth-keepalive-requests',
    'auth-keepalive-share-vars',
    'auth-keepalive-timeout',
    'auth-method',
    'auth-secret-type',
    'auth-tls-pass-certificate-to-upstream',
    'auth-tls-verify-depth',
    'auth-type',
    'backend-protocol',
    'canary',
    'canary-weight',
    'canary-weight-total',
    'client-body-buffer-size',
    'connection-proxy-header',
    'cors-allow-credentials',
    'cors-max-age',
    'custom-http-errors',
    'default-backend',
    'disable-proxy-intercept-errors',
    'enable-access-log',
    'enable-cors',
    'enable-global-auth',
    'enable-modsecurity',
    'enable-opentelemetry',
    'enable-owasp-core-rules',
    'enable-rewrite-log',
    'from-to-www-redirect',
    'global-rate-limit',
    'global-rate-limit-window',
    'http2-push-preload',
    'limit-allowlist',
    'limit-burst-multiplier',
    'limit-connections',
    'limit-rate',
    'limit-rate-after',
    'limit-rpm',
    'limit-rps',
    'limit-whitelist',
    'load-balance',
    'mirror-request-body',
    'opentelemetry-trust-incoming-span',
    'permanent-redirect-code',
    'proxy-buffer-size',
    'proxy-buffering',
    'proxy-buffers-number',
    'proxy-busy-buffers-size',
    'proxy-connect-timeout',
    'proxy-http-version',
    'proxy-max-temp-file-size',
    'proxy-next-upstream-timeout',
    'proxy-next-upstream-tries',
    'proxy-read-timeout',
    'proxy-request-buffering',
    'proxy-send-timeout',
    'proxy-ssl-protocols',
    'proxy-ssl-server-name',
    'proxy-ssl-verify',
    'proxy-ssl-verify-depth',
    'relative-redirects',
    'satisfy',
    'service-upstream',
    'session-cookie-change-on-failure',
    'session-cookie-conditional-samesite-none',
    'session-cookie-samesite',
    'session-cookie-secure',
    'ssl-ciphers',
    'ssl-passthrough',
    'ssl-prefer-server-ciphers',
    'ssl-redirect',
    'temporal-redirect-code',
    'upstream-hash-by-subset',
    'upstream-hash-by-subset-size',
    'upstream-vhost',
    'use-port-in-redirects',
    'use-regex',
  ],
};

const RISK_OF: ReadonlyMap<string, AnnotationRisk> = new Map(
  ANNOTATION_RISKS.flatMap((risk) => DECLARED[risk].map((name) => [name, risk] as const)),
);

/** The risk ingress-nginx declares for an annotation (name without prefix); undefined when none. */
export function annotationRiskOf(name: string): AnnotationRisk | undefined {
  return RISK_OF.get(name);
}

/**
 * annotations-risk-level as ingress-nginx reads it: Critical, High, Medium or Low in any case;
 * undefined for anything else (which ingress-nginx reads as Low).
 */
export function readAnnotationsRiskLevel(value: string): AnnotationRisk | undefined {
  const lower = value.trim().toLowerCase();
  return ANNOTATION_RISKS.find((risk) => risk.toLowerCase() === lower);
}

/** An annotation of an Ingress above the accepted risk. */
export interface RiskyAnnotation {
  /** The annotation's key, prefix included. */
  key: string;
  risk: AnnotationRisk;
}

/**
 * The annotations of `annotations` (keys with `prefix/`) whose declared risk is above `level`,
 * sorted by key. Snippets are left to the snippet rules (allow-snippet-annotations and
 * --allow-snippet-directives), which never serve one as nginx configuration whatever the level.
 */
export function findRiskyAnnotations(
  annotations: Readonly<Record<string, unknown>>,
  prefix: string,
  level: AnnotationRisk,
): RiskyAnnotation[] {
  const accepted = ANNOTATION_RISKS.indexOf(level);
  const risky: RiskyAnnotation[] = [];
  for (const key of Object.keys(annotations).sort()) {
    if (!key.startsWith(`${prefix}/`)) continue;
    const name = key.slice(prefix.length + 1);
    const risk = RISK_OF.get(name);
    if (risk === undefined || name.endsWith('-snippet')) continue;
    if (ANNOTATION_RISKS.indexOf(risk) > accepted) risky.push({ key, risk });
  }
  return risky;
}

/** The problem of a risky annotation, as translateIngress reports it. */
export function describeRiskyAnnotation(
  annotation: RiskyAnnotation,
  level: AnnotationRisk,
): { field: string; message: string } {
  return {
    field: annotationField(annotation.key),
    message: `annotation "${annotation.key}" is of risk ${annotation.risk}, above the controller ConfigMap's annotations-risk-level ${level}; the Ingress is not served`,
  };
}
