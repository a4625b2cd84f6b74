import { describe, expect, it } from 'vitest';
import {
  createServiceDefaults,
  defaultNamespace,
  defaultSecret,
  prepareNamespaceCreate,
  preparePodCreate,
} from './defaults.js';
import type { KubeObject } from './objects.js';

function service(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec };
}

describe('createServiceDefaults', () => {
  it('allocates cluster IPs in order and defaults type, protocol and targetPort', () => {
    const defaults = createServiceDefaults();
    const first = service({ ports: [{ port: 80 }] });
    const second = service({ ports: [{ port: 443, targetPort: 'https' }] });
    defaults.prepareCreate(first);
    defaults.prepareCreate(second);
    expect(first.spec).toEqual({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      clusterIP: '10.96.0.1',
      clusterIPs: ['10.96.0.1'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(second.spec).toMatchObject({
      clusterIP: '10.96.0.2',
      ports: [{ port: 443, targetPort: 'https' }],
    });
  });

  it('keeps headless services headless and allocates node ports for LoadBalancer services', () => {
    const defaults = createServiceDefaults();
    const headless = service({ clusterIP: 'None' });
    defaults.prepareCreate(headless);
    expect(headless.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
    const balanced = service({ type: 'LoadBalancer', ports: [{ port: 80 }] });
    defaults.prepareCreate(balanced);
    expect(balanced.spec).toMatchObject({
      externalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
      ports: [{ port: 80, nodePort: 30000 }],
    });
  });

  it('keeps allocated values when an update leaves them out', () => {
    const defaults = createServiceDefaults();
    const created = service({ type: 'NodePort', ports: [{ port: 80 }] });
    defaults.prepareCreate(created);
    const updated = service({ type: 'NodePort', ports: [{ port: 80 }] });
    defaults.prepareUpdate(updated, created);
    expect(updated.spec).toEqual(created.spec);
  });

  it('leaves ExternalName services without a cluster IP', () => {
    const external = service({ type: 'ExternalName', externalName: 'example.com' });
    createServiceDefaults().prepareCreate(external);
    expect(external.spec).toEqual({ type: 'ExternalName', externalName: 'example.com' });
  });
});

describe('defaultSecret', () => {
  it('folds stringData into base64 data and defaults the type', () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { a: 'YQ==' },
      stringData: { b: 'bee' },
    };
    defaultSecret(secret);
    expect(secret).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      type: 'Opaque',
      data: { a: 'YQ==', b: 'YmVl' },
    });
  });
});

describe('defaultNamespace', () => {
  it('labels the namespace with its name', () => {
    const namespace: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team', labels: { a: 'b' } },
    };
    defaultNamespace(namespace);
    expect(namespace.metadata.labels).toEqual({ a: 'b', 'kubernetes.io/metadata.name': 'team' });
  });
});

describe('prepareNamespaceCreate', () => {
  it('adds the kubernetes finalizer once, sets phase Active and labels the name', () => {
    const namespace: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team' },
      spec: { finalizers: ['kubernetes', 'other'] },
      status: { phase: 'Terminating' },
    };
    prepareNamespaceCreate(namespace);
    expect(namespace.spec).toEqual({ finalizers: ['kubernetes', 'other'] });
    expect(namespace.status).toEqual({ phase: 'Active' });
    expect(namespace.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team' });
  });

  it('adds the kubernetes finalizer when the spec has none', () => {
    const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } };
    prepareNamespaceCreate(namespace);
    expect(namespace.spec).toEqual({ finalizers: ['kubernetes'] });
  });
});

describe('preparePodCreate', () => {
  it('starts the pod in phase Pending whatever status the client sent', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      status: { phase: 'Running', podIP: '10.0.0.1' },
    };
    preparePodCreate(pod);
    expect(pod.status).toEqual({ phase: 'Pending' });
  });
});
