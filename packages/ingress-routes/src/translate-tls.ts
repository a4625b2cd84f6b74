/**
 * The TLS entries of an Ingress → TLS claims: each entry's Secret is read and checked once, then
 * claimed for each host it names, or for every named host of the Ingress when it names none.
 */
import { ANY_HOSTNAME, type Problem, type RouteOrigin, type TlsClaim } from '@ingresskit/route-model';
import {
  isCertificateCoveringHost,
  parseTlsSecretDataCached,
  type ParsedCertificate,
} from './certificates.js';
import { checkDnsSubdomain, namespacedKey, type IngressLike } from '@ingresskit/kube-objects';
import { checkHost } from './grammar.js';
import { INGRESS_KIND, originOf, type Context } from './translation-context.js';
import { objectOr } from './object-or.js';

import { AUTH_SECRET_PROBLEM } from './basic-auth-secret.js';
import { AUTH_HEADERS_PROBLEM } from './auth-proxy-headers.js';
import { CUSTOM_HEADERS_PROBLEM } from './custom-headers.js';
import { GLOBAL_LIMIT_STORE_PROBLEM } from './global-rate-limit-annotations.js';

/** A TLS entry whose certificate passed every check, before its hosts are known. */
export interface TlsEntry {
  index: number;
  secretKey: string;
  parsed: ParsedCertificate;
  /** Valid hosts the entry names, with their index in `hosts`; undefined: every host of the Ingress. */
  hosts: { host: string; index: number }[] | undefined;
}

/** How a problem caused by a TLS entry's Secret (missing, or no usable certificate) begins. */
const TLS_SECRET_PROBLEM = 'TLS Secret ';

/**
 * Whether a problem comes from an object the Ingress refers to (its TLS Secret is missing or holds
 * no usable certificate, its basic authentication Secret is missing or holds no usable users, its auth-proxy-set-headers or custom-headers ConfigMap is missing or unusable, the controller ConfigMap names no memcached for its global-rate-limit) rather than from the Ingress itself: an admission review warns about
 * those, since manifests are applied in any order and the Secret may come next.
 */
export function isReferencedObjectProblem(problem: Pick<Problem, 'field' | 'message'>): boolean {
  return (
    (/^spec\.tls\[\d+\]\.secretName$/.test(problem.field) &&
      problem.message.startsWith(TLS_SECRET_PROBLEM)) ||
    (problem.field.startsWith('metadata.annotations[') && problem.message.startsWith(AUTH_SECRET_PROBLEM)) ||
    (problem.field.startsWith('metadata.annotations[') &&
      (problem.message.startsWith(AUTH_HEADERS_PROBLEM) ||
        problem.message.startsWith(CUSTOM_HEADERS_PROBLEM))) ||
    (problem.field.startsWith('metadata.annotations[') &&
      problem.message.startsWith(GLOBAL_LIMIT_STORE_PROBLEM))
  );
}

/** Reads and checks the Secret of one TLS entry; reports why it cannot be used, or that it expired. */
function readCertificate(
  context: Context,
  secretName: unknown,
  field: string,
): ParsedCertificate | undefined {
  const nameProblem = checkDnsSubdomain(secretName);
  if (nameProblem !== undefined) {
    context.log.error('invalid-tls-secret-name', field, `secretName ${nameProblem}`, secretName);
    return undefined;
  }
  const { namespace } = context.source;
  const key = namespacedKey(namespace, secretName as string);
  context.secretsRead.add(key);
  const secret = context.references.secret(namespace, secretName as string);
  const result =
    secret === undefined || secret === null
      ? { ok: false as const, message: 'not found' }
      : parseTlsSecretDataCached(secret, context.config.certificateCache);
  if (!result.ok) {
    context.log.error(
      'tls-secret-unusable',
      field,
      `${TLS_SECRET_PROBLEM}${key}: ${result.message}; its hosts are served without TLS`,
    );
    return undefined;
  }
  const { notAfter } = result.parsed.certificate;
  const notAfterMs = notAfter === undefined ? NaN : Date.parse(notAfter);
  const { now } = context.config;
  if (now !== undefined && notAfterMs < now) {
    context.log.warning(
      'certificate-expired',
      field,
      `the certificate in Secret ${key} expired on ${notAfter}`,
    );
  } else if (now !== undefined && notAfterMs < context.expiresAt) {
    context.expiresAt = notAfterMs;
  }
  return result.parsed;
}

/** Reads `spec.tls`: each entry with a valid certificate, its hosts still to be claimed. */
export function readTlsEntries(context: Context, tls: unknown): TlsEntry[] {
  if (tls === undefined || tls === null) return [];
  if (!Array.isArray(tls)) {
    context.log.error('malformed-field', 'spec.tls', 'must be a list');
    return [];
  }
  const entries: TlsEntry[] = [];
  tls.forEach((entry: unknown, index) => {
    const field = `spec.tls[${index}]`;
    const { hosts, secretName } = objectOr<{ hosts: unknown; secretName: unknown }>(entry);
    const parsed = readCertificate(context, secretName, `${field}.secretName`);
    if (parsed === undefined) return;
    const secretKey = namespacedKey(context.source.namespace, secretName as string);
    const hostList: unknown[] = Array.isArray(hosts) ? hosts : [];
    if (hostList.length === 0) {
      entries.push({ index, secretKey, parsed, hosts: undefined });
      return;
    }
    const valid: { host: string; index: number }[] = [];
    hostList.forEach((host, hostIndex) => {
      const hostProblem = checkHost(host);
      if (hostProblem === undefined) valid.push({ host: host as string, index: hostIndex });
      else context.log.error('invalid-host', `${field}.hosts[${hostIndex}]`, `host ${hostProblem}`, host);
    });
    entries.push({ index, secretKey, parsed, hosts: valid });
  });
  return entries;
}

/** One claim per host of each entry; an entry without hosts claims every named host of the Ingress. */
export function claimTls(
  context: Context,
  entries: readonly TlsEntry[],
  ingressHosts: readonly string[],
): TlsClaim[] {
  const claims: TlsClaim[] = [];
  for (const entry of entries) {
    const field = `spec.tls[${entry.index}]`;
    const targets =
      entry.hosts?.map(({ host, index }) => ({ host, field: `${field}.hosts[${index}]` })) ??
      ingressHosts.filter((host) => host !== ANY_HOSTNAME).map((host) => ({ host, field }));
    for (const { host, field: hostField } of targets) {
      if (!isCertificateCoveringHost(entry.parsed.leaf, host)) {
        context.log.warning(
          'certificate-host-mismatch',
          hostField,
          `the certificate in Secret ${entry.secretKey} does not cover host ${host}`,
        );
      }
      claims.push({
        hostname: host,
        certificate: entry.parsed.certificate,
        origin: originOf(context, [entry.index], field),
      });
    }
  }
  return claims;
}

/**
 * The Secret behind a TLS claim of an Ingress (or the binding it won): `spec.tls[i].secretName`
 * of `ingress`, where the claim's origin says which entry; undefined for a claim of another kind
 * of object, or when the Ingress no longer has that entry.
 */
export function tlsSecretNameOf(ingress: IngressLike | undefined, origin: RouteOrigin): string | undefined {
  if (origin.kind !== INGRESS_KIND || origin.field?.startsWith('spec.tls[') !== true) return undefined;
  const secretName = ingress?.spec?.tls?.[origin.index[0] ?? -1]?.secretName;
  return typeof secretName === 'string' ? secretName : undefined;
}
