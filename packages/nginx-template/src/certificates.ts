/**
 * TLS Secrets to certificate files. The PEM content is parsed (node:crypto, pure computation),
 * checked (a certificate chain, an unencrypted private key that matches the leaf) and written
 * back in canonical form, so nothing but certificates and a key reaches the file nginx reads.
 */
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';

/** A certificate chain and key that passed every check. */
export interface ParsedCertificate {
  sha256: string;
  fileName: string;
  pem: string;
  notAfter: string;
  leaf: X509Certificate;
}

/** The result of parseTlsSecretData: a certificate, or why there is none. */
export type CertificateResult = { ok: true; certificate: ParsedCertificate } | { ok: false; message: string };

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const BASE64 = /^[A-Za-z0-9+/=\r\n]*$/;
/** Largest certificate or key accepted (base64 or text), far above real chains. */
const MAX_SECRET_VALUE = 1024 * 1024;

function decodeBase64(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_SECRET_VALUE || !BASE64.test(value)) return undefined;
  return Buffer.from(value, 'base64').toString('utf8');
}

/**
 * The parts of a Secret the TLS files come from: `data` (base64, what the API server returns) and
 * `stringData` (plain text, found in manifests; the API server merges it into `data` on write).
 */
export interface SecretContent {
  readonly data?: unknown;
  readonly stringData?: unknown;
}

function readEntry(map: unknown, key: string): unknown {
  if (typeof map !== 'object' || map === null) return undefined;
  const value = (map as Record<string, unknown>)[key];
  return value === null ? undefined : value;
}

interface SecretEntry {
  source: 'stringData' | 'data';
  raw: unknown;
}

/** Where one TLS value comes from: `stringData` wins over `data` for the same key, as on the API server. */
function pickEntry(secret: SecretContent, key: string): SecretEntry {
  const plain = readEntry(secret.stringData, key);
  return plain === undefined
    ? { source: 'data', raw: readEntry(secret.data, key) }
    : { source: 'stringData', raw: plain };
}

/**
 * Parses `tls.crt` and `tls.key` (from `data`, base64, or `stringData`, plain text) into a
 * canonical PEM file: the certificates as parsed, then the key in PKCS#8. Never throws.
 */
export function parseTlsSecretData(secret: SecretContent): CertificateResult {
  const hasData = typeof secret.data === 'object' && secret.data !== null;
  const hasStringData = typeof secret.stringData === 'object' && secret.stringData !== null;
  if (!hasData && !hasStringData) return { ok: false, message: 'has no data' };
  const crt = pickEntry(secret, 'tls.crt');
  const privateKey = pickEntry(secret, 'tls.key');
  if (crt.raw === undefined || privateKey.raw === undefined) {
    return { ok: false, message: 'must hold tls.crt and tls.key' };
  }
  const decode = (entry: SecretEntry): string | undefined =>
    entry.source === 'data'
      ? decodeBase64(entry.raw)
      : typeof entry.raw === 'string' && entry.raw.length <= MAX_SECRET_VALUE
        ? entry.raw
        : undefined;
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
  const blocks = certificateText.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return { ok: false, message: 'tls.crt holds no PEM certificate' };
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
  if (!leaf.checkPrivateKey(key))
    return { ok: false, message: 'tls.key does not match the certificate in tls.crt' };
  const keyPem = key.export({ type: 'pkcs8', format: 'pem' });
  const pem =
    chain.map((certificate) => certificate.toString().trim() + '\n').join('') + String(keyPem).trim() + '\n';
  const sha256 = createHash('sha256').update(pem).digest('hex');
  return {
    ok: true,
    certificate: {
      sha256,
      fileName: `${sha256.slice(0, 32)}.pem`,
      pem,
      notAfter: new Date(leaf.validTo).toISOString(),
      leaf,
    },
  };
}

/** Whether the certificate covers `host`; a wildcard host is checked with a probe label. */
export function isHostCovered(leaf: X509Certificate, host: string): boolean {
  const probe = host.startsWith('*.') ? `ingresskit-probe.${host.slice(2)}` : host;
  return leaf.checkHost(probe) !== undefined;
}

/**
 * Remembers parsed certificates between buildConfiguration calls, keyed by the Secret content, so
 * a rebuild after an endpoint change does not parse every certificate again. Entries a build did
 * not use are dropped at its end, so the cache never outgrows the cluster's certificates.
 */
export interface CertificateCache {
  /** Number of certificates held. */
  readonly size: number;
}

interface CacheState {
  entries: Map<string, CertificateResult>;
  used: Set<string>;
}

const cacheStates = new WeakMap<CertificateCache, CacheState>();

/** Creates an empty CertificateCache; pass it as `certificateCache` to every buildConfiguration call. */
export function createCertificateCache(): CertificateCache {
  const state: CacheState = { entries: new Map(), used: new Set() };
  const cache: CertificateCache = {
    get size() {
      return state.entries.size;
    },
  };
  cacheStates.set(cache, state);
  return cache;
}

/** parseTlsSecretData through the cache (when given one); the result is the same either way. */
export function parseTlsSecretDataCached(
  secret: SecretContent,
  cache: CertificateCache | undefined,
): CertificateResult {
  const state = cache === undefined ? undefined : cacheStates.get(cache);
  const crt = pickEntry(secret, 'tls.crt');
  const key = pickEntry(secret, 'tls.key');
  if (state === undefined || typeof crt.raw !== 'string' || typeof key.raw !== 'string')
    return parseTlsSecretData(secret);
  // The source is part of the id: the same string means different bytes in data and stringData.
  const id = createHash('sha256')
    .update(`${crt.source}\u0000${crt.raw}\u0000${key.source}\u0000${key.raw}`)
    .digest('hex');
  state.used.add(id);
  let result = state.entries.get(id);
  if (result === undefined) {
    result = parseTlsSecretData(secret);
    state.entries.set(id, result);
  }
  return result;
}

/** Drops the entries the last build did not use. */
export function sweepCertificateCache(cache: CertificateCache | undefined): void {
  const state = cache === undefined ? undefined : cacheStates.get(cache);
  if (state === undefined) return;
  for (const id of state.entries.keys()) if (!state.used.has(id)) state.entries.delete(id);
  state.used.clear();
}
