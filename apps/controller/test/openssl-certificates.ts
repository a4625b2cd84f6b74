/**
 * Certificates made with the openssl command line, as a tenant would make them, for the client and
 * backend certificate tests: self-signed ones (CAs, or clients no CA signed) and ones a CA signed.
 * Each set lives in a temporary directory removed after the calling file's tests.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A certificate and its key, PEM, and where they were written. */
export interface CertificatePair {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

/** Makes certificates in one temporary directory. */
export interface CertificateMaker {
  dir: string;
  /**
   * A self-signed certificate with subject `subject` (`/CN=...`), with DNS names `dnsNames` if
   * any; with `options.serverOnly` it is no CA (CA:FALSE, digitalSignature only), as a server's
   * own self-signed certificate often is.
   */
  selfSigned(
    name: string,
    subject: string,
    dnsNames?: string[],
    options?: { serverOnly?: boolean },
  ): CertificatePair;
  /**
   * A certificate with subject `subject` signed by `ca`, with DNS names `dnsNames` if any; an
   * intermediate CA with `options.ca`. Its `cert` is the certificate alone.
   */
  signedBy(
    ca: CertificatePair,
    name: string,
    subject: string,
    dnsNames?: string[],
    options?: { ca?: boolean },
  ): CertificatePair;
  /** `certificate`'s subject, key and extensions signed by `ca`: a cross-signed copy of it. */
  crossSigned(ca: CertificatePair, certificate: CertificatePair, name: string): CertificatePair;
}

/** A CertificateMaker whose directory is removed after the calling file's tests. */
export function useCertificateMaker(): CertificateMaker {
  const dir = mkdtempSync(join(tmpdir(), 'ingresskit-certificates-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const read = (name: string): CertificatePair => {
    const certFile = join(dir, `${name}.crt`);
    const keyFile = join(dir, `${name}.key`);
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
  };
  const namesOf = (dnsNames: string[]) =>
    dnsNames.length === 0
      ? []
      : ['-addext', `subjectAltName=${dnsNames.map((dns) => `DNS:${dns}`).join(',')}`];
  const signWith = (ca: CertificatePair, csr: string, name: string) =>
    openssl([
      ...['x509', '-req', '-in', csr, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial'],
      ...['-copy_extensions', 'copy', '-sha256', '-days', '2', '-out', join(dir, `${name}.crt`)],
    ]);
  return {
    dir,
    selfSigned(name, subject, dnsNames = [], options = {}) {
      const files = ['-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)];
      const extensions = namesOf(dnsNames);
      if (options.serverOnly === true) {
        extensions.push('-addext', 'basicConstraints=critical,CA:FALSE');
        extensions.push('-addext', 'keyUsage=critical,digitalSignature');
      }
      openssl([
        'req',
        '-x509',
        ...newKey,
        '-sha256',
        '-days',
        '2',
        '-subj',
        subject,
        ...extensions,
        ...files,
      ]);
      return read(name);
    },
    signedBy(ca, name, subject, dnsNames = [], options = {}) {
      const csr = join(dir, `${name}.csr`);
      const names = namesOf(dnsNames);
      if (options.ca === true) {
        names.push('-addext', 'basicConstraints=critical,CA:TRUE');
        names.push('-addext', 'keyUsage=critical,keyCertSign,cRLSign');
      }
      openssl([
        'req',
        '-new',
        ...newKey,
        '-subj',
        subject,
        ...names,
        '-keyout',
        join(dir, `${name}.key`),
        '-out',
        csr,
      ]);
      signWith(ca, csr, name);
      return read(name);
    },
    crossSigned(ca, certificate, name) {
      const csr = join(dir, `${name}.csr`);
      openssl([
        ...['x509', '-x509toreq', '-copy_extensions', 'copy', '-in', certificate.certFile],
        ...['-signkey', certificate.keyFile, '-out', csr],
      ]);
      signWith(ca, csr, name);
      const certFile = join(dir, `${name}.crt`);
      // The copy has the certificate's key.
      return {
        cert: readFileSync(certFile, 'utf8'),
        key: certificate.key,
        certFile,
        keyFile: certificate.keyFile,
      };
    },
  };
}
