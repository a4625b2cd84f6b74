/**
 * The Secret of backend TLS (proxy-ssl-secret) → the CA certificates the backend must chain to
 * (`ca.crt`, required as ingress-nginx requires it) and the client certificate presented to it
 * (`tls.crt` and `tls.key`, optional). A missing Secret or one that cannot be used closes the
 * Ingress's routes (503) with an error naming the Secret: never unverified TLS, nor TLS without
 * the certificate the backend expects.
 */
import { readTlsSecret } from '@ingresskit/kube-objects';
import { annotationField } from './annotation-field.js';
import { AUTH_SECRET_PROBLEM, findReferencedSecret, readSecretText } from './basic-auth-secret.js';
import { readCaCertificates } from './client-certificate-secret.js';
import type { Context } from './translation-context.js';
import { DEFAULT_ANNOTATION_PREFIX, type IngressAnnotations } from './annotation-types.js';

/**
 * The annotations with `backendTls` resolved from its Secret, when proxy-ssl-secret asks for one.
 * The Secret's key is recorded so a change to it translates the Ingress again.
 */
export function resolveBackendTls(context: Context): IngressAnnotations {
  const request = context.annotations.backendTlsRequest;
  if (request === undefined) return context.annotations;
  const closed = (message: string): IngressAnnotations => {
    context.log.error(
      'backend-tls-secret-unusable',
      request.field,
      `${AUTH_SECRET_PROBLEM}${message}; every forwarded request of the Ingress gets 503`,
    );
    // Verification without CA certificates cannot be served: the data plane answers 503.
    return { ...context.annotations, backendTls: { ...request.policy, verify: true, caCertificatesPem: '' } };
  };
  const found = findReferencedSecret(context, request);
  if ('problem' in found) return closed(found.problem);
  const ca = readCaCertificates(found.secret);
  if (typeof ca !== 'string') return closed(`${found.key} ${ca.problem}`);
  const policy: NonNullable<IngressAnnotations['backendTls']> = { ...request.policy, caCertificatesPem: ca };
  if (
    readSecretText(found.secret, 'tls.crt') !== undefined ||
    readSecretText(found.secret, 'tls.key') !== undefined
  ) {
    const client = readTlsSecret(found.secret);
    if (!client.ok) return closed(`${found.key} ${client.message}`);
    policy.clientCertificate = {
      certificatePem: client.certificate.certificatePem,
      privateKeyPem: client.certificate.privateKeyPem,
    };
  }
  return { ...context.annotations, backendTls: policy };
}

/**
 * Reports the hosts of `hostnames` whose backends a verifying proxy-ssl policy cannot name: without
 * proxy-ssl-name or upstream-vhost the name verified is the host, which a rule without a host or
 * with a wildcard does not fix. The data plane answers their requests 503.
 */
export function checkBackendTlsNames(context: Context, hostnames: readonly string[]): void {
  const { backendTls, upstreamHost } = context.annotations;
  if (backendTls === undefined || !backendTls.verify || backendTls.caCertificatesPem === '') return;
  if (backendTls.serverName !== undefined || upstreamHost !== undefined) return;
  const unnamed = hostnames.filter((hostname) => hostname.includes('*'));
  if (unnamed.length === 0) return;
  const prefix = context.config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX;
  context.log.error(
    'backend-tls-name-missing',
    annotationField(`${prefix}/proxy-ssl-name`),
    `is needed to verify the backend of ${unnamed.join(', ')}, a host that names no server; their requests get 503`,
  );
}
