import { describe, expect, it } from 'vitest';
import { admitDefaultIngressClass } from './admission.js';
import type { KubeObject } from './objects.js';

function ingressClass(name: string, created: string, isDefault: boolean): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: {
      name,
      creationTimestamp: created,
      annotations: isDefault ? { 'ingressclass.kubernetes.io/is-default-class': 'true' } : {},
    },
  };
}

const ingress: KubeObject = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'i' },
  spec: {},
};

describe('admitDefaultIngressClass', () => {
  it('sets the newest default class, breaking ties by the lower name', () => {
    const classes = [
      ingressClass('old', '2024-01-01T00:00:00Z', true),
      ingressClass('b', '2024-02-01T00:00:00Z', true),
      ingressClass('a', '2024-02-01T00:00:00Z', true),
      ingressClass('newest-not-default', '2024-03-01T00:00:00Z', false),
    ];
    expect(admitDefaultIngressClass(ingress, classes).spec).toEqual({ ingressClassName: 'a' });
  });

  it('leaves an Ingress alone when it names a class in the spec or the legacy annotation', () => {
    const classes = [ingressClass('d', '2024-01-01T00:00:00Z', true)];
    const named = { ...ingress, spec: { ingressClassName: 'x' } };
    expect(admitDefaultIngressClass(named, classes)).toBe(named);
    const annotated = {
      ...ingress,
      metadata: { name: 'i', annotations: { 'kubernetes.io/ingress.class': 'x' } },
    };
    expect(admitDefaultIngressClass(annotated, classes)).toBe(annotated);
  });

  it('changes nothing when no class is marked default', () => {
    expect(admitDefaultIngressClass(ingress, [ingressClass('c', '2024-01-01T00:00:00Z', false)])).toBe(
      ingress,
    );
  });
});
