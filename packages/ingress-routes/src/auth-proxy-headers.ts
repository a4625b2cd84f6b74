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

/** How a problem caused by the auth-proxy-set-headers ConfigMap begins (see isReferencedObjectProblem). */
export const AUTH_HEADERS_PROBLEM = 'auth headers ConfigMap ';

// ingress-nginx's header grammar without "_": nginx drops such names on the way to the service.
const HEADER_NAME = /^[A-Za-z0-9-]{1,128}$/;
// Printable ASCII; "$" too, since ingress-nginx would expand it as an nginx variable.
const HEADER_VALUE = /^[\x20-\x23\x25-\x7e]{0,2048}$/;
const MAX_HEADERS = 64;
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

/** The headers of a ConfigMap's data, sorted by name, or why one is not a header. */
function readHeaders(data: unknown): { name: string; value: string }[] | string {
  const entries = typeof data === 'object' && data !== null ? Object.entries(data) : [];
  if (entries.length > MAX_HEADERS) return `holds more than ${MAX_HEADERS} headers`;
  const headers: { name: string; value: string }[] = [];
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) return `key "${name}" is not a header name (A-Z a-z 0-9 -)`;
    if (RESERVED.has(name.toLowerCase()) || name.toLowerCase().startsWith('x-ingresskit-')) {
      return `key "${name}" is a header the check sets itself`;
    }
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      return `value of "${name}" must be at most 2048 printable characters without "$" (nginx variables are not supported)`;
    }
    headers.push({ name, value });
  }
  return headers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

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
  const namespace = context.source.namespace;
  const field = annotationField(
    `${context.config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX}/auth-proxy-set-headers`,
  );
  const closed = (message: string): IngressAnnotations => {
    context.log.error(field, `${AUTH_HEADERS_PROBLEM}${message}; every request gets 503`);
    return { ...annotations, closed: true };
  };
  if (request.namespace !== undefined && request.namespace !== namespace) {
    return closed(
      `${request.namespace}/${request.name} is of another namespace, which an Ingress may not use`,
    );
  }
  const key = `${namespace}/${request.name}`;
  context.configMapsRead.add(key);
  const configMap = context.references.configMap?.(namespace, request.name);
  if (configMap === undefined || configMap === null) return closed(`${key} not found`);
  const headers = readHeaders(configMap.data);
  if (typeof headers === 'string') return closed(`${key} ${headers}`);
  if (headers.length === 0) return annotations;
  return { ...annotations, externalAuth: { ...auth, requestHeaders: headers } };
}
