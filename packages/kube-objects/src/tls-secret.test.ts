import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTlsSecret, tlsSecretContentKey } from './tls-secret.js';

const read = (file: string) =>
  readFileSync(new URL(`../testdata/certificates/${file}`, import.meta.url), 'utf8');
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('readTlsSecret', () => {
  it('reads data (base64) and stringData (text) alike into canonical PEM with a content id', () => {
    const fromData = readTlsSecret({
      data: { 'tls.crt': base64(read('p256.crt')), 'tls.key': base64(read('p256.key')) },
    });
    const fromText = readTlsSecret({
      stringData: { 'tls.crt': `\n${read('p256.crt')}\n`, 'tls.key': read('p256.key') },
    });
    if (!fromData.ok || !fromText.ok) throw new Error('expected both to be read');
    expect(fromText.certificate).toEqual(fromData.certificate);
    expect(fromData.certificate.privateKeyPem).toMatch(
      /^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/,
    );
    expect(fromData.certificate.id).toMatch(/^[0-9a-f]{64}$/);
    expect(fromData.leaf.subject).toContain('secure.example.com');
  });

  it.each([
    [{}, 'has no data'],
    [{ data: { 'tls.crt': 'eA==' } }, 'must hold tls.crt and tls.key'],
    [{ data: { 'tls.crt': '!!', 'tls.key': 'eA==' } }, 'tls.crt and tls.key must be base64'],
    [{ stringData: { 'tls.crt': 'hello', 'tls.key': 'world' } }, 'tls.crt holds no PEM certificate'],
    [
      { stringData: { 'tls.crt': read('p256.crt'), 'tls.key': 'world' } },
      'tls.key is not an unencrypted PEM private key',
    ],
    [
      { stringData: { 'tls.crt': read('p256.crt'), 'tls.key': read('rsa1024.key') } },
      'tls.key does not match the certificate in tls.crt',
    ],
    [
      { stringData: { 'tls.crt': read('rsa1024.crt'), 'tls.key': read('rsa1024.key') } },
      'the certificate in tls.crt has a 1024-bit RSA key; at least 2048 bits are needed',
    ],
  ])('refuses %j: %s', (secret, message) => {
    expect(readTlsSecret(secret)).toEqual({ ok: false, message });
  });

  it('refuses chains of more certificates or bytes than a chain may take, before parsing them', () => {
    const crt = read('p256.crt');
    const key = read('p256.key');
    const secret = (chain: string) => readTlsSecret({ stringData: { 'tls.crt': chain, 'tls.key': key } });
    expect(secret(crt.repeat(10)).ok).toBe(true);
    expect(secret(crt.repeat(11))).toEqual({
      ok: false,
      message: 'tls.crt holds 11 certificates; a chain may hold at most 10',
    });
    expect(secret(crt + 'x'.repeat(128 * 1024))).toEqual({
      ok: false,
      message: `tls.crt takes ${Math.ceil((crt.length + 128 * 1024) / 1024)} KiB; a certificate chain may take at most 128 KiB`,
    });
  });
});

describe('tlsSecretContentKey', () => {
  it('is the same for the same content and source, and differs when either differs', () => {
    const crt = read('p256.crt');
    const key = read('p256.key');
    const a = tlsSecretContentKey({ stringData: { 'tls.crt': crt, 'tls.key': key } });
    expect(a).toBe(tlsSecretContentKey({ stringData: { 'tls.crt': crt, 'tls.key': key } }));
    expect(a).not.toBe(tlsSecretContentKey({ data: { 'tls.crt': crt, 'tls.key': key } }));
    expect(a).not.toBe(tlsSecretContentKey({ stringData: { 'tls.crt': crt, 'tls.key': `${key}\n` } }));
    expect(tlsSecretContentKey({ data: { 'tls.crt': crt } })).toBeUndefined();
  });
});
