/**
 * The Secret of basic authentication → the users and their hashes. Every hash must be of a format
 * the data plane verifies; one it cannot read, a missing Secret or one without users closes the
 * Ingress's routes (401 for everyone) with an error naming the Secret, never opens them.
 */
import { namespacedKey, type SecretLike } from '@ingresskit/kube-objects';
import type { BasicAuthPolicy } from '@ingresskit/route-model';
import type { Context } from './translation-context.js';
import { type IngressAnnotations } from './annotation-types.js';
import { type BasicAuthRequest } from './annotation-parts.js';

/** How a problem caused by the basic authentication Secret begins (see isReferencedObjectProblem). */
export const AUTH_SECRET_PROBLEM = 'auth Secret ';

const MAX_USERS = 10_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const CRYPT64 = '[./0-9A-Za-z]';
/**
 * htpasswd hash formats the data plane verifies: in Lua, or through crypt(3). The costs are
 * bounded (bcrypt up to 12, SHA-crypt up to 100000 rounds, yescrypt at its default j9T): a hash
 * of a huge cost would hold an nginx worker, and every other tenant's requests on it, per try.
 */
const HASH_FORMATS: readonly RegExp[] = [
  new RegExp(`^\\$apr1\\$[^$:]{0,8}\\$${CRYPT64}{22}$`),
  /^\{SHA\}[A-Za-z0-9+/]{27}=$/,
  /^\{SSHA\}[A-Za-z0-9+/]{28,}={0,2}$/,
  /^\{PLAIN\}[^\n]*$/,
  new RegExp(`^\\$1\\$[^$:]{0,8}\\$${CRYPT64}{22}$`),
  new RegExp(
    `^\\$[56]\\$(?:rounds=(?:[1-9][0-9]{3,4}|100000)\\$)?[^$:]{0,16}\\$(?:${CRYPT64}{43}|${CRYPT64}{86})$`,
  ),
  new RegExp(`^\\$2[aby]\\$(?:0[4-9]|1[0-2])\\$${CRYPT64}{53}$`),
  new RegExp(`^\\$y\\$j9T\\$${CRYPT64}*\\$${CRYPT64}{43}$`),
  new RegExp(`^${CRYPT64}{13}$`),
];
// eslint-disable-next-line no-control-regex -- user names go into logs and headers nowhere, but stay clean
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The text of `key`: from `stringData` as written, else from `data` (base64); undefined when absent or not base64. */
export function readSecretText(
  secret: { data?: unknown; stringData?: unknown },
  key: string,
): string | undefined {
  const plain = (secret.stringData as Record<string, unknown> | null | undefined)?.[key];
  if (typeof plain === 'string') return plain;
  const encoded = (secret.data as Record<string, unknown> | null | undefined)?.[key];
  if (typeof encoded !== 'string' || !BASE64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** The keys of a Secret's `data` and `stringData`, sorted. */
export function listSecretKeys(secret: { data?: unknown; stringData?: unknown }): string[] {
  const keys = new Set<string>();
  for (const map of [secret.data, secret.stringData]) {
    if (typeof map === 'object' && map !== null) for (const key of Object.keys(map)) keys.add(key);
  }
  return [...keys].sort();
}

/** `user:hash` lines of an htpasswd file; blank lines and `#` comments skipped. */
function parseHtpasswd(text: string): [string, string][] | string {
  const users: [string, string][] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return `line ${index + 1} is not user:hash`;
    users.push([line.slice(0, colon), line.slice(colon + 1)]);
  }
  return users;
}

/** The users of the Secret, or why it cannot be used. */
function readUsers(
  secret: { data?: unknown; stringData?: unknown },
  request: BasicAuthRequest,
): BasicAuthPolicy['users'] | string {
  let entries: [string, string][];
  if (request.secretType === 'auth-file') {
    const file = readSecretText(secret, 'auth');
    if (file === undefined) return 'has no key "auth" holding an htpasswd file';
    const parsed = parseHtpasswd(file);
    if (typeof parsed === 'string') return parsed;
    entries = parsed;
  } else {
    entries = [];
    for (const key of listSecretKeys(secret)) {
      const hash = readSecretText(secret, key);
      if (hash === undefined) return `key "${key}" is not base64`;
      entries.push([key, hash.trim()]);
    }
  }
  if (entries.length === 0) return 'holds no user';
  if (entries.length > MAX_USERS) return `holds more than ${MAX_USERS} users`;
  const users: BasicAuthPolicy['users'] = [];
  for (const [name, hash] of entries) {
    if (CONTROL.test(name) || name.length > 256)
      return 'holds a user name with control characters or over 256 characters';
    if (!HASH_FORMATS.some((format) => format.test(hash))) {
      return `holds a password hash of a format that cannot be verified for user "${name}" (use $apr1$, {SHA}, bcrypt $2y$/$2b$ of cost up to 12, or crypt $1$/$5$/$6$ of up to 100000 rounds)`;
    }
    users.push({ name, hash });
  }
  return users;
}

/**
 * The Secret an auth annotation names, only of the Ingress's own namespace, recorded as read so a
 * change to it translates the Ingress again; or why it cannot be used.
 */
export function findReferencedSecret(
  context: Context,
  reference: { namespace?: string; name: string },
): { key: string; secret: SecretLike } | { problem: string } {
  const namespace = context.source.namespace;
  if (reference.namespace !== undefined && reference.namespace !== namespace) {
    return {
      problem: `${reference.namespace}/${reference.name} is of another namespace, which an Ingress may not use`,
    };
  }
  const key = namespacedKey(namespace, reference.name);
  context.secretsRead.add(key);
  const secret = context.references.secret(namespace, reference.name);
  if (secret === undefined || secret === null) return { problem: `${key} not found` };
  return { key, secret };
}

/**
 * The users `readUsers` finds in the Secret of an auth request, recorded as read so a change to it
 * translates the Ingress again; none (every request gets 401), with an error on the request's
 * field, when the Secret is missing or cannot be used.
 */
export function readAuthSecretUsers<User>(
  context: Context,
  request: BasicAuthRequest,
  readUsers: (secret: SecretLike, request: BasicAuthRequest) => User[] | string,
): User[] {
  const closed = (message: string): User[] => {
    context.log.error(
      'auth-secret-unusable',
      request.field,
      `${AUTH_SECRET_PROBLEM}${message}; every request gets 401`,
    );
    return [];
  };
  const found = findReferencedSecret(context, request);
  if ('problem' in found) return closed(found.problem);
  const users = readUsers(found.secret, request);
  if (typeof users === 'string') return closed(`${found.key} ${users}`);
  return users;
}

/** The annotations with `basicAuth` resolved from its Secret, when auth-type basic asks for one. */
export function resolveBasicAuth(context: Context): IngressAnnotations {
  const request = context.annotations.basicAuthRequest;
  if (request === undefined || request.type !== 'basic') return context.annotations;
  const users = readAuthSecretUsers(context, request, readUsers);
  return { ...context.annotations, basicAuth: { realm: request.realm, users } };
}
