/**
 * Headers held in a ConfigMap named by an annotation (auth-proxy-set-headers, custom-headers): the
 * grammar of the reference, the lookup in the Ingress's namespace, and the checks of each entry.
 */
import { checkDnsLabel, INGRESS_NGINX_ANNOTATION_PREFIX } from '@ingresskit/kube-objects';
import { annotationField } from './annotation-field.js';
import type { Context } from './translation-context.js';
import type { ConfigMapHeader, ConfigMapReference } from './annotation-parts.js';

/** How the entries of a ConfigMap become headers. */
export interface HeaderGrammar {
  /** What a name must match, and how the rule reads in a problem. */
  name: RegExp;
  nameRule: string;
  /** Most entries one ConfigMap may hold. */
  max: number;
  /** Why a (lower-case) name may not be taken from the ConfigMap, or undefined when it may. */
  reserved(lowerName: string): string | undefined;
}

/** Headers that frame a message: nginx writes them, never a ConfigMap (lower case). */
export const FRAMING_HEADERS: readonly string[] = [
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
];

/** Headers the data plane sets on every request it sends on, to a backend or an auth service. */
export const UPSTREAM_HEADERS: readonly string[] = [
  'host',
  'expect',
  'x-real-ip',
  'x-forwarded-for',
  'x-request-id',
  'x-original-uri',
  'x-scheme',
];

/**
 * The grammar of headers set on a request sent on (to a backend or an auth service): nginx drops
 * names with "_" on the way, and the headers that frame the request, those the data plane sets
 * itself and `reserved` are refused, with `reason`.
 */
export function createRequestHeaderGrammar(reserved: readonly string[], reason: string): HeaderGrammar {
  const refused = new Set([...FRAMING_HEADERS, ...UPSTREAM_HEADERS, ...reserved]);
  return {
    name: /^[A-Za-z0-9-]{1,128}$/,
    nameRule: 'A-Z a-z 0-9 -',
    max: 64,
    reserved: (name) => (refused.has(name) || name.startsWith('x-ingresskit-') ? reason : undefined),
  };
}

// Printable ASCII without "$": ingress-nginx would expand it as an nginx variable, and we never do.
const HEADER_VALUE = /^[\x20-\x23\x25-\x7e]{0,2048}$/;

/** Whether `value` is a header value we send as written: at most 2048 printable characters, no "$". */
export function isLiteralHeaderValue(value: string): boolean {
  return HEADER_VALUE.test(value);
}

/** `value` as a ConfigMap reference (NAME or NAMESPACE/NAME), or why it is not one. */
export function parseConfigMapReference(value: string): ConfigMapReference | string {
  const parts = value.split('/');
  const problem =
    parts.length > 2
      ? 'is not NAME or NAMESPACE/NAME'
      : parts.map((part) => checkDnsLabel(part)).find((reason) => reason !== undefined);
  if (problem !== undefined) return `must name a ConfigMap (NAME or NAMESPACE/NAME): ${problem}`;
  return parts.length === 2 ? { namespace: parts[0]!, name: parts[1]! } : { name: parts[0]! };
}

/**
 * The `data` of the ConfigMap `reference` names, which must be of the Ingress's namespace (as
 * ingress-nginx allows by default), or why it cannot be read. The key is recorded as read either
 * way, so that its creation or change translates the Ingress again.
 */
export function readIngressConfigMap(
  context: Context,
  reference: ConfigMapReference,
): { key: string; data: unknown } | { problem: string } {
  const namespace = context.source.namespace;
  if (reference.namespace !== undefined && reference.namespace !== namespace) {
    return {
      problem: `${reference.namespace}/${reference.name} is of another namespace, which an Ingress may not use`,
    };
  }
  const key = `${namespace}/${reference.name}`;
  context.configMapsRead.add(key);
  const configMap = context.references.configMap?.(namespace, reference.name);
  if (configMap === undefined || configMap === null) return { problem: `${key} not found` };
  return { key, data: configMap.data };
}

/**
 * The headers of a ConfigMap's data by `grammar`, sorted by name, and why each entry left out is
 * not a header (all of them when there are too many).
 */
export function checkConfigMapHeaders(
  data: unknown,
  grammar: HeaderGrammar,
): { headers: ConfigMapHeader[]; problems: string[] } {
  const entries = typeof data === 'object' && data !== null ? Object.entries(data) : [];
  if (entries.length > grammar.max)
    return { headers: [], problems: [`holds more than ${grammar.max} headers`] };
  const headers: ConfigMapHeader[] = [];
  const problems: string[] = [];
  for (const [name, value] of entries) {
    const reserved = grammar.name.test(name) ? grammar.reserved(name.toLowerCase()) : undefined;
    if (!grammar.name.test(name)) problems.push(`key "${name}" is not a header name (${grammar.nameRule})`);
    else if (reserved !== undefined) problems.push(`key "${name}" ${reserved}`);
    else if (typeof value !== 'string' || !isLiteralHeaderValue(value)) {
      problems.push(
        `value of "${name}" must be at most 2048 printable characters without "$" (nginx variables are not supported)`,
      );
    } else headers.push({ name, value });
  }
  headers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { headers, problems };
}

/** The headers of a ConfigMap's data by `grammar`, sorted by name, or why one is not a header. */
export function readConfigMapHeaders(data: unknown, grammar: HeaderGrammar): ConfigMapHeader[] | string {
  const { headers, problems } = checkConfigMapHeaders(data, grammar);
  return problems[0] ?? headers;
}

/**
 * The headers of the ConfigMap the annotation `annotation` names, by `grammar`; undefined when
 * they cannot be read, after an error on the annotation beginning with `problem` (the caller
 * closes the routes: headers asked for are never left out).
 */
export function readAnnotationHeaders(
  context: Context,
  annotation: string,
  problem: string,
  reference: ConfigMapReference,
  grammar: HeaderGrammar,
): { key: string; headers: ConfigMapHeader[] } | undefined {
  const close = (message: string): undefined => {
    closeFor(context, annotation, `${problem}${message}`);
    return undefined;
  };
  const found = readIngressConfigMap(context, reference);
  if ('problem' in found) return close(found.problem);
  const headers = readConfigMapHeaders(found.data, grammar);
  if (typeof headers === 'string') return close(`${found.key} ${headers}`);
  return { key: found.key, headers };
}

/** Reports `message` as an error on the annotation `annotation`, whose routes then answer 503. */
export function closeFor(context: Context, annotation: string, message: string): void {
  const prefix = context.config.annotationPrefix ?? INGRESS_NGINX_ANNOTATION_PREFIX;
  context.log.error(
    'configmap-headers-unavailable',
    annotationField(`${prefix}/${annotation}`),
    `${message}; every request gets 503`,
  );
}
