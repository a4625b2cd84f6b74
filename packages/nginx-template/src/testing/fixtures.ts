/**
 * Test-only builders for the plain Kubernetes objects buildConfiguration reads. Not exported from
 * index.ts. They are typed with the package's structural input types and use string timestamps,
 * as plain JSON does; the paths and rules inside are loosely typed because tests also feed broken shapes.
 */
import { readFileSync } from 'node:fs';
import type { EndpointSliceLike, IngressLike, SecretLike, ServiceLike } from '../types.js';

const tlsDir = new URL('../../testdata/tls/', import.meta.url);

/** The annotation prefix used by the fixtures. */
export const A = 'nginx.ingress.kubernetes.io/';

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
    created?: string;
    annotations?: Record<string, string>;
    tls?: { hosts?: string[]; secretName: string }[];
    defaultBackend?: { service: string; port: number | string };
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
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      namespace: options.namespace ?? 'default',
      name,
      creationTimestamp: options.created ?? '2024-01-01T00:00:00Z',
      annotations: options.annotations ?? {},
    },
    spec,
  };
}

/** A ClusterIP Service with the given ports ({name, port}). */
export function service(
  name: string,
  ports: { name?: string; port: number }[] = [{ name: 'http', port: 80 }],
  namespace = 'default',
): ServiceLike {
  return { metadata: { namespace, name }, spec: { type: 'ClusterIP', ports } };
}

/** An ExternalName Service. */
export function externalService(
  name: string,
  externalName: string,
  port?: number,
  namespace = 'default',
): ServiceLike {
  return {
    metadata: { namespace, name },
    spec: { type: 'ExternalName', externalName, ports: port === undefined ? [] : [{ name: 'http', port }] },
  };
}

/** An EndpointSlice of a Service; endpoints are `address` or `{address, ready, terminating}`. */
export function endpointSlice(
  serviceName: string,
  portNumber: number,
  endpoints: (string | { address: string; ready?: boolean; terminating?: boolean })[],
  options: { namespace?: string; portName?: string; name?: string; addressType?: string } = {},
): EndpointSliceLike {
  return {
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
  };
}

/** Reads a fixture from testdata/tls (e.g. `secure.crt`). */
export function readTlsFixture(file: string): string {
  return readFileSync(new URL(file, tlsDir), 'utf8');
}

/** A TLS Secret from the fixture pair `<fixture>.crt` / `<fixture>.key` (or literal PEM text). */
export function tlsSecret(
  name: string,
  fixture: string | { crt: string; key: string },
  namespace = 'default',
): SecretLike {
  const { crt, key } =
    typeof fixture === 'string'
      ? { crt: readTlsFixture(`${fixture}.crt`), key: readTlsFixture(`${fixture}.key`) }
      : fixture;
  return {
    metadata: { namespace, name },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(crt).toString('base64'), 'tls.key': Buffer.from(key).toString('base64') },
  };
}
