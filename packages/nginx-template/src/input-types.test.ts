/**
 * The input types are structural: client-node models (Date timestamps, mutable arrays) and the
 * frozen plain JSON a store hands out (string timestamps, readonly everywhere) both type-check
 * without casts, and both build the same Configuration. The type checks happen in `tsc`; the
 * calls below would not compile if either shape were refused.
 */
import type { V1EndpointSlice, V1Ingress, V1Secret, V1Service } from '@kubernetes/client-node';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  buildConfiguration,
  type ConfigurationInput,
  type EndpointSliceLike,
  type IngressLike,
  type SecretLike,
  type ServiceLike,
} from './index.js';
import { A, readTlsFixture } from './testing/fixtures.js';

/** A client-node model as JSON, read-only all the way down (the shape @ingresskit/store hands out). */
type Plain<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? readonly Plain<U>[]
    : T extends object
      ? { readonly [K in keyof T]: Plain<T[K]> }
      : T;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function toPlain<T>(model: T): Plain<T> {
  return deepFreeze(JSON.parse(JSON.stringify(model)) as Plain<T>);
}

function createIngress(name: string, created: Date, annotations: Record<string, string> = {}): V1Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace: 'default', name, creationTimestamp: created, annotations, resourceVersion: '7' },
    spec: {
      ingressClassName: 'ingresskit',
      tls: [{ hosts: ['secure.example.com'], secretName: 'web-tls' }],
      rules: [
        {
          host: 'secure.example.com',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'web', port: { name: 'http' } } },
              },
            ],
          },
        },
      ],
    },
    status: { loadBalancer: {} },
  };
}

// Both claim secure.example.com/: the older one must win whether its timestamp is a Date or a string.
const ingresses: V1Ingress[] = [
  createIngress('newer', new Date('2024-03-01T00:00:00Z'), { [`${A}proxy-read-timeout`]: '90' }),
  createIngress('older', new Date('2024-01-01T00:00:00Z')),
];
const service: V1Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'default', name: 'web' },
  spec: { type: 'ClusterIP', clusterIP: '10.96.0.5', ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
};
const slice: V1EndpointSlice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'default', name: 'web-x1', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: [
    { addresses: ['10.0.0.2'], conditions: { ready: true } },
    { addresses: ['10.0.0.1'], conditions: { ready: true, terminating: false } },
  ],
};
const secret: V1Secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: 'default', name: 'web-tls' },
  type: 'kubernetes.io/tls',
  data: {
    'tls.crt': Buffer.from(readTlsFixture('secure.crt')).toString('base64'),
    'tls.key': Buffer.from(readTlsFixture('secure.key')).toString('base64'),
  },
};

describe('ConfigurationInput', () => {
  it('takes client-node models and frozen plain JSON alike, and builds the same model from both', () => {
    const typed: ConfigurationInput = {
      ingresses,
      services: [service],
      endpointSlices: [slice],
      secrets: [secret],
    };
    const plainIngresses: readonly Plain<V1Ingress>[] = deepFreeze(ingresses.map(toPlain));
    const plainServices: ReadonlyMap<string, Plain<V1Service>> = new Map([['default/web', toPlain(service)]]);
    const plainSlices: ReadonlyMap<string, readonly Plain<V1EndpointSlice>[]> = new Map([
      ['default/web', deepFreeze([toPlain(slice)])],
    ]);
    const plainSecrets: readonly Plain<V1Secret>[] = deepFreeze([toPlain(secret)]);

    const fromModels = buildConfiguration(typed);
    const fromPlain = buildConfiguration({
      ingresses: plainIngresses,
      services: plainServices,
      endpointSlices: plainSlices,
      secrets: plainSecrets,
    });

    expect(fromPlain).toEqual(fromModels);
    const [server] = fromPlain.configuration.servers;
    expect(server?.tls?.secret).toEqual({ namespace: 'default', name: 'web-tls' });
    expect(server?.locations.map((location) => location.source?.ingress.name)).toContain('older');
    expect(fromPlain.problems).toEqual([
      expect.objectContaining({
        object: { kind: 'Ingress', namespace: 'default', name: 'newer' },
        message: expect.stringContaining('the older Ingress default/older'),
      }),
    ]);
    expect(fromPlain.configuration.backends).toEqual([
      expect.objectContaining({
        name: 'default/web:80',
        endpoints: [
          { address: '10.0.0.1', port: 8080 },
          { address: '10.0.0.2', port: 8080 },
        ],
      }),
    ]);
  });

  it('names structural types that client-node models and their JSON form both satisfy', () => {
    expectTypeOf<V1Ingress>().toExtend<IngressLike>();
    expectTypeOf<Plain<V1Ingress>>().toExtend<IngressLike>();
    expectTypeOf<V1Service>().toExtend<ServiceLike>();
    expectTypeOf<Plain<V1Service>>().toExtend<ServiceLike>();
    expectTypeOf<V1EndpointSlice>().toExtend<EndpointSliceLike>();
    expectTypeOf<Plain<V1EndpointSlice>>().toExtend<EndpointSliceLike>();
    expectTypeOf<V1Secret>().toExtend<SecretLike>();
    expectTypeOf<Plain<V1Secret>>().toExtend<SecretLike>();
    // A manifest's Secret with stringData only, and an Ingress written with string timestamps.
    expectTypeOf({ metadata: { name: 'x' }, stringData: { 'tls.crt': '' } }).toExtend<SecretLike>();
    expectTypeOf({ metadata: { creationTimestamp: '2024-01-01T00:00:00Z' } }).toExtend<IngressLike>();
  });
});
