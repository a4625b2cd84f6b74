/**
 * TLS Secrets to route-model certificates. The PEM content is parsed (node:crypto, pure
 * computation), checked (a certificate chain and an unencrypted private key matching the leaf) and
 * written back in canonical form, so nothing but certificates and a key reaches a data plane.
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import type { Certificate } from '@ingresskit/route-model';
import { objectOr } from './grammar.js';
import type { SecretLike } from './types.js';

/** A certificate read from a Secret, or why there is none. */
export type SecretCertificate = { ok: true; certificate: Certificate } | { ok: false; message: string };

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const BASE64 = /^[A-Za-z0-9+/=\r\n]*$/;
/** Largest certificate or key accepted, far above real chains. */
const MAX_VALUE = 1024 * 1024;

function readValue(secret: SecretLike, key: string): string | undefined {
  const plain = objectOr<Record<string, unknown>>(secret.stringData)[key];
  if (typeof plain === 'string') return plain.length <= MAX_VALUE ? plain : undefined;
  const encoded = objectOr<Record<string, unknown>>(secret.data)[key];
  if (typeof encoded !== 'string' || encoded.length > MAX_VALUE || !BASE64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/**
 * Reads `tls.crt` and `tls.key` of a Secret (`stringData` plain, `data` base64) into a canonical
 * certificate whose id is the SHA-256 of the chain and key. Never throws.
 */
export function readSecretCertificate(secret: SecretLike): SecretCertificate {
  try {
    const type = secret.type;
    if (type !== undefined && type !== null && type !== 'kubernetes.io/tls') {
      return { ok: false, message: `is of type ${String(type)}, not kubernetes.io/tls` };
    }
    const chainText = readValue(secret, 'tls.crt');
    const keyText = readValue(secret, 'tls.key');
    if (chainText === undefined || keyText === undefined) {
      return { ok: false, message: 'must hold tls.crt and tls.key' };
    }
    const blocks = chainText.match(PEM_CERTIFICATE) ?? [];
    if (blocks.length === 0) return { ok: false, message: 'tls.crt holds no PEM certificate' };
    const chain = blocks.map((block) => new X509Certificate(block));
    if (/ENCRYPTED/.test(keyText)) return { ok: false, message: 'tls.key must not be encrypted' };
    const key = createPrivateKey({ key: keyText, format: 'pem' });
    const leaf = chain[0]!;
    if (!leaf.checkPrivateKey(key)) return { ok: false, message: 'tls.key does not match the certificate' };
    const certificatePem = chain.map((certificate) => certificate.toString().trim()).join('\n') + '\n';
    const privateKeyPem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
    const id = createHash('sha256').update(certificatePem).update('\0').update(privateKeyPem).digest('hex');
    return {
      ok: true,
      certificate: { id, certificatePem, privateKeyPem, notAfter: new Date(leaf.validTo).toISOString() },
    };
  } catch (error) {
    return {
      ok: false,
      message: `does not hold a valid certificate and key: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
