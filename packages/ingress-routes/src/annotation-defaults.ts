/**
 * The defaults of an Ingress's annotations, and the annotation grammar lent to the controller's
 * ConfigMap: the keys that set an annotation's default, and checks of values that share a grammar.
 */
import { findAnnotationParser } from './annotation-parsers.js';
import type { IngressAnnotations, AnnotationDefaults } from './annotation-types.js';

/** The annotations of an Ingress that sets none: ingress-nginx's defaults, then `defaults` over them. */
export function createAnnotationDefaults(defaults: AnnotationDefaults = {}): IngressAnnotations {
  return {
    sslRedirect: true,
    forceSslRedirect: false,
    useRegex: false,
    allowSourceRanges: [],
    backendProtocol: 'HTTP',
    ...defaults,
    // Copies: the parsers of the Ingress's own proxy annotations write into them.
    ...(defaults.proxy === undefined ? {} : { proxy: { ...defaults.proxy } }),
    ...(defaults.upstreamSettings === undefined
      ? {}
      : { upstreamSettings: { ...defaults.upstreamSettings } }),
  };
}

/**
 * The annotations whose default the controller's ConfigMap sets (ingress-nginx reads the same
 * names there): an Ingress without the annotation gets the ConfigMap's value.
 */
export const ANNOTATION_DEFAULT_KEYS = [
  'ssl-redirect',
  'force-ssl-redirect',
  'proxy-connect-timeout',
  'proxy-read-timeout',
  'proxy-send-timeout',
  'custom-http-errors',
  'load-balance',
] as const;

/**
 * Why `value` is not valid for the annotation `name` (without prefix), or undefined when it is:
 * the annotation's own grammar, for settings elsewhere that take the same values.
 */
export function checkAnnotationValue(name: string, value: string): string | undefined {
  const parser = findAnnotationParser(name);
  return parser === undefined ? `is not a known annotation` : parser(value, createAnnotationDefaults());
}

/**
 * Reads one ANNOTATION_DEFAULT_KEYS value with the annotation's own grammar into `into`; returns
 * why it is invalid, or undefined.
 */
export function parseAnnotationDefault(
  key: (typeof ANNOTATION_DEFAULT_KEYS)[number],
  value: string,
  into: AnnotationDefaults,
): string | undefined {
  const parsed = createAnnotationDefaults();
  const reason = findAnnotationParser(key)!(value, parsed);
  if (reason !== undefined) return reason;
  const field = (
    {
      'ssl-redirect': 'sslRedirect',
      'force-ssl-redirect': 'forceSslRedirect',
      'proxy-connect-timeout': 'connectTimeoutSeconds',
      'proxy-read-timeout': 'readTimeoutSeconds',
      'proxy-send-timeout': 'sendTimeoutSeconds',
      'custom-http-errors': 'customHttpErrors',
      'load-balance': 'proxy',
    } as const
  )[key];
  // The ConfigMap's error codes are kept apart: they go to the controller's default backend only.
  const target = field === 'customHttpErrors' ? 'defaultCustomHttpErrors' : field;
  // The proxy keys of configmap-proxy-defaults write into `proxy` too.
  const read = field === 'proxy' ? { ...into.proxy, ...parsed.proxy } : parsed[field];
  (into as Record<string, unknown>)[target] = read;
  return undefined;
}
