/**
 * Whether a data plane's TLS library will use a certificate chain at all. OpenSSL 3 at security
 * level 2 (Debian's default, which nginx inherits) refuses, when a certificate is set for a
 * handshake, keys under 112 bits of security and certificates signed with MD5 or SHA-1; an
 * elliptic curve no TLS client offers cannot be used either. Found only at handshake time, such a
 * certificate would fail its host's HTTPS in silence, so it is refused up front with a reason.
 */
import type { X509Certificate } from 'node:crypto';

/** Smallest RSA modulus at security level 2 (112 bits). */
const MIN_RSA_BITS = 2048;

/** Curves of ECDSA certificates TLS clients offer (TLS 1.3's signature schemes name only these). */
const USABLE_CURVES: ReadonlySet<string> = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** Signature algorithms on an MD5 or SHA-1 digest, by the names OpenSSL gives them. */
const WEAK_SIGNATURE = /md[245]|sha1(?!\d)/i;

/** Where a certificate sits in tls.crt, for messages. */
function positionOf(index: number): string {
  return index === 0 ? 'the certificate' : `certificate ${index + 1} of the chain`;
}

function keyProblem(certificate: X509Certificate): string | undefined {
  const key = certificate.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss': {
      const bits = details.modulusLength ?? 0;
      return bits >= MIN_RSA_BITS
        ? undefined
        : `has a ${bits}-bit RSA key; at least ${MIN_RSA_BITS} bits are needed`;
    }
    case 'ec': {
      const curve = details.namedCurve ?? 'an unnamed curve';
      return USABLE_CURVES.has(curve)
        ? undefined
        : `has an EC key on ${curve}; TLS clients accept P-256, P-384 and P-521 only`;
    }
    case 'ed25519':
    case 'ed448':
      return undefined;
    default:
      return `has a ${key.asymmetricKeyType ?? 'unknown'} key; only RSA, EC, Ed25519 and Ed448 keys are served`;
  }
}

/**
 * Why a TLS library would refuse `chain` (leaf first, as in tls.crt), or undefined. Every key is
 * checked; signatures are checked except on self-issued certificates, whose signature no TLS
 * library verifies.
 */
export function checkCertificateStrength(chain: readonly X509Certificate[]): string | undefined {
  for (const [index, certificate] of chain.entries()) {
    const problem = keyProblem(certificate);
    if (problem !== undefined) return `${positionOf(index)} in tls.crt ${problem}`;
    const algorithm = certificate.signatureAlgorithm ?? '';
    const selfIssued = certificate.issuer === certificate.subject;
    if (!selfIssued && WEAK_SIGNATURE.test(algorithm)) {
      return `${positionOf(index)} in tls.crt is signed with ${algorithm}; MD5 and SHA-1 signatures are refused`;
    }
  }
  return undefined;
}
