/**
 * ingress-nginx's cookie session affinity: affinity (cookie), affinity-mode (balanced by default,
 * or persistent) and the session-cookie-* options (name INGRESSCOOKIE by default).
 */
import type { SessionAffinity } from '@ingresskit/route-model';
import { checkLiteralPath, BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import { annotationField } from './annotation-field.js';
import {
  type AnnotationProblem,
  type IngressAnnotations,
  type AnnotationParser,
} from './annotation-types.js';
import type { AffinityAnnotations } from './annotation-parts.js';

/** ingress-nginx's default session cookie name. */
export const DEFAULT_SESSION_COOKIE = 'INGRESSCOOKIE';
const COOKIE_NAME = /^[A-Za-z0-9._-]{1,256}$/;
const DOMAIN = /^\.?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
const SAME_SITE: Readonly<Record<string, 'None' | 'Lax' | 'Strict'>> = {
  none: 'None',
  lax: 'Lax',
  strict: 'Strict',
};

function affinityOf(into: IngressAnnotations): AffinityAnnotations {
  return (into.affinity ??= { cookie: {}, names: [] });
}

/** A session-cookie-* option: `read` checks the value, `set` keeps it. */
function option<T>(
  name: string,
  read: (value: string) => { value: T } | string,
  set: (affinity: AffinityAnnotations, value: T) => void,
): AnnotationParser {
  return (value, into) => {
    const parsed = read(value);
    if (typeof parsed === 'string') return parsed;
    const affinity = affinityOf(into);
    affinity.names.push(name);
    set(affinity, parsed.value);
    return undefined;
  };
}

function readSwitch(value: string): { value: boolean } | string {
  const on = readBoolean(value);
  return on === undefined ? BOOLEAN_PROBLEM : { value: on };
}

function readSeconds(value: string): { value: number } | string {
  return /^[0-9]{1,10}$/.test(value) && Number(value) <= 2 ** 31 - 1
    ? { value: Number(value) }
    : 'must be whole seconds from 0 to 2147483647';
}

/** The parsers of the affinity annotations. */
export const AFFINITY_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  affinity: (value, into) => {
    if (value !== 'cookie') return 'must be "cookie"';
    affinityOf(into).enabled = true;
    return undefined;
  },
  'affinity-mode': (value, into) => {
    if (value !== 'balanced' && value !== 'persistent') return 'must be "balanced" or "persistent"';
    affinityOf(into).mode = value;
    return undefined;
  },
  'session-cookie-name': option(
    'session-cookie-name',
    (value) => (COOKIE_NAME.test(value) ? { value } : 'must be letters, digits, ".", "-" and "_"'),
    (affinity, value) => (affinity.cookie.name = value),
  ),
  'session-cookie-path': option(
    'session-cookie-path',
    (value) => checkLiteralPath(value) ?? { value },
    (affinity, value) => (affinity.cookie.path = value),
  ),
  'session-cookie-domain': option(
    'session-cookie-domain',
    (value) => (DOMAIN.test(value) ? { value } : 'must be a domain name'),
    (affinity, value) => (affinity.cookie.domain = value),
  ),
  'session-cookie-samesite': option(
    'session-cookie-samesite',
    (value) => {
      const sameSite = SAME_SITE[value.toLowerCase()];
      return sameSite === undefined ? 'must be None, Lax or Strict' : { value: sameSite };
    },
    (affinity, value) => (affinity.cookie.sameSite = value),
  ),
  'session-cookie-conditional-samesite-none': option(
    'session-cookie-conditional-samesite-none',
    readSwitch,
    (affinity, value) => (affinity.cookie.conditionalSameSiteNone = value),
  ),
  'session-cookie-secure': option(
    'session-cookie-secure',
    readSwitch,
    (affinity, value) => (affinity.cookie.secure = value),
  ),
  'session-cookie-max-age': option(
    'session-cookie-max-age',
    readSeconds,
    (affinity, value) => (affinity.cookie.maxAgeSeconds = value),
  ),
  'session-cookie-expires': option(
    'session-cookie-expires',
    readSeconds,
    (affinity, value) => (affinity.cookie.expiresSeconds = value),
  ),
  'session-cookie-change-on-failure': option(
    'session-cookie-change-on-failure',
    readSwitch,
    (affinity, value) => (affinity.changeOnFailure = value),
  ),
};

/**
 * The session affinity of an Ingress with affinity "cookie", or undefined; warnings for
 * affinity-mode and session-cookie-* without it.
 */
export function combineAffinity(
  affinity: AffinityAnnotations | undefined,
  withPrefix: string,
  problems: AnnotationProblem[],
): SessionAffinity | undefined {
  if (affinity === undefined) return undefined;
  if (affinity.enabled !== true) {
    const names = affinity.mode === undefined ? affinity.names : ['affinity-mode', ...affinity.names];
    for (const name of names) {
      problems.push({
        field: annotationField(`${withPrefix}${name}`),
        message: `annotation "${name}" has no effect without affinity "cookie"`,
        code: 'annotation-without-effect',
        severity: 'warning',
      });
    }
    return undefined;
  }
  const cookie: SessionAffinity['cookie'] = {
    ...affinity.cookie,
    name: affinity.cookie.name ?? DEFAULT_SESSION_COOKIE,
  };
  if (cookie.secure === false) delete cookie.secure;
  if (cookie.conditionalSameSiteNone === false) delete cookie.conditionalSameSiteNone;
  const result: SessionAffinity = { mode: affinity.mode ?? 'balanced', cookie };
  if (affinity.changeOnFailure === true) result.changeOnFailure = true;
  return result;
}
