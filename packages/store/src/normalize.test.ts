import { describe, expect, it } from 'vitest';
import { normalizeObject, toStoredObject } from './index.js';

describe('normalizeObject', () => {
  it('gives listed (Date) and watched (string) objects the same shape', () => {
    const listed = { metadata: { name: 'a', creationTimestamp: new Date('2024-01-01T00:00:00Z') } };
    const watched = { metadata: { name: 'a', creationTimestamp: '2024-01-01T00:00:00Z' } };
    expect(normalizeObject(listed)).toEqual(watched);
    expect(normalizeObject(watched)).toEqual(watched);
  });

  it('does not change its input', () => {
    const date = new Date('2024-01-01T00:00:00Z');
    const listed = { metadata: { creationTimestamp: date } };
    normalizeObject(listed);
    expect(listed.metadata.creationTimestamp).toBe(date);
  });
});

describe('toStoredObject', () => {
  it('gives a typed list item and a watched raw object the same stored shape', () => {
    const listed = {
      metadata: {
        name: 'web',
        namespace: 'shop',
        resourceVersion: '7',
        creationTimestamp: new Date('2024-01-01T00:00:00Z'),
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: { ports: [{ port: 80 }] },
    };
    const watched = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'web',
        namespace: 'shop',
        resourceVersion: '7',
        creationTimestamp: '2024-01-01T00:00:00Z',
      },
      spec: { ports: [{ port: 80 }] },
    };
    const fromList = toStoredObject(listed, 'Service', { keepAllFields: true });
    expect(fromList).toEqual(toStoredObject(watched, 'Service', { keepAllFields: true }));
    expect(fromList).toEqual(watched);
    expect(Object.isFrozen(fromList?.metadata)).toBe(true);
    expect(listed.metadata.managedFields).toHaveLength(1);
  });

  it("drops kubectl's last-applied-configuration, keeps other annotations, and shares apiVersion strings", () => {
    const annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1","kind":"Service"}',
      team: 'shop',
    };
    const raw = { metadata: { name: 'web', namespace: 'shop', resourceVersion: '1', annotations } };
    const stored = toStoredObject(raw, 'Ingress');
    expect(stored?.metadata.annotations).toEqual({ team: 'shop' });
    expect(raw.metadata.annotations).toBe(annotations);
    expect(
      toStoredObject(raw, 'Ingress', { keepLastAppliedConfiguration: true })?.metadata.annotations,
    ).toEqual(annotations);
    expect(stored?.apiVersion).toBe('networking.k8s.io/v1');
  });

  it('keeps the values of enumeration fields (stored once for all objects) and freezes them', () => {
    const raw = {
      metadata: { name: 'web', namespace: 'shop', resourceVersion: '1' },
      spec: { type: 'ClusterIP', ipFamilies: ['IPv4'], ports: [{ protocol: 'TCP', port: 80 }] },
    };
    const stored = toStoredObject(raw, 'Service', { keepAllFields: true }) as unknown as {
      spec: typeof raw.spec;
    };
    expect(stored.spec).toEqual(raw.spec);
    expect(Object.isFrozen(stored.spec.ipFamilies)).toBe(true);
    expect(Object.isFrozen(stored.spec.ports[0])).toBe(true);
    expect(toStoredObject(raw, 'Service', { freeze: false })).not.toSatisfy(Object.isFrozen);
  });

  it('keeps one frozen copy of equal ports and conditions when objects are frozen', () => {
    const ingressWith = (name: string, port: object) => ({
      metadata: { name, namespace: 'shop', resourceVersion: '1' },
      spec: { rules: [{ http: { paths: [{ path: '/', backend: { service: { name, port } } }] } }] },
    });
    const portOf = (stored: unknown) =>
      (stored as { spec: { rules: { http: { paths: { backend: { service: { port: object } } }[] } }[] } })
        .spec.rules[0]!.http.paths[0]!.backend.service.port;
    const first = portOf(toStoredObject(ingressWith('a', { number: 80 }), 'Ingress'));
    const second = portOf(toStoredObject(ingressWith('b', { number: 80 }), 'Ingress'));
    expect(second).toBe(first);
    expect(first).toEqual({ number: 80 });
    expect(Object.isFrozen(first)).toBe(true);
    expect(portOf(toStoredObject(ingressWith('c', { number: 81 }), 'Ingress'))).toEqual({ number: 81 });
    const thawed = portOf(toStoredObject(ingressWith('d', { number: 80 }), 'Ingress', { freeze: false }));
    expect(thawed).not.toBe(first);
    const slicePorts = (name: string) =>
      (
        toStoredObject(
          {
            metadata: { name, namespace: 'shop', resourceVersion: '1' },
            ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
          },
          'EndpointSlice',
        ) as unknown as { ports: object }
      ).ports;
    expect(slicePorts('x')).toBe(slicePorts('y'));
  });

  it("keeps one frozen copy of an Ingress's equal path backends", () => {
    const backend = { service: { name: 'web', port: { name: 'http' } } };
    const stored = toStoredObject(
      {
        metadata: { name: 'shop', namespace: 'shop', resourceVersion: '1' },
        spec: {
          rules: [
            { http: { paths: [{ path: '/', backend }] } },
            {
              http: {
                paths: [
                  { path: '/a', backend: structuredClone(backend) },
                  { path: '/b', backend: { service: { name: 'api', port: { name: 'http' } } } },
                ],
              },
            },
          ],
        },
      },
      'Ingress',
    ) as unknown as { spec: { rules: { http: { paths: { backend: object }[] } }[] } };
    const [first, second, other] = stored.spec.rules.flatMap((rule) =>
      rule.http.paths.map((path) => path.backend),
    );
    expect(second).toBe(first);
    expect(first).toEqual(backend);
    expect(Object.isFrozen(first)).toBe(true);
    expect(other).toEqual({ service: { name: 'api', port: { name: 'http' } } });
  });

  it('keeps only the identity, names, versions and conditions of a CRD', () => {
    const crd = toStoredObject(
      {
        metadata: {
          name: 'gateways.gateway.networking.k8s.io',
          annotations: { 'gateway.networking.k8s.io/bundle-version': 'v1.6.1' },
        },
        spec: {
          group: 'gateway.networking.k8s.io',
          scope: 'Namespaced',
          names: { plural: 'gateways', kind: 'Gateway' },
          versions: [
            { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
          ],
        },
        status: {
          conditions: [{ type: 'Established', status: 'True' }],
          acceptedNames: { plural: 'gateways' },
        },
      },
      'CustomResourceDefinition',
    );
    expect(crd).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {
        name: 'gateways.gateway.networking.k8s.io',
        resourceVersion: '',
        annotations: { 'gateway.networking.k8s.io/bundle-version': 'v1.6.1' },
      },
      spec: {
        group: 'gateway.networking.k8s.io',
        scope: 'Namespaced',
        names: { plural: 'gateways', kind: 'Gateway' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
      status: { conditions: [{ type: 'Established', status: 'True' }] },
    });
  });

  it('returns undefined for an object without a name', () => {
    expect(toStoredObject({ metadata: {} }, 'ConfigMap')).toBeUndefined();
    expect(toStoredObject('nonsense', 'ConfigMap')).toBeUndefined();
  });
});
