import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCertificateCache, parseTlsSecretDataCached, parseTlsSecret } from './certificates.js';
import { readTlsFixture, tlsSecret } from './testing/fixtures.js';

describe('parseTlsSecret', () => {
  it('returns the chain and an unencrypted PKCS#8 key in canonical PEM, with notAfter and a content id', () => {
    const result = parseTlsSecret(tlsSecret('cert', 'secure'));
    if (!result.ok) throw new Error(result.message);
    const { certificate } = result;
    expect(new X509Certificate(certificate.certificatePem).subject).toContain('secure.example.com');
    expect(certificate.privateKeyPem).toMatch(
      /^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/,
    );
    expect(certificate.notAfter).toBe(
      new Date(new X509Certificate(readTlsFixture('secure.crt')).validTo).toISOString(),
    );
    expect(certificate.id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives the same id to the same content however it is written, and another id to another content', () => {
    const fromData = parseTlsSecret(tlsSecret('a', 'secure'));
    const fromText = parseTlsSecret({
      stringData: {
        'tls.crt': `\n${readTlsFixture('secure.crt')}\n\n`,
        'tls.key': readTlsFixture('secure.key'),
      },
    });
    const other = parseTlsSecret(tlsSecret('b', 'other'));
    expect(fromData.ok && fromText.ok && other.ok).toBe(true);
    if (!fromData.ok || !fromText.ok || !other.ok) return;
    expect(fromText.certificate).toEqual(fromData.certificate);
    expect(other.certificate.id).not.toBe(fromData.certificate.id);
  });

  it('keeps only the PEM certificate blocks of tls.crt, in order', () => {
    const chain = `garbage\n${readTlsFixture('secure.crt')}between\n${readTlsFixture('other.crt')}trailer`;
    const result = parseTlsSecret({
      stringData: { 'tls.crt': chain, 'tls.key': readTlsFixture('secure.key') },
    });
    if (!result.ok) throw new Error(result.message);
    expect(result.certificate.certificatePem).not.toMatch(/garbage|between|trailer/);
    expect(result.certificate.certificatePem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });

  it.each([
    [{}, 'has no data'],
    [{ data: { 'tls.crt': 'eA==' } }, 'must hold tls.crt and tls.key'],
    [{ data: { 'tls.crt': 'x'.repeat(2 * 1024 * 1024), 'tls.key': 'eA==' } }, 'must be base64'],
    [{ stringData: { 'tls.crt': 'hello', 'tls.key': 'world' } }, 'no PEM certificate'],
  ])('refuses %j: %s', (secret, message) => {
    const result = parseTlsSecret(secret);
    expect(result).toEqual({ ok: false, message: expect.stringContaining(message) });
  });
});

describe('createCertificateCache', () => {
  it('parses each content once and gives the same result as no cache', () => {
    const cache = createCertificateCache();
    const secret = tlsSecret('cert', 'secure');
    const first = parseTlsSecretDataCached(secret, cache);
    expect(parseTlsSecretDataCached(tlsSecret('copy', 'secure'), cache)).toBe(first);
    expect(cache.size).toBe(1);
    const uncached = parseTlsSecretDataCached(secret, undefined);
    expect(uncached.ok && first.ok && uncached.parsed.certificate).toEqual(
      first.ok && first.parsed.certificate,
    );
  });

  it('remembers failures too, so a broken Secret is not parsed on every translation', () => {
    const cache = createCertificateCache();
    const broken = tlsSecret('cert', { crt: readTlsFixture('secure.crt'), key: readTlsFixture('other.key') });
    const first = parseTlsSecretDataCached(broken, cache);
    expect(first.ok).toBe(false);
    expect(parseTlsSecretDataCached(broken, cache)).toBe(first);
  });

  it('drops the least recently used content when it is full', () => {
    const cache = createCertificateCache({ maxEntries: 2 });
    const secure = tlsSecret('a', 'secure');
    const other = tlsSecret('b', 'other');
    const wildcard = tlsSecret('c', 'wildcard');
    const first = parseTlsSecretDataCached(secure, cache);
    parseTlsSecretDataCached(other, cache);
    parseTlsSecretDataCached(secure, cache);
    parseTlsSecretDataCached(wildcard, cache);
    expect(cache.size).toBe(2);
    // secure was used after other, so other was dropped and secure is still the same entry.
    expect(parseTlsSecretDataCached(secure, cache)).toBe(first);
    expect(cache.size).toBe(2);
  });
});
