import { describe, expect, it } from 'vitest';
import type { SecretLike } from '@ingresskit/kube-objects';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { isReferencedObjectProblem } from './translate-tls.js';
import { A, opaqueSecret, translateAnnotated } from './testing/fixtures.js';

/** Any certificate does as a CA here; the translation writes it back in canonical PEM. */
const CA = new X509Certificate(
  readFileSync(new URL('../testdata/tls/other.crt', import.meta.url)),
).toString();

const secret = opaqueSecret;

function translateWith(annotations: Record<string, string>, ...list: SecretLike[]) {
  const { result, policy, lookups } = translateAnnotated(annotations, ...list);
  return { result, policy: policy?.clientCertificate, lookups };
}

describe('translateIngress with auth-tls-secret', () => {
  it('reads ca.crt with ingress-nginx defaults: verify on, depth 1', () => {
    const { result, policy } = translateWith(
      { 'auth-tls-secret': 'default/ca' },
      secret('ca', { 'ca.crt': CA }),
    );
    expect(result.problems).toEqual([]);
    expect(policy).toEqual({ caCertificatesPem: CA, verify: 'on', depth: 1 });
    expect(result.references.secrets).toEqual(['default/ca']);
  });

  it('carries every auth-tls setting', () => {
    const { policy } = translateWith(
      {
        'auth-tls-secret': 'ca',
        'auth-tls-verify-client': 'optional_no_ca',
        'auth-tls-verify-depth': '3',
        'auth-tls-error-page': 'https://errors.test/cert',
        'auth-tls-pass-certificate-to-upstream': 'true',
        'auth-tls-match-cn': 'CN=(alice|bob)',
      },
      secret('ca', { 'ca.crt': CA }),
    );
    expect(policy).toEqual({
      caCertificatesPem: CA,
      verify: 'optional_no_ca',
      depth: 3,
      errorPage: 'https://errors.test/cert',
      passCertificate: true,
      subjectPattern: 'CN=(alice|bob)',
    });
  });

  it('asks for nothing with auth-tls-verify-client off, and reads depth 0 as 1', () => {
    expect(
      translateWith(
        { 'auth-tls-secret': 'ca', 'auth-tls-verify-client': 'off' },
        secret('ca', { 'ca.crt': CA }),
      ).policy,
    ).toBeUndefined();
    expect(
      translateWith({ 'auth-tls-secret': 'ca', 'auth-tls-verify-depth': '0' }, secret('ca', { 'ca.crt': CA }))
        .policy?.depth,
    ).toBe(1);
  });

  it.each([
    ['a missing Secret', [], 'default/ca not found'],
    ['no ca.crt', [secret('ca', { 'tls.crt': CA })], 'no key "ca.crt"'],
    ['a ca.crt that is no certificate', [secret('ca', { 'ca.crt': 'not PEM' })], 'holds no PEM certificate'],
    [
      'a revocation list, which is not checked',
      [secret('ca', { 'ca.crt': CA, 'ca.crl': '-----BEGIN X509 CRL-----\n' })],
      'revocation lists are not supported',
    ],
    ['a Secret of another namespace', [secret('ca', { 'ca.crt': CA }, 'other')], 'of another namespace'],
  ])('closes the hosts (no CA) with a referenced-object error for %s', (name, list, message) => {
    const written = name === 'a Secret of another namespace' ? 'other/ca' : 'ca';
    const { result, policy } = translateWith({ 'auth-tls-secret': written }, ...list);
    expect(policy).toEqual({ caCertificatesPem: '', verify: 'on', depth: 1 });
    const [problem] = result.problems;
    expect(problem?.severity).toBe('error');
    expect(problem?.field).toBe(`metadata.annotations["${A}auth-tls-secret"]`);
    expect(problem?.message).toContain(message);
    expect(problem?.message).toContain('gets 403');
    expect(isReferencedObjectProblem(problem!)).toBe(true);
  });

  it.each([
    ['auth-tls-verify-client', 'sometimes'],
    ['auth-tls-verify-depth', '-1'],
    ['auth-tls-error-page', '@named'],
    ['auth-tls-error-page', 'javascript:alert(1)'],
    ['auth-tls-pass-certificate-to-upstream', 'yes'],
    ['auth-tls-match-cn', 'O=staff'],
    ['auth-tls-match-cn', 'CN=(unclosed'],
    ['auth-tls-secret', 'a/b/c'],
  ])('leaves the Ingress out for %s %j', (name, value) => {
    const { result } = translateWith(
      { 'auth-tls-secret': 'ca', [name]: value },
      secret('ca', { 'ca.crt': CA }),
    );
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toContainEqual(
      expect.objectContaining({ field: `metadata.annotations["${A}${name}"]`, severity: 'error' }),
    );
  });

  it('warns that auth-tls-* do nothing without auth-tls-secret', () => {
    const { result, policy } = translateWith({ 'auth-tls-verify-client': 'optional' });
    expect(policy).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: 'annotation "auth-tls-verify-client" has no effect without auth-tls-secret',
      }),
    ]);
  });
});
