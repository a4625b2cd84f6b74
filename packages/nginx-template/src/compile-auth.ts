/**
 * BasicAuthPolicy and DigestAuthPolicy → the auth entries the Lua router checks credentials
 * against. A realm that could break out of its quotes makes the route answer 500; a user without
 * a usable name or hash is left out, so that user cannot get in (the route stays closed to them).
 */
import type { BasicAuthPolicy, DigestAuthPolicy } from '@ingresskit/route-model';
import type { AuthEntry, DigestAuthEntry } from './data-entries.js';

/** What compiling reports: a fatal error, or a stricter reading, by field. */
export interface AuthIssues {
  error(field: string, message: string, value?: unknown): undefined;
  strict(field: string, message: string, value?: unknown): void;
}

const REALM = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{0,256}$/;
// eslint-disable-next-line no-control-regex -- a user name or hash never holds these
const CONTROL = /[\u0000-\u001f\u007f]/;

const HA1 = /^[0-9a-f]{32}$/;

const isName = (name: unknown): name is string =>
  typeof name === 'string' && name !== '' && !CONTROL.test(name);

/**
 * The realm and the credential of each user by name, the first entry of a user winning as nginx
 * reads an htpasswd or htdigest file; a user `credentialOf` finds none for is left out. Undefined
 * after an error reported through `out`.
 */
function compileUsers<User extends { name: string }>(
  field: string,
  auth: { realm: string; users: User[] },
  credentialOf: (user: User) => unknown,
  needs: string,
  out: AuthIssues,
): { realm: string; users: Record<string, string> } | undefined {
  if (typeof auth.realm !== 'string' || !REALM.test(auth.realm)) {
    return out.error(`${field}.realm`, 'must be printable ASCII without " and \\', auth.realm);
  }
  const users: Record<string, string> = {};
  (Array.isArray(auth.users) ? auth.users : []).forEach((user, index) => {
    const name: unknown = user?.name;
    const credential = user ? credentialOf(user) : undefined;
    if (!isName(name) || typeof credential !== 'string') {
      out.strict(`${field}.users[${index}]`, `${needs}; the user cannot sign in`);
      return;
    }
    if (!Object.hasOwn(users, name)) users[name] = credential;
  });
  return { realm: auth.realm, users };
}

/** Compiles `policy.basicAuth`; undefined after an error reported through `out`. */
export function compileBasicAuth(auth: BasicAuthPolicy, out: AuthIssues): AuthEntry | undefined {
  const hashOf = ({ hash }: BasicAuthPolicy['users'][number]) =>
    typeof hash === 'string' && hash !== '' && !CONTROL.test(hash) ? hash : undefined;
  return compileUsers(
    'policy.basicAuth',
    auth,
    hashOf,
    'needs a name and a hash without control characters',
    out,
  );
}

/** Compiles `policy.digestAuth`; undefined after an error reported through `out`. */
export function compileDigestAuth(auth: DigestAuthPolicy, out: AuthIssues): DigestAuthEntry | undefined {
  const ha1Of = ({ ha1 }: DigestAuthPolicy['users'][number]) =>
    typeof ha1 === 'string' && HA1.test(ha1) ? ha1 : undefined;
  const needs = 'needs a name without control characters and an MD5 hash of 32 lowercase hex digits';
  return compileUsers('policy.digestAuth', auth, ha1Of, needs, out);
}
