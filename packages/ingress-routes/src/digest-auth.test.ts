import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SecretLike } from '@ingresskit/kube-objects';
import { isReferencedObjectProblem } from './translate-tls.js';
import { A, opaqueSecret, translateAnnotated } from './testing/fixtures.js';

/** htdigest's hash: MD5(user:realm:password) in hex. */
function ha1(user: string, realm: string, password: string): string {
  return createHash('md5').update(`${user}:${realm}:${password}`).digest('hex');
}

const ANN = ha1('ann', 'Staff', 'secret');
const BOB = ha1('bob', 'Staff', 'pw');
const EVE = ha1('eve', 'Other', 'pw');

const secret = opaqueSecret;

function translateWith(annotations: Record<string, string>, ...list: SecretLike[]) {
  const { result, policy, lookups } = translateAnnotated(annotations, ...list);
  return { result, policy, auth: policy?.digestAuth, lookups };
}

const DIGEST = { 'auth-type': 'digest', 'auth-secret': 'staff', 'auth-realm': 'Staff' };

describe('translateIngress with auth-type digest', () => {
  it('reads the users of the realm from an htdigest file, skipping other realms, comments and blank lines', () => {
    const { result, policy, auth } = translateWith(
      DIGEST,
      secret('staff', {
        auth: `# staff\nann:Staff:${ANN}\r\n\neve:Other:${EVE}\nbob:Staff:${BOB.toUpperCase()}\n`,
      }),
    );
    expect(result.problems).toEqual([]);
    expect(auth).toEqual({
      realm: 'Staff',
      users: [
        { name: 'ann', ha1: ANN },
        { name: 'bob', ha1: BOB },
      ],
    });
    expect(policy?.basicAuth).toBeUndefined();
    expect(result.references.secrets).toEqual(['default/staff']);
  });

  it('reads realm:hash per user key of an auth-map Secret, in the empty realm by default', () => {
    const empty = ha1('zed', '', 'pw');
    const { auth } = translateWith(
      { 'auth-type': 'digest', 'auth-secret': 'default/map', 'auth-secret-type': 'auth-map' },
      secret('map', { zed: `:${empty}\n`, ann: `Staff:${ANN}` }),
    );
    expect(auth).toEqual({ realm: '', users: [{ name: 'zed', ha1: empty }] });
  });

  it.each([
    ['a missing Secret', {}, 'default/staff not found'],
    ['a basic auth hash', { auth: 'ann:$apr1$xyz$HXgo9gtz4gpj4JWTLYmjB0\n' }, 'line 1 is not user:realm:MD5'],
    ['a short hash', { auth: `ann:Staff:${ANN}\nbob:Staff:abc\n` }, 'line 2 is not user:realm:MD5'],
    ['no user of the realm', { auth: `eve:Other:${EVE}\n` }, 'holds no user of realm "Staff"'],
    ['no auth key', { other: `ann:Staff:${ANN}` }, 'no key "auth"'],
  ])('closes every route (no users) with a referenced-object error for %s', (_, data, message) => {
    const list = Object.keys(data).length === 0 ? [] : [secret('staff', data)];
    const { result, auth } = translateWith(DIGEST, ...list);
    expect(auth).toEqual({ realm: 'Staff', users: [] });
    const [problem] = result.problems;
    expect(problem).toEqual(
      expect.objectContaining({
        severity: 'error',
        field: `metadata.annotations["${A}auth-secret"]`,
        message: expect.stringContaining(message),
      }),
    );
    expect(problem?.message).toContain('every request gets 401');
    expect(isReferencedObjectProblem(problem!)).toBe(true);
  });

  it('never reads a Secret of another namespace, and closes the routes', () => {
    const { auth, lookups } = translateWith(
      { ...DIGEST, 'auth-secret': 'victim/staff' },
      secret('staff', { auth: `ann:Staff:${ANN}` }, 'victim'),
    );
    expect(auth?.users).toEqual([]);
    expect(lookups).toEqual([]);
  });

  it('leaves the Ingress out for digest without auth-secret', () => {
    const { result } = translateWith({ 'auth-type': 'digest' });
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toContainEqual(
      expect.objectContaining({ severity: 'error', field: `metadata.annotations["${A}auth-type"]` }),
    );
  });
});
