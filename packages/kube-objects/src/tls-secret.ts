/**
 * The certificate of a TLS Secret (`tls.crt` and `tls.key`), as both translators read it. The PEM
 * content is parsed (node:crypto, pure computation), checked (a certificate chain, an unencrypted
 * private key that matches the leaf, keys and signatures a TLS library will use) and written back
 * in canonical form, so nothing but certificates and a key reaches a data plane.
 */
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { checkCertificateStrength } from './certificate-strength.js';
import type { SecretLike } from './types.js';

/**
 * A certificate ready to serve, in the shape of route-model's `Certificate`: the chain and the
 * PKCS#8 key in canonical PEM, the leaf's expiry, and an id derived from the content.
 */
export interface TlsCertificate {
  readonly id: string;
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  /** The leaf's notAfter, RFC 3339. */
  readonly notAfter: string;
}

/** The certificate of a Secret with its parsed leaf (for host checks), or why there is none. */
export type TlsSecretResult =
  | { readonly ok: true; readonly certificate: TlsCertificate; readonly leaf: X509Certificate }
  | { readonly ok: false; readonly message: string };

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const BASE64 = /^[A-Za-z0-9+/=\r\n]*$/;
/** Largest certificate or key accepted (base64 or text), far above real chains. */
const MAX_SECRET_VALUE = 1024 * 1024;
/**
 * Most certificates and bytes a chain may hold, and bytes a key: several times what real chains
 * take (a leaf with hundreds of names and its intermediates), so that one Secret cannot make every
 * data plane worker parse and keep megabytes (each handshake of its hosts reads the chain).
 */
const MAX_CHAIN_CERTIFICATES = 10;
const MAX_CHAIN_BYTES = 128 * 1024;
const MAX_KEY_BYTES = 32 * 1024;

interface SecretEntry {
  source: 'stringData' | 'data';
  raw: unknown;
}

function readEntry(map: unknown, key: string): unknown {
  if (typeof map !== 'object' || map === null) return undefined;
  const value = (map as Record<string, unknown>)[key];
  return value === null ? undefined : value;
}

/** Where one TLS value comes from: `stringData` wins over `data` for the same key, as on the API server. */
function pickEntry(secret: Pick<SecretLike, 'data' | 'stringData'>, key: string): SecretEntry {
  const plain = readEntry(secret.stringData, key);
  return plain === undefined
    ? { source: 'data', raw: readEntry(secret.data, key) }
    : { source: 'stringData', raw: plain };
}

function decode(entry: SecretEntry): string | undefined {
  const { raw } = entry;
  if (typeof raw !== 'string' || raw.length > MAX_SECRET_VALUE) return undefined;
  if (entry.source === 'stringData') return raw;
  return BASE64.test(raw) ? Buffer.from(raw, 'base64').toString('utf8') : undefined;
}

/**
 * Reads `tls.crt` and `tls.key` of a Secret (from `data`, base64, or `stringData`, plain text;
 * the Secret's type is the caller's to check). Never throws.
 */
export function readTlsSecret(secret: Pick<SecretLike, 'data' | 'stringData'>): TlsSecretResult {
  const hasData = typeof secret.data === 'object' && secret.data !== null;
  const hasStringData = typeof secret.stringData === 'object' && secret.stringData !== null;
  if (!hasData && !hasStringData) return { ok: false, message: 'has no data' };
  const crt = pickEntry(secret, 'tls.crt');
  const privateKey = pickEntry(secret, 'tls.key');
  if (crt.raw === undefined || privateKey.raw === undefined) {
    return { ok: false, message: 'must hold tls.crt and tls.key' };
  }
  const certificateText = decode(crt);
  const keyText = decode(privateKey);
  if (certificateText === undefined || keyText === undefined) {
    const plain = crt.source === 'stringData' || privateKey.source === 'stringData';
    return {
      ok: false,
      message: plain
        ? 'tls.crt and tls.key must be base64 in data and text in stringData'
        : 'tls.crt and tls.key must be base64',
    };
  }
  if (certificateText.length > MAX_CHAIN_BYTES) {
    return {
      ok: false,
      message: `tls.crt takes ${Math.ceil(certificateText.length / 1024)} KiB; a certificate chain may take at most ${MAX_CHAIN_BYTES / 1024} KiB`,
    };
  }
  if (keyText.length > MAX_KEY_BYTES)
    return {
      ok: false,
      message: `tls.key takes more than the ${MAX_KEY_BYTES / 1024} KiB a private key may take`,
    };
  const blocks = certificateText.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return { ok: false, message: 'tls.crt holds no PEM certificate' };
  if (blocks.length > MAX_CHAIN_CERTIFICATES) {
    return {
      ok: false,
      message: `tls.crt holds ${blocks.length} certificates; a chain may hold at most ${MAX_CHAIN_CERTIFICATES}`,
    };
  }
  const chain: X509Certificate[] = [];
  for (const block of blocks) {
    try {
      chain.push(new X509Certificate(block));
    } catch {
      return { ok: false, message: 'tls.crt holds a PEM block that is not a valid X.509 certificate' };
    }
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: keyText, format: 'pem' });
  } catch {
    return { ok: false, message: 'tls.key is not an unencrypted PEM private key' };
  }
  const leaf = chain[0]!;
  if (!leaf.checkPrivateKey(key)) {
    return { ok: false, message: 'tls.key does not match the certificate in tls.crt' };
  }
  const weakness = checkCertificateStrength(chain);
  if (weakness !== undefined) return { ok: false, message: weakness };
  const certificatePem = chain.map((certificate) => certificate.toString().trim() + '\n').join('');
  const privateKeyPem = String(key.export({ type: 'pkcs8', format: 'pem' })).trim() + '\n';
  // The id hashes the chain and the key together, so a new key for the same chain is a new id.
  const id = createHash('sha256')
    .update(certificatePem + privateKeyPem)
    .digest('hex');
  return {
    ok: true,
    certificate: { id, certificatePem, privateKeyPem, notAfter: new Date(leaf.validTo).toISOString() },
    leaf,
  };
}

/**
 * A key naming the TLS content of a Secret as {@link readTlsSecret} reads it: two Secrets with the
 * same key read the same. Undefined when tls.crt or tls.key is not a string. For caches.
 */
export function tlsSecretContentKey(secret: Pick<SecretLike, 'data' | 'stringData'>): string | undefined {
  const crt = pickEntry(secret, 'tls.crt');
  const key = pickEntry(secret, 'tls.key');
  if (typeof crt.raw !== 'string' || typeof key.raw !== 'string') return undefined;
  // The source is part of the key: the same string means different bytes in data and stringData.
  return createHash('sha256')
    .update(`${crt.source}\u0000${crt.raw}\u0000${key.source}\u0000${key.raw}`)
    .digest('hex');
}
