/**
 * BackendTlsPolicy → what nginx needs of it. nginx 1.22 takes the client certificate
 * (`proxy_ssl_certificate data:$var`) and the server name (`proxy_ssl_name`) per request, so those
 * are route data; the trusted CA file, verification, depth, protocols, ciphers and SNI on/off are
 * read when nginx.conf loads, so they make a directive profile (built from validated enumerations,
 * numbers, a checked cipher list and a CA file named by its content hash). A policy that cannot be
 * served as written closes the route (503), never falls back to unverified TLS.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { BackendTlsPolicy } from '@ingresskit/route-model';
import type { PolicyEntry } from './data-entries.js';

/** The profile part of a backend TLS policy: every value safe in nginx.conf. */
export interface BackendTlsDirectives {
  verify: boolean;
  depth: number;
  /** Space-separated, sorted: `TLSv1.2 TLSv1.3`. */
  protocols: string;
  ciphers: string;
  sendServerName: boolean;
  /** Canonical PEM of the CA certificates, written to `trustedCertificatePath`. */
  trustedCertificatesPem?: string;
  /** Relative to the nginx prefix: `certs/backend-ca-<sha256>.pem`. */
  trustedCertificatePath?: string;
  /** The route sets `$ingresskit_backend_cert` and `$ingresskit_backend_key`. */
  clientCertificate: boolean;
}

const PROTOCOLS: ReadonlySet<string> = new Set(['TLSv1.2', 'TLSv1.3']);
// ingress-nginx's proxySSLCiphersRegex, not empty.
const CIPHERS = /^[A-Za-z0-9+:_!-]{1,1024}$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The CA certificates in canonical PEM, or undefined when one does not parse or there is none. */
function canonicalCertificates(pem: string): string | undefined {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return undefined;
  try {
    return blocks.map((block) => new X509Certificate(block).toString().trim() + '\n').join('');
  } catch {
    return undefined;
  }
}

/** Parsed once per policy object: policies are frozen and shared by the routes of an Ingress. */
const directivesByPolicy = new WeakMap<BackendTlsPolicy, BackendTlsDirectives | 'closed'>();

/**
 * The directives of `policy`, or `closed` when it cannot be served as written (the route answers
 * 503): verification without usable CA certificates, an unknown protocol, a cipher list outside
 * the grammar, a depth out of range or a client certificate without its key.
 */
export function backendTlsDirectivesOf(policy: BackendTlsPolicy): BackendTlsDirectives | 'closed' {
  const known = directivesByPolicy.get(policy);
  if (known !== undefined) return known;
  const directives = compileDirectives(policy);
  directivesByPolicy.set(policy, directives);
  return directives;
}

function compileDirectives(policy: BackendTlsPolicy): BackendTlsDirectives | 'closed' {
  const protocols = Array.isArray(policy.protocols) ? [...new Set(policy.protocols)].sort() : [];
  if (
    protocols.length === 0 ||
    !protocols.every((protocol) => PROTOCOLS.has(protocol)) ||
    typeof policy.ciphers !== 'string' ||
    !CIPHERS.test(policy.ciphers) ||
    !Number.isInteger(policy.depth) ||
    policy.depth < 1 ||
    policy.depth > 100 ||
    (policy.clientCertificate !== undefined &&
      (typeof policy.clientCertificate.certificatePem !== 'string' ||
        typeof policy.clientCertificate.privateKeyPem !== 'string'))
  ) {
    return 'closed';
  }
  const directives: BackendTlsDirectives = {
    verify: policy.verify === true,
    depth: policy.depth,
    protocols: protocols.join(' '),
    ciphers: policy.ciphers,
    sendServerName: policy.sendServerName === true,
    clientCertificate: policy.clientCertificate !== undefined,
  };
  if (directives.verify) {
    const pem =
      typeof policy.caCertificatesPem === 'string'
        ? canonicalCertificates(policy.caCertificatesPem)
        : undefined;
    if (pem === undefined) return 'closed';
    directives.trustedCertificatesPem = pem;
    directives.trustedCertificatePath = `certs/backend-ca-${createHash('sha256').update(pem).digest('hex')}.pem`;
  }
  return directives;
}

/** The profile name suffix of `directives`: `_t` and a digest of every setting (the CA's content included). */
export function backendTlsNameSuffix(directives: BackendTlsDirectives): string {
  // The CA file's path already names its content.
  const settings = JSON.stringify({ ...directives, trustedCertificatesPem: undefined });
  return `_t${createHash('sha256').update(settings).digest('hex').slice(0, 12)}`;
}

// A DNS name: what a TLS server name may be.
const SERVER_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * The route data of a backend TLS policy (see PolicyEntry.backendTls), or `closed` when the route
 * must answer 503 instead: the policy's directives are closed, or its server name is no DNS name.
 */
export function compileBackendTls(policy: BackendTlsPolicy): PolicyEntry['backendTls'] | 'closed' {
  if (backendTlsDirectivesOf(policy) === 'closed') return 'closed';
  const entry: NonNullable<PolicyEntry['backendTls']> = {};
  if (policy.serverName !== undefined) {
    if (typeof policy.serverName !== 'string' || !SERVER_NAME.test(policy.serverName)) return 'closed';
    entry.name = policy.serverName;
  }
  if (policy.clientCertificate !== undefined) {
    entry.cert = policy.clientCertificate.certificatePem;
    entry.key = policy.clientCertificate.privateKeyPem;
  }
  return entry;
}
