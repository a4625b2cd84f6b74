/**
 * One Ingress (with the Secrets it names and its annotations) → a route-model contribution and
 * problems. Each Ingress is translated on its own; conflicts with other Ingresses (the same host
 * and path, the same TLS host, the catch-all's default backend) are settled when the route table
 * is assembled, where the oldest object wins.
 */
import {
  ANY_HOSTNAME,
  compareText,
  createProblemLog,
  DEFAULT_BACKEND_ADDRESS_POLICY,
  describeValue,
  type RouteContribution,
  type SourceRef,
} from '@ingresskit/route-model';
import { parseAnnotations } from './annotations.js';

import { checkDnsLabel, checkDnsSubdomain, type IngressLike } from '@ingresskit/kube-objects';

import { addServerAliases, addWwwRedirects } from './host-annotations.js';
import { toMillis } from './timestamps.js';
import { resolveBasicAuth } from './basic-auth-secret.js';
import { resolveDigestAuth } from './digest-auth-secret.js';
import { checkBackendTlsNames, resolveBackendTls } from './backend-tls-secret.js';
import { resolveClientCertificate } from './client-certificate-secret.js';
import { checkExternalAuthAddress } from './external-auth-annotations.js';
import { checkCustomErrors } from './custom-error-annotations.js';
import { resolveAuthProxyHeaders } from './auth-proxy-headers.js';
import { resolveGlobalAuth } from './global-auth.js';
import { resolveCustomHeaders } from './custom-headers.js';
import { resolveGlobalRateLimit } from './global-rate-limit-annotations.js';
import { translateCanarySpec } from './translate-canary.js';
import { translateDefaultBackend, translateRules } from './translate-rules.js';
import { claimTls, readTlsEntries } from './translate-tls.js';
import { INGRESS_KIND, type Context } from './translation-context.js';
import { objectOr } from './object-or.js';
import type { IngressReferences, IngressTranslation, IngressTranslationConfig } from './types.js';
import { annotationField } from './annotation-field.js';
import { compactContribution, listOrNone } from './shared-values.js';
import { checkIngressAnnotations, DEFAULT_INGRESS_CHECKS } from './ingress-checks.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';
import type { IngressProblemCode, IngressProblemLog } from './problem-codes.js';

function translateSpec(context: Context, rawSpec: unknown): RouteContribution {
  const spec = objectOr<{ rules: unknown; tls: unknown; defaultBackend: unknown }>(rawSpec);
  const defaultRoute =
    spec.defaultBackend === undefined || spec.defaultBackend === null
      ? undefined
      : translateDefaultBackend(context, spec.defaultBackend);
  const tlsEntries = readTlsEntries(context, spec.tls);
  const hosts = translateRules(context, spec.rules, defaultRoute ?? 'table-default');
  // Redirects for the Ingress's own hosts, not for its aliases, as ingress-nginx's redirect servers.
  addWwwRedirects(context, hosts);
  addServerAliases(context, hosts);
  // spec.defaultBackend also answers requests for hosts no Ingress names; when several Ingresses
  // have one, assembling the catch-all keeps the oldest and notes the others.
  if (defaultRoute !== undefined && !hosts.has(ANY_HOSTNAME)) {
    hosts.set(ANY_HOSTNAME, { hostname: ANY_HOSTNAME, routes: [], fallback: defaultRoute });
  }
  const hostnames = [...hosts.keys()].sort(compareText);
  checkBackendTlsNames(context, hostnames);
  return {
    // The translation's own SourceRef, read-only like the rest of it: no copy per Ingress.
    source: context.source,
    // A namespace is the unit of trust: with host ownership on, its hosts are its own.
    tenant: context.source.namespace,
    hosts: hostnames.map((hostname) => hosts.get(hostname)!),
    tls: claimTls(context, tlsEntries, hostnames),
  };
}

function sortedKeys(keys: Iterable<string>): string[] {
  return listOrNone([...keys].sort(compareText));
}

/** A translation, and until when it holds. */
export interface TimedTranslation {
  translation: IngressTranslation;
  /**
   * Milliseconds since the epoch after which a translation with a later `now` could differ (a
   * certificate it read expires); `Infinity` when time does not matter.
   */
  expiresAt: number;
}

/**
 * Translates one Ingress into its route-model contribution: a host per hostname its rules name
 * (`*` for rules without a host), a route per valid path, the `spec.defaultBackend` (or the
 * table's default) as the fallback of those hosts, and a TLS claim per TLS host whose Secret holds
 * a valid certificate. What is wrong becomes a problem and leaves out only that part (a rule, a
 * path, a TLS entry); an invalid name or annotation, or an unreadable object, leaves out the whole
 * Ingress. Pure and deterministic; never throws and never changes its input.
 */
export function translateIngress(
  ingress: IngressLike,
  references: IngressReferences,
  config: IngressTranslationConfig = {},
): IngressTranslation {
  return translateIngressTimed(ingress, references, config).translation;
}

