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
  /** A self-signed certificate with subject `subject` (`/CN=...`). */
  selfSigned(name: string, subject: string): CertificatePair;
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
  return {
    dir,
    selfSigned(name, subject) {
      const files = ['-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)];
      openssl(['req', '-x509', ...newKey, '-sha256', '-days', '2', '-subj', subject, ...files]);
      return read(name);
    },
    signedBy(ca, name, subject, dnsNames = [], options = {}) {
      const csr = join(dir, `${name}.csr`);
      const names =
        dnsNames.length === 0
          ? []
          : ['-addext', `subjectAltName=${dnsNames.map((dns) => `DNS:${dns}`).join(',')}`];
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
      openssl([
        ...['x509', '-req', '-in', csr, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial'],
        ...['-copy_extensions', 'copy', '-sha256', '-days', '2', '-out', join(dir, `${name}.crt`)],
      ]);
      return read(name);
    },
  };
}
