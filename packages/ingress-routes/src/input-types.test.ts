/**
 * The input types are structural: client-node models (Date timestamps, mutable arrays) and the
 * frozen plain JSON a store hands out (string timestamps, readonly everywhere) both type-check
 * without casts, and both translate to the same contribution. The type checks happen in `tsc`;
 * the calls below would not compile if either shape were refused.
 */
import type { V1EndpointSlice, V1Ingress, V1Secret, V1Service } from '@kubernetes/client-node';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  resolveServiceBackend,
  translateIngress,
  type EndpointSliceLike,
  type IngressLike,
  type IngressReferences,
  type SecretLike,
  type ServiceLike,
} from './index.js';
import { assemble } from './testing/assemble.js';
import { A, deepFreeze, readTlsFixture } from './testing/fixtures.js';

/** A client-node model as JSON, read-only all the way down (the shape @ingresskit/store hands out). */
type Plain<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? readonly Plain<U>[]
    : T extends object
      ? { readonly [K in keyof T]: Plain<T[K]> }
      : T;

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

function referencesTo(found: SecretLike): IngressReferences {
  return { secret: (namespace, name) => (namespace === 'default' && name === 'web-tls' ? found : undefined) };
}

describe('IngressLike', () => {
  it('takes client-node models and frozen plain JSON alike, and translates both the same', () => {
    const fromModels = ingresses.map((object) => translateIngress(object, referencesTo(secret)));
    const plainIngresses: readonly Plain<V1Ingress>[] = deepFreeze(ingresses.map(toPlain));
    const plainSecret: Plain<V1Secret> = toPlain(secret);
    const fromPlain = plainIngresses.map((object) => translateIngress(object, referencesTo(plainSecret)));

    expect(fromPlain).toEqual(fromModels);
    const table = assemble(fromPlain);
    const [virtualHost] = table.table().virtualHosts;
    expect(virtualHost?.routes.map((route) => route.origin.name)).toEqual(['older']);
    expect(table.table().tls).toEqual([
      expect.objectContaining({ origin: expect.objectContaining({ name: 'older' }) }),
    ]);
    expect(table.notes()).toEqual([
      expect.objectContaining({
        type: 'route-shadowed',
        source: { kind: 'Ingress', namespace: 'default', name: 'newer' },
      }),
    ]);
    expect(fromPlain.every((translation) => translation.problems.length === 0)).toBe(true);
  });

  it('resolves a backend from a client-node Service and its slices as from plain JSON', () => {
    const reference = { namespace: 'default', name: 'web', port: 'http' };
    const fromModels = resolveServiceBackend(reference, service, [slice]);
    expect(resolveServiceBackend(reference, toPlain(service), [toPlain(slice)])).toEqual(fromModels);
    expect(fromModels).toEqual({
      backend: {
        id: 'default/web:http',
        endpoints: [
          { address: '10.0.0.1', port: 8080 },
          { address: '10.0.0.2', port: 8080 },
        ],
      },
    });
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
