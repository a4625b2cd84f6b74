/**
 * auth-proxy-set-headers: the ConfigMap whose entries are headers set on every check sent to the
 * external auth service. It must be of the Ingress's namespace (as ingress-nginx by default); a
 * missing ConfigMap, one of another namespace, or an entry that is no valid header closes the
 * Ingress's routes (503, as ingress-nginx denies the location) with an error naming it: the
 * headers are part of how clients are authenticated, so the routes never open without them.
 */
import type { Context } from './translation-context.js';
import { createRequestHeaderGrammar, readAnnotationHeaders } from './configmap-headers.js';
import { type IngressAnnotations } from './annotation-types.js';

/** How a problem caused by the auth-proxy-set-headers ConfigMap begins (see isReferencedObjectProblem). */
export const AUTH_HEADERS_PROBLEM = 'auth headers ConfigMap ';

/** The headers of a check: not those the data plane sets itself on it, or that frame it. */
const CHECK_HEADERS = createRequestHeaderGrammar(
  ['x-original-url', 'x-original-method', 'x-auth-request-redirect', 'x-sent-from'],
  'is a header the check sets itself',
);

/**
 * The annotations with the headers of auth-proxy-set-headers on `externalAuth`, when auth-url and
 * auth-proxy-set-headers are both set; the ConfigMap's key is recorded so a change to it
 * translates the Ingress again. When the headers cannot be read, the routes are closed.
 */
export function resolveAuthProxyHeaders(
  annotations: IngressAnnotations,
  context: Context,
): IngressAnnotations {
  const request = annotations.externalAuthAnnotations?.proxySetHeaders;
  const auth = annotations.externalAuth;
  if (request === undefined || auth === undefined) return annotations;
  const read = readAnnotationHeaders(
    context,
    'auth-proxy-set-headers',
    AUTH_HEADERS_PROBLEM,
    request,
    CHECK_HEADERS,
  );
  if (read === undefined) return { ...annotations, closed: true };
  if (read.headers.length === 0) return annotations;
  return { ...annotations, externalAuth: { ...auth, requestHeaders: read.headers } };
}
