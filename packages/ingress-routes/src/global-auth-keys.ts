/**
 * The controller ConfigMap's global-auth-* keys: ingress-nginx's external authentication of every
 * Ingress route without an auth-url of its own. Each key is read by the reader of the auth-*
 * annotation of the same suffix and combined as they are, so the result is the same
 * ExternalAuthPolicy and travels as route data (no reload).
 */
import { combineExternalAuth, EXTERNAL_AUTH_READERS } from './external-auth-annotations.js';
import { type ExternalAuthAnnotations, type ExternalAuthNaming } from './annotation-parts.js';
import { type AnnotationProblem } from './annotation-types.js';
import type { GlobalExternalAuth } from './types.js';

/** The global-auth-* keys we apply (global-auth-snippet is raw nginx configuration and is not). */
export const GLOBAL_AUTH_KEYS = [
  'global-auth-url',
  'global-auth-method',
  'global-auth-signin',
  'global-auth-signin-redirect-param',
  'global-auth-response-headers',
  'global-auth-request-redirect',
  'global-auth-cache-key',
  'global-auth-cache-duration',
  'global-auth-always-set-cookie',
] as const;

/** A global-auth-* key we apply. */
export type GlobalAuthKey = (typeof GLOBAL_AUTH_KEYS)[number];

/** What stays, said on the ConfigMap, when global-auth-url is invalid and there is no valid value to keep. */
export const GLOBAL_AUTH_URL_CLOSED = 'every Ingress route it would protect answers 503 until it is valid';

const GLOBAL_PREFIX = 'global-';

/** The keys as messages name them: `auth-method` is `global-auth-method` of the ConfigMap's data. */
const CONFIGMAP_NAMING: ExternalAuthNaming = {
  key: (name) => `${GLOBAL_PREFIX}${name}`,
  field: (name) => `data[${JSON.stringify(`${GLOBAL_PREFIX}${name}`)}]`,
  label: (name) => `"${GLOBAL_PREFIX}${name}"`,
};

/** Whether `name` is a global-auth-* key we apply. */
export function isGlobalAuthKey(name: string): name is GlobalAuthKey {
  return (GLOBAL_AUTH_KEYS as readonly string[]).includes(name);
}

/**
 * One global-auth-* key into `into`, read as its auth-* annotation: why the value is invalid, or
 * undefined. An empty value leaves the key unset: "" is each key's default in ingress-nginx.
 */
export function readGlobalAuthKey(
  name: GlobalAuthKey,
  value: string,
  into: ExternalAuthAnnotations,
): string | undefined {
  if (value === '') return undefined;
  return EXTERNAL_AUTH_READERS[name.slice(GLOBAL_PREFIX.length)]!(value, into);
}

/**
 * The global external authentication the keys read make: undefined without global-auth-url (each
 * other key set is then a warning in `problems`), a problem when global-auth-url was set but
 * `urlRefused` (invalid, with no valid value to keep): the routes it would protect never go open.
 */
export function createGlobalExternalAuth(
  keys: ExternalAuthAnnotations,
  urlRefused: boolean,
  problems: AnnotationProblem[],
): GlobalExternalAuth | undefined {
  if (urlRefused) return { problem: 'global-auth-url is not valid' };
  const policy = combineExternalAuth(keys, CONFIGMAP_NAMING, problems);
  return policy === undefined ? undefined : { policy };
}
