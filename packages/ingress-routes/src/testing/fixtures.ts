/**
 * Test-only builders for the plain Kubernetes objects the translation reads. Not exported from
 * index.ts. They are typed with the package's structural input types and use string timestamps,
 * as plain JSON does; the paths and rules inside are loosely typed because tests also feed broken
 * shapes. Every object comes back deep-frozen, so a translation that changed its input would throw.
 */
import { readFileSync } from 'node:fs';
import type { EndpointSliceLike, IngressLike, SecretLike, ServiceLike } from '@ingresskit/kube-objects';
import { translateIngress } from '../translate-ingress.js';
import type { IngressReferences, IngressTranslationConfig } from '../types.js';

const tlsDir = new URL('../../testdata/tls/', import.meta.url);

/** The annotation prefix used by the fixtures. */
export const A = 'nginx.ingress.kubernetes.io/';

/** Freezes `value` and everything reachable from it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A path entry of an Ingress rule. */
export function path(
  value: string | undefined,
  pathType: string | undefined,
  service: string,
  port: number | string = 80,
): Record<string, unknown> {
  return {
    path: value,
    pathType,
    backend: {
      service: { name: service, port: typeof port === 'number' ? { number: port } : { name: port } },
    },
  };
}

/** An Ingress; `rules` maps host (or '' for none) to paths. */
export function ingress(
  name: string,
  rules: Record<string, Record<string, unknown>[]>,
  options: {
    namespace?: string;
    created?: string | Date;
    annotations?: Record<string, string>;
    tls?: { hosts?: string[]; secretName: string }[];
    defaultBackend?: { service: string; port: number | string };
    uid?: string;
    resourceVersion?: string;
  } = {},
): IngressLike {
  const spec: Record<string, unknown> = {
    rules: Object.entries(rules).map(([host, paths]) => ({
      ...(host === '' ? {} : { host }),
      http: { paths },
    })),
  };
  if (options.tls) spec.tls = options.tls;
  if (options.defaultBackend) {
    const { service, port } = options.defaultBackend;
    spec.defaultBackend = {
      service: { name: service, port: typeof port === 'number' ? { number: port } : { name: port } },
    };
  }
  const metadata: Record<string, unknown> = {
    namespace: options.namespace ?? 'default',
    name,
    creationTimestamp: options.created ?? '2024-01-01T00:00:00Z',
    annotations: options.annotations ?? {},
  };
  if (options.uid !== undefined) metadata.uid = options.uid;
  if (options.resourceVersion !== undefined) metadata.resourceVersion = options.resourceVersion;
  return deepFreeze({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata, spec });
}

/** A ClusterIP Service with the given ports ({name, port}). */
export function service(
  name: string,
  ports: { name?: string; port: number }[] = [{ name: 'http', port: 80 }],
  namespace = 'default',
): ServiceLike {
  return deepFreeze({ metadata: { namespace, name }, spec: { type: 'ClusterIP', ports } });
}

/** An ExternalName Service. */
export function externalService(
  name: string,
  externalName: string,
  port?: number,
  namespace = 'default',
): ServiceLike {
  return deepFreeze({
    metadata: { namespace, name },
    spec: { type: 'ExternalName', externalName, ports: port === undefined ? [] : [{ name: 'http', port }] },
  });
}

/** An EndpointSlice of a Service; endpoints are `address` or `{address, ready, terminating}`. */
export function endpointSlice(
  serviceName: string,
  portNumber: number,
  endpoints: (string | { address: string; ready?: boolean; terminating?: boolean })[],
  options: { namespace?: string; portName?: string; name?: string; addressType?: string } = {},
): EndpointSliceLike {
  return deepFreeze({
    metadata: {
      namespace: options.namespace ?? 'default',
      name: options.name ?? `${serviceName}-abc`,
      labels: { 'kubernetes.io/service-name': serviceName },
    },
    addressType: options.addressType ?? 'IPv4',
    ports: [{ name: options.portName ?? 'http', port: portNumber, protocol: 'TCP' }],
    endpoints: endpoints.map((entry) => {
      const { address, ready, terminating } =
        typeof entry === 'string' ? { address: entry, ready: true, terminating: false } : entry;
      return { addresses: [address], conditions: { ready, terminating } };
    }),
  });
}

/** Reads a fixture from testdata/tls (e.g. `secure.crt`). */
export function readTlsFixture(file: string): string {
  return readFileSync(new URL(file, tlsDir), 'utf8');
}

/** A TLS Secret from the fixture pair `<fixture>.crt` / `<fixture>.key` (or literal PEM text). */
export function tlsSecret(
  name: string,
  fixture: string | { crt: string; key: string },
  options: { namespace?: string; resourceVersion?: string } = {},
): SecretLike {
  const { crt, key } =
    typeof fixture === 'string'
      ? { crt: readTlsFixture(`${fixture}.crt`), key: readTlsFixture(`${fixture}.key`) }
      : fixture;
  const metadata: Record<string, unknown> = { namespace: options.namespace ?? 'default', name };
  if (options.resourceVersion !== undefined) metadata.resourceVersion = options.resourceVersion;
  return deepFreeze({
    metadata,
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(crt).toString('base64'), 'tls.key': Buffer.from(key).toString('base64') },
  });
}

/** An Opaque Secret holding `data` (plain text here, base64 in the object). */
export function opaqueSecret(name: string, data: Record<string, string>, namespace = 'default'): SecretLike {
  return deepFreeze({
    metadata: { name, namespace },
    data: Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    ),
  });
}

/** IngressReferences over a list of Secrets, recording every lookup in `lookups` (`namespace/name`). */
export function secrets(...list: SecretLike[]): IngressReferences & { lookups: string[] } {
  const byKey = new Map<string, SecretLike>();
  for (const secret of list) byKey.set(`${secret.metadata?.namespace}/${secret.metadata?.name}`, secret);
  const lookups: string[] = [];
  return {
    lookups,
    secret(namespace, name) {
      lookups.push(`${namespace}/${name}`);
      return byKey.get(`${namespace}/${name}`);
    },
  };
}

/**
 * Translates Ingress `shop` (host shop.test, one Prefix `/` path to Service app) carrying
 * `annotations` (names without prefix) with `list` as its Secrets: the translation, the policy of
 * its first route and the Secrets looked up.
 */
export function translateAnnotated(annotations: Record<string, string>, ...list: SecretLike[]) {
  const references = secrets(...list);
  const result = translateIngress(
    ingress(
      'shop',
      { 'shop.test': [path('/', 'Prefix', 'app')] },
      { annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${A}${k}`, v])) },
    ),
    references,
  );
  return { result, policy: result.contribution?.hosts[0]?.routes[0]?.policy, lookups: references.lookups };
}

/**
 * Ingress `shop` (host shop.test, one Prefix path / to Service app) with `annotations` (names
 * without the prefix), translated with `config`: the translation and its first route.
 */
export function translateShop(annotations: Record<string, string>, config: IngressTranslationConfig = {}) {
  const result = translateIngress(
    ingress(
      'shop',
      { 'shop.test': [path('/', 'Prefix', 'app')] },
      { annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${A}${k}`, v])) },
    ),
    secrets(),
    config,
  );
  return { result, route: result.contribution?.hosts[0]?.routes[0] };
}
