/**
 * TLS Secrets to route-model certificates, read by kube-objects' `readTlsSecret` (shared with
 * ingress-routes): a certificate chain and an unencrypted private key matching the leaf, with keys
 * and signatures a TLS library will use, in canonical form. Gateway API adds one rule: a
 * certificateRef names a Secret of type kubernetes.io/tls.
 */
import { readTlsSecret, TLS_SECRET_TYPE } from '@ingresskit/kube-objects';
import type { Certificate } from '@ingresskit/route-model';
import type { SecretLike } from './types.js';

/** A certificate read from a Secret, or why there is none. */
export type SecretCertificate = { ok: true; certificate: Certificate } | { ok: false; message: string };

/** Reads the certificate of a kubernetes.io/tls Secret. Never throws. */
export function readSecretCertificate(secret: SecretLike): SecretCertificate {
  const type = secret.type;
  if (type !== undefined && type !== null && type !== TLS_SECRET_TYPE) {
    return { ok: false, message: `is of type ${String(type)}, not ${TLS_SECRET_TYPE}` };
  }
  const result = readTlsSecret(secret);
  return result.ok ? { ok: true, certificate: result.certificate } : { ok: false, message: result.message };
}
