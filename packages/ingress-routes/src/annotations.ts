/**
 * parseAnnotations: an Ingress's annotations under a prefix become the typed IngressAnnotations and
 * their problems (each value read by annotation-parsers.ts, then each family combined).
 * An invalid value is an error that leaves the whole Ingress out; unsupported annotations that
 * protect something (see ingress-nginx-annotations.ts: auth, limits, WAF, backend TLS, snippets)
 * do the same, other unsupported ones are ignored with a warning.
 */
import { compareText } from '@ingresskit/route-model';
import { createAnnotationDefaults } from './annotation-defaults.js';
import { findAnnotationParser } from './annotation-parsers.js';
import { combineAffinity } from './affinity-annotations.js';
import { combineAuth } from './auth-annotations.js';
import { combineBackendTls } from './backend-tls-annotations.js';
import { combineClientCertificate } from './client-certificate-annotations.js';
import { combineCanary } from './canary-annotations.js';
import { combineCors } from './cors-annotations.js';
import { annotationNaming, combineExternalAuth } from './external-auth-annotations.js';
import { refusalOf } from './ingress-nginx-annotations.js';
import { checkLimitAnnotations } from './limit-annotations.js';
import { checkGlobalRateLimitAnnotations } from './global-rate-limit-annotations.js';
import { combineProxy } from './proxy-annotations.js';
import { combineRedirects } from './redirect-annotations.js';
import { checkRewriteTarget } from './rewrite-annotations.js';
import { annotationField } from './annotation-field.js';
import { checkBusyBuffers, dropBusyBuffers } from './upstream-annotations.js';
import { translateSnippet } from './snippet-directives.js';
import {
  type AnnotationDefaults,
  DEFAULT_ANNOTATION_PREFIX,
  type AnnotationParseResult,
  type AnnotationParser,
  type AnnotationProblem,
} from './annotation-types.js';

/** Longest annotation value read; longer ones are refused before any parsing. */
const MAX_VALUE_LENGTH = 4096;

/**
 * Annotations under the prefix that carry data for other parts of a controller, not for routing:
 * `version` is the Ingress's configuration version in Tengine's global checksum.
 */
const NOT_FOR_ROUTING: ReadonlySet<string> = new Set(['version']);

/** The annotation an operator may open to the directives of translateSnippet. */
const SNIPPET_ANNOTATION = 'configuration-snippet';

/** The parser of configuration-snippet allowing `allowed` directives. */
function createSnippetParser(allowed: ReadonlySet<string>): AnnotationParser {
  return (value, into) => {
    const translated = translateSnippet(value, allowed);
    if ('problem' in translated) return `cannot be translated (${translated.problem})`;
    if (Object.keys(translated.headers).length > 0) into.snippetHeaders = translated.headers;
    return undefined;
  };
}

/**
 * Parses the annotations under `prefix` (a Kubernetes `metadata.annotations` value, possibly
 * malformed). Returns the typed values, or no values and at least one error when the Ingress
 * must be left out. configuration-snippet is parsed only when `allowedSnippetDirectives` names
 * directives (see translateSnippet); else it is refused. Never throws.
 */
