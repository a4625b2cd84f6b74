import { describe, expect, it } from 'vitest';
import { defineCrdResources, prepareCrdStatus, validateCrd } from './crd.js';
import type { KubeObject } from './objects.js';

const gatewayClassCrd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gatewayclasses.gateway.networking.k8s.io' },
  spec: {
    group: 'gateway.networking.k8s.io',
    scope: 'Cluster',
    names: {
      plural: 'gatewayclasses',
      singular: 'gatewayclass',
      kind: 'GatewayClass',
      listKind: 'GatewayClassList',
      shortNames: ['gc'],
      categories: ['gateway-api'],
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        selectableFields: [{ jsonPath: '.spec.controllerName' }],
      },
      { name: 'v1beta1', served: true, storage: false, subresources: { status: {} } },
      { name: 'v1alpha1', served: false, storage: false },
    ],
  },
};

describe('defineCrdResources', () => {
  it('defines one cluster-scoped resource per served version, sharing the storage version', () => {
    const definitions = defineCrdResources(gatewayClassCrd);
    expect(definitions.map((definition) => definition.version)).toEqual(['v1', 'v1beta1']);
    expect(definitions[0]).toMatchObject({
      group: 'gateway.networking.k8s.io',
      plural: 'gatewayclasses',
      kind: 'GatewayClass',
      namespaced: false,
      hasStatus: true,
      isCustom: true,
      generation: 'nonMetadata',
      storage: 'gatewayclasses.gateway.networking.k8s.io',
      storageApiVersion: 'gateway.networking.k8s.io/v1',
      shortNames: ['gc'],
    });
    expect(Object.keys(definitions[0]!.selectableFields)).toEqual([
      'metadata.name',
      'metadata.namespace',
      'spec.controllerName',
    ]);
    expect(Object.keys(definitions[1]!.selectableFields)).toEqual(['metadata.name', 'metadata.namespace']);
  });
});

describe('validateCrd', () => {
  it('accepts a well-formed CRD', () => {
    expect(validateCrd(gatewayClassCrd)).toEqual([]);
  });

  it('reports the name, scope and storage version rules', () => {
    const broken: KubeObject = {
      ...gatewayClassCrd,
      metadata: { name: 'wrong' },
      spec: {
        group: 'nodots',
        scope: 'Global',
        names: { plural: 'things', kind: 'Thing' },
        versions: [{ name: 'v1', served: true, storage: false }],
      },
    };
    expect(validateCrd(broken).map((error) => error.field)).toEqual([
      'spec.group',
      'metadata.name',
      'spec.scope',
      'spec.versions',
    ]);
  });
});

describe('prepareCrdStatus', () => {
  it('marks the CRD established and keeps earlier stored versions', () => {
    const crd = structuredClone(gatewayClassCrd);
    prepareCrdStatus(crd, '2024-01-01T00:00:00Z', {
      ...gatewayClassCrd,
      status: { storedVersions: ['v1beta1'] },
    });
    expect(crd.status).toMatchObject({
      conditions: [
        { type: 'NamesAccepted', status: 'True' },
        { type: 'Established', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' },
      ],
      acceptedNames: {
        plural: 'gatewayclasses',
        kind: 'GatewayClass',
        shortNames: ['gc'],
        categories: ['gateway-api'],
      },
      storedVersions: ['v1beta1', 'v1'],
    });
  });
});
