/**
 * Whether the relay may use a TLS connection it opened to a backend, as nginx's proxy_ssl_verify
 * decides it: the chain ends in a trusted CA (OpenSSL's verification, which Node ran), with at
 * most `depth` intermediate certificates (proxy_ssl_verify_depth, OpenSSL's verify depth), and
 * the backend's certificate names `name` as OpenSSL's X509_check_host reads it (subjectAltName
 * DNS names, else the subject's CN; wildcards in the leftmost label), which nginx calls too.
 */
import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate } from 'node:tls';

/** What the relay knows of the backend after the handshake. */
export interface BackendHandshake {
  /** Whether the chain verified against the CA certificates (TLSSocket.authorized). */
  authorized: boolean;
  authorizationError?: string | Error | null | undefined;
  /** TLSSocket.getPeerCertificate(true): the backend's certificate and its issuers. */
  peer: DetailedPeerCertificate;
}

/**
 * The intermediate certificates of `peer`'s chain: those between the backend's own and the first
 * self-issued one (the trust anchor); without one, every certificate after the backend's.
 */
export function countIntermediates(peer: DetailedPeerCertificate): number {
  const seen = new Set<DetailedPeerCertificate>();
  let certificate: DetailedPeerCertificate | undefined = peer;
  let count = 0;
  while (certificate !== undefined && Object.keys(certificate).length > 0 && !seen.has(certificate)) {
    seen.add(certificate);
    count += 1;
    const issuer: DetailedPeerCertificate | undefined = certificate.issuerCertificate;
    // Node links a self-issued certificate to itself.
    if (issuer === certificate) return Math.max(0, count - 2);
    certificate = issuer;
  }
  return Math.max(0, count - 1);
}

/** Why the relay must not use the connection, verified by `verify`, or undefined when it may. */
export function refuseBackend(
  verify: { name: string; depth: number },
  handshake: BackendHandshake,
): string | undefined {
  if (!handshake.authorized) {
    const error = handshake.authorizationError;
    return `certificate verify error: ${error instanceof Error ? error.message : (error ?? 'not trusted')}`;
  }
  const intermediates = countIntermediates(handshake.peer);
  if (intermediates > verify.depth)
    return `certificate chain too long: ${intermediates} intermediate certificates, at most ${verify.depth}`;
  const raw = handshake.peer.raw;
  if (!(raw instanceof Uint8Array)) return 'no certificate';
  if (new X509Certificate(raw).checkHost(verify.name) === undefined)
    return `certificate does not name ${verify.name}`;
  return undefined;
}
