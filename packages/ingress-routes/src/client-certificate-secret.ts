/**
 * The CA Secret of client certificate authentication → the CA certificates client certificates
 * must chain to. A missing Secret, one without a usable `ca.crt`, or one with a `ca.crl` (whose
 * revocations the data plane cannot check) closes the Ingress's hosts (403 for everyone) with an
 * error naming the Secret, never opens them.
 */
import { X509Certificate } from 'node:crypto';
import { AUTH_SECRET_PROBLEM, findReferencedSecret, readSecretText } from './basic-auth-secret.js';
import type { Context } from './translation-context.js';
import { type IngressAnnotations } from './annotation-types.js';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const MAX_CA_CERTIFICATES = 100;

/** The CA certificates of `ca.crt` in canonical PEM, or why there are none (a `ca.crl` too: revocations are not checked). */
export function readCaCertificates(secret: {
  data?: unknown;
  stringData?: unknown;
}): string | { problem: string } {
  if (readSecretText(secret, 'ca.crl') !== undefined) {
    return { problem: 'holds ca.crl: certificate revocation lists are not supported' };
  }
  const text = readSecretText(secret, 'ca.crt');
  if (text === undefined) return { problem: 'has no key "ca.crt" holding PEM CA certificates' };
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return { problem: 'ca.crt holds no PEM certificate' };
  if (blocks.length > MAX_CA_CERTIFICATES)
    return { problem: `ca.crt holds more than ${MAX_CA_CERTIFICATES} certificates` };
  const pems: string[] = [];
  for (const block of blocks) {
    try {
      pems.push(new X509Certificate(block).toString().trim() + '\n');
    } catch {
      return { problem: 'ca.crt holds a PEM block that is not a valid X.509 certificate' };
    }
  }
  return pems.join('');
}

/**
 * The annotations with `clientCertificate` resolved from the CA Secret, when auth-tls-secret asks
 * for one. The Secret's key is recorded so a change to it translates the Ingress again.
 */
export function resolveClientCertificate(context: Context): IngressAnnotations {
  const request = context.annotations.clientCertificateRequest;
  if (request === undefined) return context.annotations;
  const closed = (message: string): IngressAnnotations => {
    context.log.error(
      'client-ca-unusable',
      request.field,
      `${AUTH_SECRET_PROBLEM}${message}; every request for the Ingress's hosts gets 403`,
    );
    return { ...context.annotations, clientCertificatePolicy: { ...request.policy, caCertificatesPem: '' } };
  };
  const found = findReferencedSecret(context, request);
  if ('problem' in found) return closed(found.problem);
  const ca = readCaCertificates(found.secret);
  if (typeof ca !== 'string') return closed(`${found.key} ${ca.problem}`);
  return { ...context.annotations, clientCertificatePolicy: { ...request.policy, caCertificatesPem: ca } };
}
