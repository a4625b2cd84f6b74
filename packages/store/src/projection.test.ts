import { describe, expect, it } from 'vitest';
import { toStoredObject } from './index.js';

const metadata = {
  name: 'web',
  namespace: 'shop',
  uid: '5c1a1b0e-0f7e-4d5e-9a55-1f1f1f1f1f1f',
  resourceVersion: '7',
  generation: 3,
  creationTimestamp: '2024-01-01T00:00:00Z',
  labels: { app: 'web' },
  annotations: { team: 'shop' },
  ownerReferences: [{ kind: 'Deployment', name: 'web' }],
  finalizers: ['example.com/keep'],
};

/** A Service with every field a translator reads (kube-objects' ServiceLike) and more. */
const service = {
  metadata,
  spec: {
    type: 'NodePort',
    ports: [
      { name: 'http', port: 80, protocol: 'TCP', targetPort: 'web', nodePort: 30080, appProtocol: 'http' },
    ],
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    selector: { app: 'web' },
    externalIPs: ['192.0.2.1'],
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    sessionAffinity: 'None',
    internalTrafficPolicy: 'Cluster',
    externalTrafficPolicy: 'Cluster',
  },
  status: { loadBalancer: { ingress: [{ ip: '192.0.2.2' }] } },
};

/** An EndpointSlice as the EndpointSlice controller writes it. */
const slice = {
  metadata: {
    ...metadata,
    name: 'web-x1',
    labels: {
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      app: 'web',
    },
    annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2024-01-01T00:00:00Z' },
  },
  addressType: 'IPv4',
  endpoints: [
    {
      addresses: ['10.0.0.1'],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: 'node-1',
      zone: 'a',
      targetRef: { kind: 'Pod', name: 'web-1', namespace: 'shop', uid: 'u' },
      hints: { forZones: [{ name: 'a' }] },
    },
    { addresses: ['10.0.0.2'], conditions: { ready: false, serving: true, terminating: true } },
  ],
  ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }],
};

describe('toStoredObject (projection)', () => {
  it('keeps of a Service what routes to it, its selector, publish addresses and status', () => {
    expect(toStoredObject(service, 'Service')).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'web',
        namespace: 'shop',
        resourceVersion: '7',
        labels: { app: 'web' },
        annotations: { team: 'shop' },
      },
      spec: {
        type: 'NodePort',
        ports: service.spec.ports,
        clusterIP: '10.96.0.10',
        selector: { app: 'web' },
        externalIPs: ['192.0.2.1'],
      },
      status: service.status,
    });
  });

  it('keeps an ExternalName Service routable', () => {
    const stored = toStoredObject(
      { metadata, spec: { type: 'ExternalName', externalName: 'db.example.com', ports: [{ port: 5432 }] } },
      'Service',
    );
    expect((stored as { spec?: unknown } | undefined)?.spec).toEqual({
      type: 'ExternalName',
      externalName: 'db.example.com',
      ports: [{ port: 5432 }],
    });
  });

  it("keeps of an EndpointSlice its Service's name, address type, ports, addresses and conditions", () => {
    expect(toStoredObject(slice, 'EndpointSlice')).toEqual({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: 'web-x1',
        namespace: 'shop',
        resourceVersion: '7',
        labels: { 'kubernetes.io/service-name': 'web' },
      },
      addressType: 'IPv4',
      endpoints: [
        { addresses: ['10.0.0.1'], conditions: { ready: true, serving: true, terminating: false } },
        { addresses: ['10.0.0.2'], conditions: { ready: false, serving: true, terminating: true } },
      ],
      ports: slice.ports,
    });
  });

  it('shares equal endpoint conditions between objects when they are frozen, not otherwise', () => {
    const conditionsOf = (stored: unknown) =>
      (stored as { endpoints: { conditions: object }[] }).endpoints[0]!.conditions;
    const first = toStoredObject(slice, 'EndpointSlice');
    const second = toStoredObject(
      { ...slice, metadata: { ...slice.metadata, name: 'web-x2' } },
      'EndpointSlice',
    );
    expect(conditionsOf(first)).toBe(conditionsOf(second));
    expect(Object.isFrozen(conditionsOf(first))).toBe(true);
    const thawed = toStoredObject(slice, 'EndpointSlice', { freeze: false });
    expect(conditionsOf(thawed)).not.toBe(conditionsOf(first));
    expect(conditionsOf(thawed)).toEqual(conditionsOf(first));
  });

  it('keeps every field with keepAllFields', () => {
    const stored = toStoredObject(service, 'Service', { keepAllFields: true });
    expect(stored).toEqual({ apiVersion: 'v1', kind: 'Service', ...service });
    expect(toStoredObject(slice, 'EndpointSlice', { keepAllFields: true })).toEqual({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      ...slice,
    });
  });

  it('leaves other kinds whole: an Ingress keeps its uid, timestamps and status', () => {
    const ingress = {
      metadata,
      spec: { ingressClassName: 'nginx', rules: [{ host: 'shop.example.com' }] },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.2' }] } },
    };
    expect(toStoredObject(ingress, 'Ingress')).toEqual({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      ...ingress,
    });
  });

  it('does not change its input', () => {
    const copy = structuredClone(slice);
    toStoredObject(slice, 'EndpointSlice');
    expect(slice).toEqual(copy);
  });
});
