/**
 * The client certificates a virtual host requires: ingress-nginx applies auth-tls per server, from
 * the first Ingress of the host that sets it, so the policy of the host's oldest route carrying
 * one (route-model origin order) holds for every route of the host. A policy that cannot be
 * compiled closes the host (every request 403) rather than dropping the requirement.
 */
import { createHash } from 'node:crypto';
import {
  compareOrigins,
  type ClientCertificatePolicy,
  type Route,
  type VirtualHost,
} from '@ingresskit/route-model';
import type { ClientCertEntry } from './data-entries.js';

const VERIFY_MODES: ReadonlySet<string> = new Set(['on', 'optional', 'optional_no_ca']);
const ERROR_PAGE =
  /^(?:https?:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?)?\/[A-Za-z0-9._/-]*$|^https?:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?$/;
const PEM_CERTIFICATES = /^(?:-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n)+$/;

/**
 * The policy of the host's oldest route (or fallback) that has one. Routes a push left out count
 * too: their Ingress still asked for client certificates on the host.
 */
function hostPolicyOf(virtualHost: VirtualHost): ClientCertificatePolicy | undefined {
  let oldest: Route | undefined;
  const routes =
    virtualHost.fallbackRoute === undefined
      ? virtualHost.routes
      : [...virtualHost.routes, virtualHost.fallbackRoute];
  for (const route of routes) {
    if (route.policy?.clientCertificate === undefined) continue;
    if (oldest === undefined || compareOrigins(route.origin, oldest.origin) < 0) oldest = route;
  }
  return oldest?.policy.clientCertificate;
}

function isValid(policy: ClientCertificatePolicy): boolean {
  return (
    typeof policy.caCertificatesPem === 'string' &&
    (policy.caCertificatesPem === '' || PEM_CERTIFICATES.test(policy.caCertificatesPem)) &&
    VERIFY_MODES.has(policy.verify) &&
    Number.isInteger(policy.depth) &&
    policy.depth >= 1 &&
    policy.depth <= 100 &&
    (policy.errorPage === undefined ||
      (typeof policy.errorPage === 'string' && ERROR_PAGE.test(policy.errorPage))) &&
    (policy.subjectPattern === undefined ||
      (typeof policy.subjectPattern === 'string' && policy.subjectPattern.length <= 1024))
  );
}

/** The host's client certificate entry, or undefined when no route of it asks for one. */
export function compileHostClientCertificate(virtualHost: VirtualHost): ClientCertEntry | undefined {
  const policy = hostPolicyOf(virtualHost);
  if (policy === undefined) return undefined;
  const entry: Omit<ClientCertEntry, 'id'> = isValid(policy)
    ? { ca: policy.caCertificatesPem, verify: policy.verify, depth: policy.depth }
    : { ca: '', verify: 'on', depth: 1 };
  if (entry.ca !== '') {
    if (policy.errorPage !== undefined) entry.errorPage = policy.errorPage;
    if (policy.passCertificate === true) entry.pass = true;
    if (policy.subjectPattern !== undefined) entry.subject = policy.subjectPattern;
  }
  // Sessions are bound to this id: changing the CA or any setting makes clients verify again.
  const id = createHash('sha256').update(JSON.stringify(entry)).digest('hex').slice(0, 32);
  return { id, ...entry };
}
