/**
 * The configuration id of a TLS Secret, which needs its certificate parsed (node:crypto): kept
 * apart from the rest of the checksum so that `@ingresskit/checksum/pure` runs in a browser.
 */
import type { SecretLike } from '@ingresskit/kube-objects/pure';
import { readSecretCertificate } from './certificate.js';
import { describe, readBaseId, skip, type ConfigIdOptions, type SecretConfigIdResult } from './config-id.js';

/** A Secret as far as the checksum is concerned: kube-objects' SecretLike. */
export type { SecretLike };

/**
 * The Secret's configuration id `"<id>-<version>-<sha1>"` as Tengine-Ingress computes it
 * (`getSecretID`): id and version as for Ingresses, sha1 the lowercase hex SHA-1 of the DER of the
 * first certificate in tls.crt (from `data`, base64, or `stringData`). Secrets Tengine cannot load
 * (no certificate, a certificate that does not parse, a key that does not match) do not take part.
 * A Secret with only a ca.crt takes part with an empty sha1, `"<id>-<version>-"`, as in Tengine.
 */
export function secretConfigId(secret: SecretLike, options: ConfigIdOptions = {}): SecretConfigIdResult {
  const base = readBaseId('Secret', secret.metadata, options);
  if (base.id === undefined) return base;
  const certificate = readSecretCertificate(secret);
  switch (certificate.kind) {
    case 'leaf':
      return { id: `${base.id}-${certificate.sha1}`, certificate: 'leaf' };
    case 'ca-only':
      return { id: `${base.id}-`, certificate: 'ca-only' };
    case 'unusable':
      return skip(
        certificate.reason,
        `Secret ${describe(secret.metadata)} does not take part in the checksum: ${certificate.detail}.`,
      );
  }
}
