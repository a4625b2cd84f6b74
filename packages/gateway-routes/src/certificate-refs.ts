/**
 * A listener's `tls.certificateRefs` → the certificate it serves, or the ResolvedRefs reason why it
 * has none: core Secrets only, across namespaces only with a ReferenceGrant, the first valid one wins.
 */
import { describeValue, type Certificate } from '@ingresskit/route-model';
import type { SecretCertificate } from './certificates.js';
import { ListenerReason } from './conditions.js';
import { arrayOr, checkDnsLabel, checkDnsSubdomain, objectOr, optionalString } from './grammar.js';
import { GATEWAY_GROUP, isReferenceAllowed } from './reference-grants.js';
import type { GatewayApiReferences, SecretLike } from './types.js';
import type { GatewayApiProblemCode, GatewayApiProblemLog } from './problem-codes.js';

/** Reads a Secret's certificate, possibly from a cache; the default reads it every time. */
export type CertificateReader = (secret: SecretLike) => SecretCertificate;

/** A listener's certificate, or the ResolvedRefs reason and message of the problem that matters most. */
export interface CertificateResult {
  certificate: Certificate | undefined;
  reason: string | undefined;
  message: string | undefined;
}

/** The ResolvedRefs reasons of a certificateRef, and the code of the problem each is. */
const CODE_OF_REASON = {
  [ListenerReason.InvalidCertificateRef]: 'invalid-certificate-ref',
  [ListenerReason.RefNotPermitted]: 'certificate-ref-not-permitted',
} as const satisfies Readonly<Record<string, GatewayApiProblemCode>>;

type CertificateRefReason = keyof typeof CODE_OF_REASON;

/** Reads the certificateRefs at `field` of a listener of a Gateway in `gateway.namespace`. */
export function readCertificates(
  raw: unknown,
  gateway: { namespace: string },
  field: string,
  references: GatewayApiReferences,
  readCertificate: CertificateReader,
  log: GatewayApiProblemLog,
): CertificateResult {
  let certificate: Certificate | undefined;
  let reason: string | undefined;
  let message: string | undefined;
  const fail = (at: string, why: CertificateRefReason, text: string, value?: unknown) => {
    log.error(CODE_OF_REASON[why], at, text, value);
    // RefNotPermitted is the more specific verdict: a grant is what the user has to add.
    if (reason === undefined || why === ListenerReason.RefNotPermitted) {
      reason = why;
      message = `${at}: ${text}`;
    }
  };
  const refs = arrayOr(raw);
  if (refs.length === 0) {
    fail(field, ListenerReason.InvalidCertificateRef, 'an HTTPS listener needs a certificateRef');
  }
  for (const [index, entry] of refs.entries()) {
    const at = `${field}[${index}]`;
    const ref = objectOr<{ group: unknown; kind: unknown; name: unknown; namespace: unknown }>(entry);
    const group = ref.group ?? '';
    const kind = ref.kind ?? 'Secret';
    if (group !== '' || kind !== 'Secret') {
      fail(
        at,
        ListenerReason.InvalidCertificateRef,
        'must refer to a core Secret',
        `${describeValue(group)}/${describeValue(kind)}`,
      );
      continue;
    }
    const namespace = optionalString(ref.namespace) ?? gateway.namespace;
    if (checkDnsSubdomain(ref.name) !== undefined || checkDnsLabel(namespace) !== undefined) {
      fail(at, ListenerReason.InvalidCertificateRef, 'must name a Secret', ref.name);
      continue;
    }
    const name = ref.name as string;
    if (
      !isReferenceAllowed(
        { group: GATEWAY_GROUP, kind: 'Gateway', namespace: gateway.namespace },
        { group: '', kind: 'Secret', namespace, name },
        references.referenceGrants(namespace),
      )
    ) {
      fail(
        at,
        ListenerReason.RefNotPermitted,
        `Secret ${namespace}/${name} is in another namespace and no ReferenceGrant there allows it`,
      );
      continue;
    }
    const secret = references.secret(namespace, name);
    if (secret === undefined || secret === null) {
      fail(at, ListenerReason.InvalidCertificateRef, `Secret ${namespace}/${name} does not exist`);
      continue;
    }
    const result = readCertificate(secret);
    if (!result.ok) {
      fail(at, ListenerReason.InvalidCertificateRef, `Secret ${namespace}/${name} ${result.message}`);
      continue;
    }
    if (certificate === undefined) certificate = result.certificate;
    else
      log.warning(
        'extra-certificate-ignored',
        at,
        'only the first valid certificate of a listener is served',
      );
  }
  return { certificate, reason, message };
}
