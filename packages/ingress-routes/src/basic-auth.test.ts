import { describe, expect, it } from 'vitest';
import type { SecretLike } from '@ingresskit/kube-objects';
import { isReferencedObjectProblem } from './translate-tls.js';
import { A, opaqueSecret, translateAnnotated } from './testing/fixtures.js';

const APR1 = '$apr1$xyz$HXgo9gtz4gpj4JWTLYmjB0';
const BCRYPT = '$2y$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';

const secret = opaqueSecret;

function translateWith(annotations: Record<string, string>, ...list: SecretLike[]) {
  const { result, policy, lookups } = translateAnnotated(annotations, ...list);
  return { result, auth: policy?.basicAuth, lookups };
}

describe('translateIngress with auth-type basic', () => {
  it('reads the users of an auth-file Secret, skipping comments and blank lines, with the realm', () => {
    const { result, auth } = translateWith(
      { 'auth-type': 'basic', 'auth-secret': 'staff', 'auth-realm': 'Staff only' },
      secret('staff', { auth: `# staff\nann:${APR1}\r\n\nbob:${BCRYPT}\n` }),
    );
    expect(result.problems).toEqual([]);
    expect(auth).toEqual({
      realm: 'Staff only',
      users: [
        { name: 'ann', hash: APR1 },
        { name: 'bob', hash: BCRYPT },
      ],
    });
    expect(result.references.secrets).toEqual(['default/staff']);
  });

  it('reads one user per key of an auth-map Secret, with ingress-nginx empty realm by default', () => {
    const { auth } = translateWith(
      { 'auth-type': 'basic', 'auth-secret': 'default/map', 'auth-secret-type': 'auth-map' },
      secret('map', { zed: BCRYPT, ann: APR1 }),
    );
    expect(auth).toEqual({
      realm: '',
      users: [
        { name: 'ann', hash: APR1 },
        { name: 'zed', hash: BCRYPT },
      ],
    });
  });

  it.each([
    ['a missing Secret', {}, 'default/staff not found'],
    ['an unknown hash format', { auth: 'ann:$9$x$y\n' }, 'a format that cannot be verified'],
    ['no users', { auth: '# nobody\n' }, 'holds no user'],
    [
      'a bcrypt cost that would hold a worker',
      { auth: 'ann:$2y$13$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW\n' },
      'a format that cannot be verified',
    ],
    ['no auth key', { other: 'ann:{PLAIN}x' }, 'no key "auth"'],
  ])('closes every route (no users) with a referenced-object error for %s', (_, data, message) => {
    const list = Object.keys(data).length === 0 ? [] : [secret('staff', data)];
    const { result, auth } = translateWith({ 'auth-type': 'basic', 'auth-secret': 'staff' }, ...list);
    expect(auth).toEqual({ realm: '', users: [] });
    const [problem] = result.problems;
    expect(problem).toEqual(
      expect.objectContaining({
        severity: 'error',
        field: `metadata.annotations["${A}auth-secret"]`,
        message: expect.stringContaining(message),
      }),
    );
    expect(isReferencedObjectProblem(problem!)).toBe(true);
  });

  it('never reads a Secret of another namespace, and closes the routes', () => {
    const { auth, lookups } = translateWith(
      { 'auth-type': 'basic', 'auth-secret': 'victim/staff' },
      secret('staff', { auth: `ann:${APR1}` }, 'victim'),
    );
    expect(auth?.users).toEqual([]);
    expect(lookups).toEqual([]);
  });

  it.each([
    [{ 'auth-type': 'ntlm', 'auth-secret': 'staff' }, 'auth-type'],
    [{ 'auth-type': 'basic' }, 'auth-type'],
    [{ 'auth-type': 'basic', 'auth-secret': 'Bad_Name' }, 'auth-secret'],
    [{ 'auth-type': 'basic', 'auth-secret': 'staff', 'auth-secret-type': 'file' }, 'auth-secret-type'],
    [{ 'auth-type': 'basic', 'auth-secret': 'staff', 'auth-realm': 'say "hi"' }, 'auth-realm'],
  ])('leaves the Ingress out for %j, naming %s', (annotations, name) => {
    const { result } = translateWith(annotations, secret('staff', { auth: `ann:${APR1}` }));
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toContainEqual(
      expect.objectContaining({ severity: 'error', field: `metadata.annotations["${A}${name}"]` }),
    );
  });

  it('warns that auth-secret does nothing without auth-type', () => {
    const { result, auth } = translateWith({ 'auth-secret': 'staff' });
    expect(auth).toBeUndefined();
    expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning' })]);
  });
});
