/**
 * The Secret of digest authentication → the users of the Ingress's realm and their htdigest
 * hashes. A malformed line, a missing Secret or one without a user of the realm closes the
 * Ingress's routes (401 for everyone) with an error naming the Secret, never opens them.
 */
import type { DigestAuthPolicy } from '@ingresskit/route-model';
import { listSecretKeys, readAuthSecretUsers, readSecretText } from './basic-auth-secret.js';
import type { Context } from './translation-context.js';
import { type IngressAnnotations } from './annotation-types.js';
import { type BasicAuthRequest } from './annotation-parts.js';

const MAX_USERS = 10_000;
// user:realm:HA1, as htdigest writes it; the realm may hold anything but `:`, as in the module's file.
const HTDIGEST_LINE = /^([^:]+):([^:]*):([0-9a-fA-F]{32})$/;
// eslint-disable-next-line no-control-regex -- user names go into no header, but stay clean
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * `user:realm:HA1` entries of an htdigest file (auth-file) or of one key per user holding
 * `realm:HA1` (auth-map, which ingress-nginx writes out as `key:value` lines); blank lines and `#`
 * comments skipped.
 */
function readEntries(
  secret: { data?: unknown; stringData?: unknown },
  request: BasicAuthRequest,
): string[] | string {
  if (request.secretType === 'auth-map') {
    const lines: string[] = [];
    for (const key of listSecretKeys(secret)) {
      const value = readSecretText(secret, key);
      if (value === undefined) return `key "${key}" is not base64`;
      lines.push(`${key}:${value.trim()}`);
    }
    return lines;
  }
  const file = readSecretText(secret, 'auth');
  if (file === undefined) return 'has no key "auth" holding an htdigest file';
  return file.split('\n').map((line) => line.replace(/\r$/, ''));
}

/** The users of the request's realm, or why the Secret cannot be used. */
function readUsers(
  secret: { data?: unknown; stringData?: unknown },
  request: BasicAuthRequest,
): DigestAuthPolicy['users'] | string {
  const lines = readEntries(secret, request);
  if (typeof lines === 'string') return lines;
  const users: DigestAuthPolicy['users'] = [];
  let entries = 0;
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = HTDIGEST_LINE.exec(line);
    const where = request.secretType === 'auth-map' ? `entry ${index + 1}` : `line ${index + 1}`;
    if (match === null) return `${where} is not user:realm:MD5 hash (32 hex digits)`;
    const [, name, realm, ha1] = match as unknown as [string, string, string, string];
    if (CONTROL.test(name) || name.length > 256)
      return 'holds a user name with control characters or over 256 characters';
    if (++entries > MAX_USERS) return `holds more than ${MAX_USERS} users`;
    // The module lets in only the users of the realm auth_digest names.
    if (realm === request.realm) users.push({ name, ha1: ha1.toLowerCase() });
  }
  if (users.length === 0) return `holds no user of realm "${request.realm}"`;
  return users;
}

/** The annotations with `digestAuth` resolved from its Secret, when auth-type digest asks for one. */
export function resolveDigestAuth(context: Context): IngressAnnotations {
  const request = context.annotations.basicAuthRequest;
  if (request === undefined || request.type !== 'digest') return context.annotations;
  const users = readAuthSecretUsers(context, request, readUsers);
  return { ...context.annotations, digestAuth: { realm: request.realm, users } };
}
