/**
 * TLS Secrets to route-model certificates: the reading and checks are kube-objects'
 * `readTlsSecret`, shared with gateway-routes; this module adds the Ingress-side API, the host
 * check and a cache keyed by content.
 */
import type { X509Certificate } from 'node:crypto';
import { readTlsSecret, tlsSecretContentKey, type SecretLike } from '@ingresskit/kube-objects';
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

/**
 * The parts of a Secret the certificate comes from: `data` (base64, what the API server returns)
 * and `stringData` (plain text, found in manifests; the API server merges it into `data` on write).
 */
export type SecretContent = Pick<SecretLike, 'data' | 'stringData'>;

/**
 * Parses `tls.crt` and `tls.key` (from `data`, base64, or `stringData`, plain text) into a
 * canonical chain (the certificates as parsed) and key (PKCS#8). Never throws.
 */
export function parseTlsSecretData(secret: SecretContent): ParsedCertificateResult {
  const result = readTlsSecret(secret);
  return result.ok
    ? { ok: true, parsed: { certificate: result.certificate, leaf: result.leaf } }
    : { ok: false, message: result.message };
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
  const id = tlsSecretContentKey(secret);
  if (state === undefined || id === undefined) return parseTlsSecretData(secret);
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
