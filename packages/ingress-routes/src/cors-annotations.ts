/**
 * ingress-nginx's CORS annotations: enable-cors and the cors-* options it picks up, with
 * ingress-nginx's defaults for the options left unset.
 */
import type { CorsPolicy } from '@ingresskit/route-model';
import { createPendingStore } from './pending-annotations.js';
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import { annotationField } from './annotation-field.js';
import {
  type AnnotationParser,
  type AnnotationProblem,
  type IngressAnnotations,
} from './annotation-types.js';

/** ingress-nginx's CORS defaults (its annotations documentation and cors parser). */
export const CORS_DEFAULTS: Readonly<CorsPolicy> = {
  allowOrigins: ['*'],
  allowMethods: 'GET, PUT, POST, DELETE, PATCH, OPTIONS',
  allowHeaders:
    'DNT,X-CustomHeader,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Authorization',
  exposeHeaders: '',
  allowCredentials: true,
  maxAgeSeconds: 1728000,
};

/**
 * What the CORS annotations say before they are combined: the options need enable-cors, which
 * may come later in the loop. Kept aside so the parsed annotations hold only the resulting policy.
 */
interface PendingCors {
  enabled?: boolean;
  /** The cors-* annotations set, by name, for the warning when enable-cors is not "true". */
  options?: { names: string[]; values: Partial<CorsPolicy> };
}

const PENDING = createPendingStore<PendingCors>();

/**
 * A list of words separated by a comma and/or a space, as ingress-nginx's CORS grammars allow;
 * written without nested optional parts so a long non-matching value cannot backtrack for long.
 */
function createWordList(word: string): RegExp {
  return new RegExp(`^${word}(?:(?:, ?| )${word})*(?:, ?)?$`);
}

const CORS_METHODS = createWordList('[A-Za-z]+');
const CORS_HEADERS = createWordList('[A-Za-z0-9_-]+');
const CORS_EXPOSE_HEADERS = createWordList('(?:[A-Za-z0-9_-]+|\\*)');
const CORS_ORIGIN = /^https?:\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?$/;

/** A cors-* option: `read` checks the value; it is kept for enable-cors to pick up. */
function parseCorsOption<K extends keyof CorsPolicy>(
  name: string,
  key: K,
  read: (value: string) => { value: CorsPolicy[K] } | string,
): AnnotationParser {
  return (value, into) => {
    const parsed = read(value);
    if (typeof parsed === 'string') return parsed;
    const options = (PENDING.of(into).options ??= { names: [], values: {} });
    options.names.push(name);
    options.values[key] = parsed.value;
    return undefined;
  };
}

function createWordListReader(grammar: RegExp, what: string): (value: string) => { value: string } | string {
  return (value) => (grammar.test(value) ? { value } : `must be a list of ${what} separated by "," or " "`);
}

function readCorsOrigins(value: string): { value: string[] } | string {
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  if (origins.length === 1 && origins[0] === '*') return { value: origins };
  if (origins.length === 0) return 'must be "*" or a list of origins';
  for (const origin of origins) {
    if (!CORS_ORIGIN.test(origin)) {
      return `"${origin}" is not "*" alone or an origin http(s)://host[:port], the host possibly starting with "*."`;
    }
  }
  return { value: [...new Set(origins)] };
}

/** The parsers of enable-cors and the cors-* options; combineCors makes the policy of what they keep. */
export const CORS_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'enable-cors': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    PENDING.of(into).enabled = on;
    return undefined;
  },
  'cors-allow-origin': parseCorsOption('cors-allow-origin', 'allowOrigins', readCorsOrigins),
  'cors-allow-methods': parseCorsOption(
    'cors-allow-methods',
    'allowMethods',
    createWordListReader(CORS_METHODS, 'methods'),
  ),
  'cors-allow-headers': parseCorsOption(
    'cors-allow-headers',
    'allowHeaders',
    createWordListReader(CORS_HEADERS, 'header names'),
  ),
  'cors-expose-headers': parseCorsOption(
    'cors-expose-headers',
    'exposeHeaders',
    createWordListReader(CORS_EXPOSE_HEADERS, 'header names or "*"'),
  ),
  'cors-allow-credentials': parseCorsOption('cors-allow-credentials', 'allowCredentials', (value) => {
    const on = readBoolean(value);
    return on === undefined ? BOOLEAN_PROBLEM : { value: on };
  }),
  'cors-max-age': parseCorsOption('cors-max-age', 'maxAgeSeconds', (value) =>
    /^[0-9]{1,9}$/.test(value) ? { value: Number(value) } : 'must be whole seconds from 0 to 999999999',
  ),
};

/**
 * Sets `into.cors` when enable-cors is "true": the cors-* options over CORS_DEFAULTS. Without it
 * each option set does nothing and gets a warning in `problems`.
 */
export function combineCors(
  into: IngressAnnotations,
  withPrefix: string,
  problems: AnnotationProblem[],
): void {
  const pending = PENDING.peek(into);
  if (pending === undefined) return;
  const { names, values } = pending.options ?? { names: [], values: {} };
  if (pending.enabled === true) {
    into.cors = { ...CORS_DEFAULTS, ...values };
    return;
  }
  for (const name of names) {
    problems.push({
      field: annotationField(`${withPrefix}${name}`),
      message: `annotation "${name}" has no effect without enable-cors "true"`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  }
}