export function parseAnnotations(
  raw: unknown,
  prefix: string = DEFAULT_ANNOTATION_PREFIX,
  defaults?: AnnotationDefaults,
  allowedSnippetDirectives: readonly string[] = [],
): AnnotationParseResult {
  const into = createAnnotationDefaults(defaults);
  const problems: AnnotationProblem[] = [];
  if (raw === undefined || raw === null) return { annotations: into, problems };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      problems: [
        {
          field: 'metadata.annotations',
          message: 'must be a map of strings',
          code: 'invalid-annotation',
          severity: 'error',
        },
      ],
    };
  }
  const entries = Object.entries(raw as Record<string, unknown>).sort(([a], [b]) => compareText(a, b));
  const withPrefix = `${prefix}/`;
  // allowlist- and denylist-source-range, limit-allowlist are the current names; set beside the
  // old ones, they win.
  const current = new Set(
    ['allowlist-source-range', 'denylist-source-range', 'limit-allowlist'].map(
      (name) => `${withPrefix}${name}`,
    ),
  );
  const ordered = [
    ...entries.filter(([key]) => !current.has(key)),
    ...entries.filter(([key]) => current.has(key)),
  ];
  for (const [key, value] of ordered) {
    if (!key.startsWith(withPrefix)) continue;
    const name = key.slice(withPrefix.length);
    const field = annotationField(key);
    if (NOT_FOR_ROUTING.has(name)) continue;
    const isSnippet = name === SNIPPET_ANNOTATION && allowedSnippetDirectives.length > 0;
    const parser = isSnippet
      ? createSnippetParser(new Set(allowedSnippetDirectives))
      : findAnnotationParser(name);
    if (parser === undefined) {
      const refusal = refusalOf(name, value);
      problems.push(
        refusal !== undefined
          ? {
              field,
              message: `annotation "${name}" is not supported; the Ingress is not served without it, since ${refusal}`,
              code: 'refused-annotation',
              severity: 'error',
            }
          : {
              field,
              message: `annotation "${name}" is not supported and is ignored`,
              code: 'unsupported-annotation',
              severity: 'warning',
            },
      );
      continue;
    }
    if (typeof value !== 'string') {
      problems.push({
        field,
        message: `annotation "${name}" must be a string`,
        code: 'invalid-annotation',
        severity: 'error',
      });
      continue;
    }
    if (value.length > MAX_VALUE_LENGTH) {
      problems.push({
        field,
        message: `annotation "${name}" must be at most ${MAX_VALUE_LENGTH} characters`,
        code: 'invalid-annotation',
        severity: 'error',
        value: value.slice(0, 64),
      });
      continue;
    }
    // A snippet is lines of directives: its tokenizer refuses the control characters other than
    // tab, CR and LF, which end nothing there since the snippet only ever becomes data.
    const reason =
      // eslint-disable-next-line no-control-regex -- newlines and NUL are the classic injection
      !isSnippet && /[\u0000-\u001f\u007f]/.test(value)
        ? 'must not hold control characters'
        : parser(value, into);
    if (reason !== undefined) {
      problems.push({
        field,
        message: `annotation "${name}" ${reason}`,
        code: 'invalid-annotation',
        severity: 'error',
        value,
      });
    }
  }
  checkRewriteTarget(into, withPrefix, problems);
  combineRedirects(into, withPrefix, problems);
  combineCors(into, withPrefix, problems);
  const names = new Set(ordered.map(([key]) => key.slice(withPrefix.length)));
  checkLimitAnnotations(into.limits, withPrefix, problems, names);
  checkGlobalRateLimitAnnotations(into.globalRateLimit, withPrefix, problems, names);
  const canary = combineCanary(into.canaryAnnotations, withPrefix, problems);
  if (canary !== undefined) into.canary = canary;
  const basicAuth = combineAuth(into.auth, withPrefix, problems);
  if (basicAuth !== undefined) into.basicAuthRequest = basicAuth;
  const clientCertificate = combineClientCertificate(into.clientCertificate, withPrefix, problems);
  if (clientCertificate !== undefined) into.clientCertificateRequest = clientCertificate;
  const backendTls = combineBackendTls(
    into.backendTlsAnnotations,
    into.backendProtocol,
    withPrefix,
    problems,
  );
  if (backendTls !== undefined) into.backendTlsRequest = backendTls;
  const externalAuth = combineExternalAuth(
    into.externalAuthAnnotations,
    annotationNaming(withPrefix),
    problems,
  );
  if (externalAuth !== undefined) into.externalAuth = externalAuth;
  const affinity = combineAffinity(into.affinity, withPrefix, problems);
  if (affinity !== undefined) into.sessionAffinity = affinity;
  const busyBuffers = checkBusyBuffers(into.upstreamSettings);
  if (busyBuffers !== undefined) {
    // Left out, not refused: the response is only buffered as nginx's default says.
    dropBusyBuffers(into);
    problems.push({
      field: annotationField(`${withPrefix}proxy-busy-buffers-size`),
      message: `proxy-busy-buffers-size (the annotation's or the controller ConfigMap's) ${busyBuffers}; it is not applied`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  }
  const locationRewrite = combineProxy(into.proxy, withPrefix, problems);
  if (locationRewrite !== undefined) into.locationRewrite = locationRewrite;
  if (problems.some((problem) => problem.severity === 'error')) return { problems };
  return { annotations: into, problems };
}
