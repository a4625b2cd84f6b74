import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkCertificateStrength } from './certificate-strength.js';

/** The certificates of testdata/certificates/<name>.crt (made with the openssl command line), leaf first. */
function chainOf(name: string): X509Certificate[] {
  const text = readFileSync(new URL(`../testdata/certificates/${name}.crt`, import.meta.url), 'utf8');
  return (text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map(
    (block) => new X509Certificate(block),
  );
}

describe('checkCertificateStrength', () => {
  it.each([
    ['p256', 'P-256, signed with SHA-256'],
    ['ed25519', 'Ed25519'],
    ['ca', 'RSA 2048, self-issued'],
  ])('accepts %s (%s)', (name) => {
    expect(checkCertificateStrength(chainOf(name))).toBeUndefined();
  });

  it.each([
    ['rsa1024', 'the certificate in tls.crt has a 1024-bit RSA key; at least 2048 bits are needed'],
    [
      'secp256k1',
      'the certificate in tls.crt has an EC key on secp256k1; TLS clients accept P-256, P-384 and P-521 only',
    ],
    [
      'sha1-leaf',
      'the certificate in tls.crt is signed with sha1WithRSAEncryption; MD5 and SHA-1 signatures are refused',
    ],
    [
      'weak-ca-chain',
      'certificate 2 of the chain in tls.crt has a 1024-bit RSA key; at least 2048 bits are needed',
    ],
  ])('refuses %s', (name, message) => {
    expect(checkCertificateStrength(chainOf(name))).toBe(message);
  });

  it('does not check the signature of a self-issued certificate, which no TLS library verifies', () => {
    const [leaf] = chainOf('sha1-leaf');
    expect(leaf!.issuer).not.toBe(leaf!.subject);
    const [selfIssued] = chainOf('ca');
    expect(selfIssued!.issuer).toBe(selfIssued!.subject);
    expect(checkCertificateStrength([selfIssued!])).toBeUndefined();
  });
});
