/**
 * TLS Secrets to route-model certificates. The PEM content is parsed (node:crypto, pure
 * computation), checked (a certificate chain, an unencrypted private key that matches the leaf)
 * and written back in canonical form, so nothing but certificates and a key reaches a data plane.
 */
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { Certificate } from '@ingresskit/route-model';

/** A certificate that passed every check, with its parsed leaf for host checks. */
export interface ParsedCertificate {
  certificate: Certificate;
  leaf: X509Certificate;
}

/** The result of parsing a TLS Secret: a certificate, or why there is none. */
export type ParsedCertificateResult =
  { ok: true; parsed: ParsedCertificate } | { ok: false; message: string };

/** The result of parseTlsSecret: a route-model certificate, or why there is none. */
export type TlsSecretResult = { ok: true; certificate: Certificate } | { ok: false; message: string };

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const BASE64 = /^[A-Za-z0-9+/=\r\n]*$/;
/** Largest certificate or key accepted (base64 or text), far above real chains. */
const MAX_SECRET_VALUE = 1024 * 1024;

function decodeBase64(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_SECRET_VALUE || !BASE64.test(value)) return undefined;
  return Buffer.from(value, 'base64').toString('utf8');
}

/**
 * The parts of a Secret the certificate comes from: `data` (base64, what the API server returns)
 * and `stringData` (plain text, found in manifests; the API server merges it into `data` on write).
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
 * canonical chain (the certificates as parsed) and key (PKCS#8). Never throws.
 */
export function parseTlsSecretData(secret: SecretContent): ParsedCertificateResult {
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
  if (!leaf.checkPrivateKey(key)) {
    return { ok: false, message: 'tls.key does not match the certificate in tls.crt' };
  }
  const certificatePem = chain.map((certificate) => certificate.toString().trim() + '\n').join('');
  const privateKeyPem = String(key.export({ type: 'pkcs8', format: 'pem' })).trim() + '\n';
  // The id hashes the chain and the key together, so a new key for the same chain is a new id.
  const id = createHash('sha256')
    .update(certificatePem + privateKeyPem)
    .digest('hex');
  return {
    ok: true,
    parsed: {
      certificate: { id, certificatePem, privateKeyPem, notAfter: new Date(leaf.validTo).toISOString() },
      leaf,
    },
  };
}

/**
 * Reads the certificate of a `kubernetes.io/tls` Secret (`tls.crt` and `tls.key`, from `data` or
 * `stringData`): the chain as parsed and the key in PKCS#8, with a content-derived id. Checks
 * that the key is unencrypted and matches the leaf. Never throws.
 */
export function parseTlsSecret(secret: SecretContent): TlsSecretResult {
  const result = parseTlsSecretData(secret);
  return result.ok ? { ok: true, certificate: result.parsed.certificate } : result;
}

/** Whether the certificate covers `host`; a wildcard host is checked with a probe label. */
export function isCertificateCoveringHost(leaf: X509Certificate, host: string): boolean {
  const probe = host.startsWith('*.') ? `ingresskit-probe.${host.slice(2)}` : host;
  return leaf.checkHost(probe) !== undefined;
}

/**
 * Parsed certificates kept between translations, keyed by the Secret content, so translating an
 * Ingress again does not parse its certificates again. It holds at most `maxEntries` contents and
 * drops the least recently used one first, so it never outgrows the cluster's certificates.
 */
export interface CertificateCache {
  /** Number of certificate contents held. */
  readonly size: number;
}

/** Options of createCertificateCache. */
export interface CertificateCacheOptions {
  /** Most contents held; 4096 by default. */
  maxEntries?: number;
}

interface CacheState {
  entries: Map<string, ParsedCertificateResult>;
  maxEntries: number;
}

// The state hides behind a WeakMap so the cache is an opaque handle that callers cannot corrupt.
const cacheStates = new WeakMap<CertificateCache, CacheState>();

/** Creates an empty CertificateCache; pass it as `certificateCache` to every translateIngress call. */
export function createCertificateCache(options: CertificateCacheOptions = {}): CertificateCache {
  const maxEntries = options.maxEntries ?? 4096;
  const state: CacheState = {
    entries: new Map(),
    maxEntries: Number.isInteger(maxEntries) && maxEntries > 0 ? maxEntries : 4096,
  };
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
): ParsedCertificateResult {
  const state = cache === undefined ? undefined : cacheStates.get(cache);
  const crt = pickEntry(secret, 'tls.crt');
  const key = pickEntry(secret, 'tls.key');
  if (state === undefined || typeof crt.raw !== 'string' || typeof key.raw !== 'string') {
    return parseTlsSecretData(secret);
  }
  // The source is part of the id: the same string means different bytes in data and stringData.
  const id = createHash('sha256')
    .update(`${crt.source}\u0000${crt.raw}\u0000${key.source}\u0000${key.raw}`)
    .digest('hex');
  let result = state.entries.get(id);
  if (result === undefined) {
    result = parseTlsSecretData(secret);
  } else {
    // Re-inserting moves the entry to the end: the Map's order is the least recently used first.
    state.entries.delete(id);
  }
  state.entries.set(id, result);
  if (state.entries.size > state.maxEntries) {
    state.entries.delete(state.entries.keys().next().value!);
  }
  return result;
}