/** translateIngress, also saying until when the result holds (for createIngressTranslator). */
export function translateIngressTimed(
  ingress: IngressLike,
  references: IngressReferences,
  config: IngressTranslationConfig,
): TimedTranslation {
  const leftOut = (log: IngressProblemLog): TimedTranslation => ({
    translation: {
      contribution: undefined,
      problems: listOrNone(log.problems),
      references: { secrets: listOrNone([]), services: listOrNone([]) },
    },
    expiresAt: Number.POSITIVE_INFINITY,
  });
  let log = createProblemLog<IngressProblemCode>({ kind: INGRESS_KIND, namespace: '', name: '' });
  try {
    const raw = objectOr<{ metadata: unknown; spec: unknown }>(ingress);
    const metadata = objectOr<{
      namespace: unknown;
      name: unknown;
      creationTimestamp: unknown;
      annotations: unknown;
    }>(raw.metadata);
    const source: SourceRef = {
      kind: INGRESS_KIND,
      namespace: describeValue(metadata.namespace) ?? '',
      name: describeValue(metadata.name) ?? '',
    };
    log = createProblemLog<IngressProblemCode>(source);
    const namespaceProblem = checkDnsLabel(metadata.namespace);
    const nameProblem = checkDnsSubdomain(metadata.name);
    if (namespaceProblem !== undefined || nameProblem !== undefined) {
      const field = namespaceProblem === undefined ? 'metadata.name' : 'metadata.namespace';
      log.error(
        'invalid-name',
        field,
        `${field} ${namespaceProblem ?? nameProblem}; the Ingress is not served`,
      );
      return leftOut(log);
    }
    const failures = checkIngressAnnotations(
      metadata.annotations,
      config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX,
      config.ingressChecks ?? DEFAULT_INGRESS_CHECKS,
    );
    for (const failure of failures) log.error(failure.code, failure.field, failure.message, failure.value);
    const parsed = parseAnnotations(
      metadata.annotations,
      config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX,
      config.annotationDefaults,
      config.allowedSnippetDirectives,
    );
    for (const problem of parsed.problems) {
      if (problem.severity === 'error')
        log.error(problem.code, problem.field, problem.message, problem.value);
      else log.warning(problem.code, problem.field, problem.message, problem.value);
    }
    if (parsed.annotations === undefined || failures.length > 0) return leftOut(log);
    const externalAuth = parsed.annotations.externalAuth;
    if (externalAuth !== undefined) {
      const refusal = checkExternalAuthAddress(
        externalAuth.url,
        config.authAddressPolicy ?? DEFAULT_BACKEND_ADDRESS_POLICY,
      );
      if (refusal !== undefined) {
        const name = `${config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX}/auth-url`;
        log.error(
          'auth-url-refused',
          annotationField(name),
          `annotation "auth-url" may not point there: ${refusal}; the Ingress is not served`,
          externalAuth.url,
        );
        return leftOut(log);
      }
    }
    const paths = countIngressPaths(raw.spec);
    const maxPaths = config.maxPathsPerIngress ?? 0;
    if (maxPaths > 0 && paths > maxPaths) {
      log.error(
        'too-many-paths',
        'spec.rules',
        `has ${paths} paths, more than the ${maxPaths} this controller serves per Ingress; the Ingress is not served`,
      );
      return leftOut(log);
    }
    const context: Context = {
      source,
      createdAt: toMillis(metadata.creationTimestamp),
      annotations: parsed.annotations,
      references,
      config,
      log,
      secretsRead: new Set(),
      configMapsRead: new Set(),
      services: new Set(),
      expiresAt: Number.POSITIVE_INFINITY,
    };
    context.annotations = resolveDigestAuth(context);
    context.annotations = resolveAuthProxyHeaders(resolveBasicAuth(context), context);
    // After auth-proxy-set-headers: an Ingress's own headers are for its own auth-url only.
    context.annotations = resolveGlobalAuth(context);
    context.annotations = resolveClientCertificate(context);
    context.annotations = resolveBackendTls(context);
    context.annotations = resolveGlobalRateLimit(context);
    context.annotations = resolveCustomHeaders(context);
    checkCustomErrors(context);
    const canary = parsed.annotations.canary;
    const contribution =
      canary === undefined
        ? translateSpec(context, raw.spec)
        : translateCanarySpec(context, raw.spec, canary);
    return {
      translation: {
        contribution: compactContribution(contribution),
        problems: listOrNone(log.problems),
        references: {
          secrets: sortedKeys(context.secretsRead),
          services: sortedKeys(context.services),
          ...(context.configMapsRead.size === 0 ? {} : { configMaps: sortedKeys(context.configMapsRead) }),
        },
      },
      expiresAt: context.expiresAt,
    };
  } catch (error) {
    // Only a hostile object (a throwing getter, a proxy) gets here; serving half of it could
    // expose what the other half restricts, so the whole Ingress is left out.
    log.error(
      'unreadable-object',
      'spec',
      `could not be read: ${error instanceof Error ? error.message : String(error)}; the Ingress is not served`,
    );
    return leftOut(log);
  }
}

/**
 * Paths over every rule of an Ingress spec, counting only what is well-formed enough to be a list:
 * what `maxPathsPerIngress` limits.
 */
export function countIngressPaths(spec: unknown): number {
  const rules = objectOr<{ rules: unknown }>(spec).rules;
  if (!Array.isArray(rules)) return 0;
  let count = 0;
  for (const rule of rules) {
    const paths = objectOr<{ paths: unknown }>(objectOr<{ http: unknown }>(rule).http).paths;
    if (Array.isArray(paths)) count += paths.length;
  }
  return count;
}
