/**
 * What an Ingress, an EndpointSlice or a Gateway refers to, for the store's indexes and for the
 * Secrets it keeps.
 */
import { INGRESS_CLASS_ANNOTATION, namespacedKey, SERVICE_NAME_LABEL } from '@ingresskit/kube-objects';
import type { EndpointSlice, Gateway, Ingress } from './objects.js';

// The store's public names of kube-objects' well-known names.
export { INGRESS_CLASS_ANNOTATION as ingressClassAnnotation, SERVICE_NAME_LABEL as serviceNameLabel };

/**
 * Annotations whose value names a Secret (`name` or `namespace/name`) an Ingress depends on, as
 * ingress-nginx reads them; such Secrets are kept even when they are not of TLS type.
 */
export const defaultSecretAnnotations: readonly string[] = [
  'nginx.ingress.kubernetes.io/auth-secret',
  'nginx.ingress.kubernetes.io/auth-tls-secret',
  'nginx.ingress.kubernetes.io/proxy-ssl-secret',
];

/** What an Ingress points at: Secret keys, Service keys and IngressClass names, each sorted and unique. */
export interface IngressReferences {
  readonly secrets: readonly string[];
  readonly services: readonly string[];
  readonly ingressClasses: readonly string[];
}

/**
 * Lists the objects an Ingress references: Secrets from `spec.tls[].secretName` and the given
 * annotations, Services from the default backend and every rule path, IngressClasses from
 * `spec.ingressClassName` and the legacy `kubernetes.io/ingress.class` annotation.
 */
export function extractIngressReferences(
  ingress: Ingress,
  secretAnnotations: readonly string[] = defaultSecretAnnotations,
): IngressReferences {
  const namespace = ingress.metadata.namespace;
  const secrets = new Set<string>();
  for (const tls of ingress.spec?.tls ?? []) {
    if (isName(tls.secretName)) secrets.add(namespacedKey(namespace, tls.secretName));
  }
  const annotations = ingress.metadata.annotations ?? {};
  for (const annotation of secretAnnotations) {
    const value = annotations[annotation]?.trim();
    if (value === undefined || value === '') continue;
    const parts = value.split('/');
    if (parts.length === 1 && isName(parts[0])) secrets.add(namespacedKey(namespace, parts[0]));
    else if (parts.length === 2 && isName(parts[0]) && isName(parts[1]))
      secrets.add(`${parts[0]}/${parts[1]}`);
  }

  const services = new Set<string>();
  const defaultService = ingress.spec?.defaultBackend?.service?.name;
  if (isName(defaultService)) services.add(namespacedKey(namespace, defaultService));
  for (const rule of ingress.spec?.rules ?? []) {
    for (const path of rule.http?.paths ?? []) {
      const name = path.backend?.service?.name;
      if (isName(name)) services.add(namespacedKey(namespace, name));
    }
  }

  const ingressClasses = new Set<string>();
  if (isName(ingress.spec?.ingressClassName)) ingressClasses.add(ingress.spec.ingressClassName);
  const legacyClass = annotations[INGRESS_CLASS_ANNOTATION];
  if (isName(legacyClass)) ingressClasses.add(legacyClass);

  return { secrets: sorted(secrets), services: sorted(services), ingressClasses: sorted(ingressClasses) };
}

/** The key (`namespace/service`) of the Service an EndpointSlice belongs to, from its label. */
export function serviceKeyOfEndpointSlice(slice: EndpointSlice): string | undefined {
  const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
  return isName(service) ? namespacedKey(slice.metadata.namespace, service) : undefined;
}

/**
 * The Secrets (`namespace/name`) a Gateway's listeners name in `tls.certificateRefs` (core Secrets;
 * a ref without a namespace is in the Gateway's), sorted and unique. Whether a ReferenceGrant allows
 * one in another namespace is the translator's to say: kept either way, so a grant that comes
 * later is served at once.
 */
export function extractGatewaySecrets(gateway: Gateway): readonly string[] {
  const secrets = new Set<string>();
  const listeners: unknown = gateway.spec?.listeners;
  for (const listener of Array.isArray(listeners) ? listeners : []) {
    const refs: unknown = (listener as { tls?: { certificateRefs?: unknown } } | null)?.tls?.certificateRefs;
    for (const ref of Array.isArray(refs) ? refs : []) {
      const { group, kind, name, namespace } = (ref ?? {}) as Record<string, unknown>;
      if ((group ?? '') !== '' || (kind ?? 'Secret') !== 'Secret' || !isName(name)) continue;
      const refNamespace = namespace ?? gateway.metadata.namespace;
      if (isName(refNamespace)) secrets.add(`${refNamespace}/${name}`);
    }
  }
  return sorted(secrets);
}

/**
 * The IngressClass an Ingress names in `spec.ingressClassName`: the one that decides who owns it
 * when it exists (the field wins over the legacy annotation, as in ingress-nginx).
 */
export function ingressClassOfIngress(ingress: Ingress): string | undefined {
  const name = ingress.spec?.ingressClassName;
  return isName(name) ? name : undefined;
}

/** The GatewayClass name a Gateway asks for. */
export function gatewayClassOfGateway(gateway: Gateway): string | undefined {
  const name = gateway.spec?.gatewayClassName;
  return isName(name) ? name : undefined;
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && !value.includes('/');
}

function sorted(values: Set<string>): readonly string[] {
  return [...values].sort();
}
