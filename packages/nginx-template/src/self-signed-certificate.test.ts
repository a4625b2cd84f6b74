import { execFile } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from './index.js';

const execFileAsync = promisify(execFile);

async function describeWithOpenssl(pem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('openssl', ['x509', '-noout', '-text'], (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(stdout);
    });
    child.stdin?.end(pem);
  });
}

describe('createSelfSignedCertificate', () => {
  it('makes a certificate node:crypto verifies with its own key, and a matching private key', () => {
    const { certificatePem, privateKeyPem } = createSelfSignedCertificate({
      commonName: 'default.example.com',
      now: Date.UTC(2030, 0, 1),
    });
    const certificate = new X509Certificate(certificatePem);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(privateKeyPem))).toBe(true);
    expect(certificate.subject).toBe('CN=default.example.com');
    expect(certificate.issuer).toBe('CN=default.example.com');
    expect(certificate.subjectAltName).toBe('DNS:default.example.com');
    expect(certificate.ca).toBe(false);
    expect(new Date(certificate.validFrom).getTime()).toBe(Date.UTC(2029, 11, 31, 23));
    expect(new Date(certificate.validTo).getUTCFullYear()).toBe(2040);
    expect(certificate.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('makes a certificate openssl reads as an X.509 v3 ECDSA certificate', async () => {
    const { certificatePem } = createSelfSignedCertificate();
    const text = await describeWithOpenssl(certificatePem);
    expect(text).toContain('Version: 3 (0x2)');
    expect(text).toContain('Signature Algorithm: ecdsa-with-SHA256');
    expect(text).toContain('Subject: CN = ingresskit-default');
    expect(text).toContain('NIST CURVE: P-256');
    expect(text).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
    expect(text).toContain('TLS Web Server Authentication');
    expect(text).toContain('Not After : Dec 31 23:59:59 9999 GMT');
    const { stdout } = await execFileAsync('openssl', ['version']);
    expect(stdout).toMatch(/OpenSSL/);
  });

  it('does not depend on the clock without `now`, and never repeats a key or serial', () => {
    const first = new X509Certificate(createSelfSignedCertificate().certificatePem);
    const second = new X509Certificate(createSelfSignedCertificate().certificatePem);
    expect(first.validFrom).toBe(second.validFrom);
    expect(first.validFrom).toBe('Jan  1 00:00:00 1970 GMT');
    expect(first.serialNumber).not.toBe(second.serialNumber);
    expect(first.fingerprint256).not.toBe(second.fingerprint256);
  });

  it('leaves the subjectAltName out for a common name that is not a host name', () => {
    expect(
      new X509Certificate(createSelfSignedCertificate({ commonName: 'IngressKit default' }).certificatePem)
        .subjectAltName,
    ).toBeUndefined();
  });
});
