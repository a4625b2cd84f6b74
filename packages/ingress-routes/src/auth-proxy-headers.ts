/**
 * auth-proxy-set-headers: the ConfigMap whose entries are headers set on every check sent to the
 * external auth service. It must be of the Ingress's namespace (as ingress-nginx by default); a
 * missing ConfigMap, one of another namespace, or an entry that is no valid header closes the
 * Ingress's routes (503, as ingress-nginx denies the location) with an error naming it: the
 * headers are part of how clients are authenticated, so the routes never open without them.
 */
import type { IngressAnnotations } from './annotations.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotations.js';
import { annotationField } from './annotation-field.js';
import type { Context } from './translation-context.js';
import { readConfigMapHeaders, readIngressConfigMap, type HeaderGrammar } from './configmap-headers.js';

/** How a problem caused by the auth-proxy-set-headers ConfigMap begins (see isReferencedObjectProblem). */
export const AUTH_HEADERS_PROBLEM = 'auth headers ConfigMap ';

/** Headers the data plane sets itself on a check, or that frame it: never taken from a ConfigMap. */
const RESERVED = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'te',
  'upgrade',
  'expect',
  'proxy-connection',
  'x-original-url',
  'x-original-method',
  'x-original-uri',
  'x-scheme',
  'x-auth-request-redirect',
  'x-sent-from',
  'x-real-ip',
  'x-forwarded-for',
  'x-request-id',
]);

const CHECK_HEADERS: HeaderGrammar = {
  // ingress-nginx's header grammar without "_": nginx drops such names on the way to the service.
  name: /^[A-Za-z0-9-]{1,128}$/,
  nameRule: 'A-Z a-z 0-9 -',
  max: 64,
  reserved: (name) =>
    RESERVED.has(name) || name.startsWith('x-ingresskit-') ? 'is a header the check sets itself' : undefined,
};

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
  const field = annotationField(
    `${context.config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX}/auth-proxy-set-headers`,
  );
  const closed = (message: string): IngressAnnotations => {
    context.log.error(field, `${AUTH_HEADERS_PROBLEM}${message}; every request gets 503`);
    return { ...annotations, closed: true };
  };
  const found = readIngressConfigMap(context, request);
  if ('problem' in found) return closed(found.problem);
  const headers = readConfigMapHeaders(found.data, CHECK_HEADERS);
  if (typeof headers === 'string') return closed(`${found.key} ${headers}`);
  if (headers.length === 0) return annotations;
  return { ...annotations, externalAuth: { ...auth, requestHeaders: headers } };
}
