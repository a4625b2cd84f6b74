/**
 * BasicAuthPolicy → the auth entry the Lua router checks credentials against. A realm that could
 * break out of its quotes makes the route answer 500; a user without a usable name or hash is
 * left out, so that user cannot get in (the route stays closed to them).
 */
import type { BasicAuthPolicy } from '@ingresskit/route-model';
import type { AuthEntry } from './data-entries.js';

/** What compiling reports: a fatal error, or a stricter reading, by field. */
export interface AuthIssues {
  error(field: string, message: string, value?: unknown): undefined;
  strict(field: string, message: string, value?: unknown): void;
}

const REALM = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{0,256}$/;
// eslint-disable-next-line no-control-regex -- a user name or hash never holds these
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Compiles `policy.basicAuth`; undefined after an error reported through `out`. */
export function compileBasicAuth(auth: BasicAuthPolicy, out: AuthIssues): AuthEntry | undefined {
  if (typeof auth.realm !== 'string' || !REALM.test(auth.realm)) {
    return out.error('policy.basicAuth.realm', 'must be printable ASCII without " and \\', auth.realm);
  }
  const users: Record<string, string> = {};
  (Array.isArray(auth.users) ? auth.users : []).forEach((user, index) => {
    const { name, hash } = user ?? {};
    if (
      typeof name !== 'string' ||
      name === '' ||
      CONTROL.test(name) ||
      typeof hash !== 'string' ||
      hash === '' ||
      CONTROL.test(hash)
    ) {
      out.strict(
        `policy.basicAuth.users[${index}]`,
        'needs a name and a hash without control characters; the user cannot sign in',
      );
      return;
    }
    // The first entry of a user wins, as nginx reads an htpasswd file.
    if (!Object.hasOwn(users, name)) users[name] = hash;
  });
  return { realm: auth.realm, users };
}
