/**
 * Which certificate of a Secret counts for the checksum, read with Tengine-Ingress's own acceptance
 * rules, so a Secret it would refuse is refused here too.
 */
import { Buffer } from 'node:buffer';
import type { SecretLike } from '@ingresskit/kube-objects/pure';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';

/**
 * The parts of a Secret (typed client object or plain JSON) that hold certificates: `data`
 * (base64, as the API server returns them) and `stringData` (plain text, as written in manifests;
 * they win over `data`, as on the API server).
 */
export type SecretDataLike = Pick<SecretLike, 'data' | 'stringData'>;

/** What a Secret offers for the checksum: a leaf certificate, only CA certificates, or nothing usable. */
export type SecretCertificate =
  | { kind: 'leaf'; sha1: string }
  | { kind: 'ca-only' }
  | {
      kind: 'unusable';
      reason: 'no-certificate' | 'invalid-certificate' | 'invalid-key-pair';
      detail: string;
    };

interface PemBlock {
  type: string;
  der: Buffer;
}

const pemBlockPattern = /-----BEGIN ([^\r\n-]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/**
 * Reads a Secret's certificates with the same acceptance rules as Tengine-Ingress's
 * `getPemCertificate` (store/backend_ssl.go) and `ssl.CreateSSLCert`:
 * - both `tls.crt` and `tls.key` present: the first PEM block of tls.crt must be a CERTIFICATE that
 *   parses, the key must match it, and a ca.crt, if any, must parse; the result is the SHA-1 of the
 *   first certificate's DER (Go's `x509.Certificate.Raw`).
 * - otherwise a non-empty `ca.crt` whose every PEM block parses as a certificate: CA-only, no leaf.
 * - otherwise (no certificate, `auth`-only Secrets, a lone tls.crt) the Secret is unusable.
 */
export function readSecretCertificate(secret: SecretDataLike): SecretCertificate {
  const certificate = readSecretValue(secret, 'tls.crt');
  const key = readSecretValue(secret, 'tls.key');
  const ca = readSecretValue(secret, 'ca.crt');

  // Tengine takes the key-pair branch whenever both keys exist, even if empty, and fails there.
  if (certificate !== undefined && key !== undefined) {
    const first = readPemBlocks(certificate)[0];
    if (first === undefined) return unusable('invalid-certificate', 'tls.crt holds no PEM block');
    if (first.type !== 'CERTIFICATE') {
      return unusable(
        'invalid-certificate',
        `the first PEM block of tls.crt is "${first.type}", not CERTIFICATE`,
      );
    }
    const leaf = parseCertificate(first.der);
    if (leaf === undefined)
      return unusable('invalid-certificate', 'the first certificate in tls.crt does not parse');
    if (!isMatchingKey(leaf, key)) {
      return unusable(
        'invalid-key-pair',
        'tls.key does not parse or does not match the certificate in tls.crt',
      );
    }
    if (ca !== undefined && ca.length > 0 && !isCertificateBundle(ca)) {
      return unusable('invalid-certificate', 'ca.crt does not parse as PEM certificates');
    }
    return { kind: 'leaf', sha1: createHash('sha1').update(leaf.raw).digest('hex') };
  }

  if (ca !== undefined && ca.length > 0) {
    if (!isCertificateBundle(ca))
      return unusable('invalid-certificate', 'ca.crt does not parse as PEM certificates');
    return { kind: 'ca-only' };
  }

  return unusable('no-certificate', 'it holds neither a tls.crt/tls.key pair nor a ca.crt');
}

function unusable(
  reason: 'no-certificate' | 'invalid-certificate' | 'invalid-key-pair',
  detail: string,
): SecretCertificate {
  return { kind: 'unusable', reason, detail };
}

function readSecretValue(secret: SecretDataLike, key: string): Buffer | undefined {
  const plain = secret.stringData?.[key];
  if (typeof plain === 'string') return Buffer.from(plain, 'utf8');
  const encoded = secret.data?.[key];
  if (typeof encoded === 'string') return Buffer.from(encoded, 'base64');
  return undefined;
}

function readPemBlocks(bytes: Buffer): PemBlock[] {
  // latin1 maps every byte to one code unit, so binary junk around the blocks cannot break decoding.
  const text = bytes.toString('latin1');
  return [...text.matchAll(pemBlockPattern)].map((match) => ({
    type: match[1] ?? '',
    der: Buffer.from((match[2] ?? '').replace(/\s+/g, ''), 'base64'),
  }));
}

function parseCertificate(der: Buffer): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}

function isMatchingKey(certificate: X509Certificate, key: Buffer): boolean {
  try {
    return certificate.checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}

// Mirrors ssl.CheckCACert: every PEM block must be a certificate, and there must be at least one.
function isCertificateBundle(bytes: Buffer): boolean {
  const blocks = readPemBlocks(bytes);
  return blocks.length > 0 && blocks.every((block) => parseCertificate(block.der) !== undefined);
}
