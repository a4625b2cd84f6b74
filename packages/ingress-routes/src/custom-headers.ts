/**
 * custom-headers: the ConfigMap whose entries are response headers added to every answer of the
 * Ingress's routes. As in ingress-nginx, the ConfigMap must be of the Ingress's namespace and every
 * header name must be allowed by the controller ConfigMap's global-allowed-response-headers. These
 * are often security headers (CSP, X-Frame-Options), so the routes never open without them: a
 * missing ConfigMap, a header not allowed or an entry that is no valid header closes the routes
 * (503, as ingress-nginx denies the location) with an error naming the annotation.
 */
import {
  closeFor,
  FRAMING_HEADERS,
  parseConfigMapReference,
  readAnnotationHeaders,
  type HeaderGrammar,
} from './configmap-headers.js';
import type { Context } from './translation-context.js';
import { type AnnotationParser, type IngressAnnotations } from './annotation-types.js';

/** How a problem caused by the custom-headers ConfigMap begins (see isReferencedObjectProblem). */
export const CUSTOM_HEADERS_PROBLEM = 'custom headers ConfigMap ';

const FRAMING = new Set(FRAMING_HEADERS);

/** The grammar of response headers in a ConfigMap (custom-headers, the ConfigMap's add-headers). */
export const RESPONSE_HEADERS: HeaderGrammar = {
  // ingress-nginx's grammar of custom-headers names.
  name: /^[A-Za-z0-9_-]{1,128}$/,
  nameRule: 'A-Z a-z 0-9 - _',
  max: 64,
  reserved: (name) => (FRAMING.has(name) ? 'is a header that frames the response' : undefined),
};

/** The custom-headers annotation. */
export const CUSTOM_HEADER_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'custom-headers': (value, into) => {
    const reference = parseConfigMapReference(value);
    if (typeof reference === 'string') return reference;
    into.customHeaders = reference;
    return undefined;
  },
};

/**
 * The annotations with the response headers of custom-headers, when it is set; the ConfigMap's
 * key is recorded so a change to it translates the Ingress again. When a header cannot be read or
 * is not allowed (IngressTranslationConfig.allowedResponseHeaders), the routes are closed.
 */
export function resolveCustomHeaders(context: Context): IngressAnnotations {
  const annotations = context.annotations;
  const request = annotations.customHeaders;
  if (request === undefined) return annotations;
  const read = readAnnotationHeaders(
    context,
    'custom-headers',
    CUSTOM_HEADERS_PROBLEM,
    request,
    RESPONSE_HEADERS,
  );
  if (read === undefined) return { ...annotations, closed: true };
  const { key, headers } = read;
  const allowed = new Set((context.config.allowedResponseHeaders ?? []).map((name) => name.toLowerCase()));
  const refused = headers.filter((header) => !allowed.has(header.name.toLowerCase()));
  if (refused.length > 0) {
    const names = refused.map((header) => header.name).join(', ');
    const message = `${key} holds ${names}, not allowed by the controller ConfigMap's global-allowed-response-headers`;
    closeFor(context, 'custom-headers', `${CUSTOM_HEADERS_PROBLEM}${message}`);
    return { ...annotations, closed: true };
  }
  if (headers.length === 0) return annotations;
  return { ...annotations, customResponseHeaders: headers };
}
