/**
 * Whether the relay may use a TLS connection it opened to a backend, as nginx's proxy_ssl_verify
 * decides it: the chain ends in a trusted CA (OpenSSL's verification, which Node ran), with at
 * most `depth` intermediate certificates (proxy_ssl_verify_depth, OpenSSL's verify depth), and
 * the backend's certificate names `name` as OpenSSL's X509_check_host reads it (subjectAltName
 * DNS names, else the subject's CN; wildcards in the leftmost label), which nginx calls too.
 *
 * OpenSSL (1.1 and later, as nginx and Node use it) counts the certificates of the chain it
 * verified between the backend's own and the trust anchor: a self-signed certificate of the CA
 * certificates (without partial chains, which neither nginx nor Node allows, a trusted CA
 * certificate that is not self-signed is an intermediate like any other). nginx 1.22 with
 * OpenSSL 3.0 answers so: depth 0 takes a certificate the trusted CA signed, depth 1 one
 * intermediate more, and a self-signed backend certificate that is its own CA at any depth.
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

/** The trust anchors of CA certificates, where OpenSSL ends the chains it verifies. */
export interface TrustAnchors {
  /** Whether `certificate` has the subject and public key of one (it is one, or a copy another CA signed). */
  includes(certificate: X509Certificate): boolean;
}

/** How the relay verifies a backend: the name its certificate holds, the most intermediates, the anchors. */
export interface BackendVerification {
  name: string;
  depth: number;
  anchors: TrustAnchors;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** A certificate as a trust anchor is known: OpenSSL finds an issuer by subject and checks its key. */
function anchorIdentityOf(certificate: X509Certificate): string {
  const key = certificate.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  return `${certificate.subject}\n${key}`;
}

/**
 * The trust anchors of `caCertificatesPem` (PEM CERTIFICATE blocks; one that does not parse
 * is no anchor): its self-signed certificates.
 */
export function readTrustAnchors(caCertificatesPem: string): TrustAnchors {
  const identities = new Set<string>();
  for (const block of caCertificatesPem.match(PEM_CERTIFICATE) ?? []) {
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(block);
    } catch {
      continue;
    }
    // Self-signed by name and signature; X509Certificate.checkIssued would also ask for the
    // keyCertSign key usage, which a self-signed server certificate used as its own CA lacks.
    if (certificate.issuer === certificate.subject && certificate.verify(certificate.publicKey))
      identities.add(anchorIdentityOf(certificate));
  }
  return { includes: (certificate) => identities.has(anchorIdentityOf(certificate)) };
}

/** The certificate of one element of getPeerCertificate(true)'s chain, or undefined at its end. */
function certificateOf(element: DetailedPeerCertificate): X509Certificate | undefined {
  const raw: unknown = element.raw;
  return raw instanceof Uint8Array && raw.length > 0 ? new X509Certificate(raw) : undefined;
}

/**
 * The intermediate certificates of `peer`'s chain: the certificates after the backend's and
 * before the first one of `anchors`; without one, every certificate after the backend's (more
 * than OpenSSL may have counted: the relay refuses rather than take a longer chain).
 * Certificates are told apart by their DER, not by object: for a self-signed certificate without
 * the keyCertSign key usage, Node links the backend's certificate to the CA certificates' copy of
 * it, then to that copy again, and ends there.
 */
export function countIntermediates(peer: DetailedPeerCertificate, anchors: TrustAnchors): number {
  const seen = new Set<string>();
  for (
    let element: DetailedPeerCertificate | undefined = peer;
    element !== undefined;
    element = element.issuerCertificate
  ) {
    const certificate = certificateOf(element);
    // Node links a certificate it finds no other issuer for to itself (or to a copy of itself).
    if (certificate === undefined || seen.has(certificate.fingerprint256)) break;
    seen.add(certificate.fingerprint256);
    if (anchors.includes(certificate)) return Math.max(0, seen.size - 2);
  }
  return Math.max(0, seen.size - 1);
}

/** Why the relay must not use the connection, verified by `verify`, or undefined when it may. */
export function refuseBackend(verify: BackendVerification, handshake: BackendHandshake): string | undefined {
  if (!handshake.authorized) {
    const error = handshake.authorizationError;
    return `certificate verify error: ${error instanceof Error ? error.message : (error ?? 'not trusted')}`;
  }
  try {
    const intermediates = countIntermediates(handshake.peer, verify.anchors);
    if (intermediates > verify.depth)
      return `certificate chain too long: ${intermediates} intermediate certificates, at most ${verify.depth}`;
    const leaf = certificateOf(handshake.peer);
    if (leaf === undefined) return 'no certificate';
    if (leaf.checkHost(verify.name) === undefined) return `certificate does not name ${verify.name}`;
    return undefined;
  } catch (error) {
    // OpenSSL parsed these certificates for the handshake; were one unreadable here, refuse it.
    return `certificate unreadable: ${error instanceof Error ? error.message : String(error)}`;
  }
}
