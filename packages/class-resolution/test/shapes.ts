/**
 * Test fixtures in the two shapes callers hand us: @kubernetes/client-node models (Date timestamps,
 * as an informer's list returns them) and plain JSON (string timestamps, as its watch events carry them).
 * Every fixture is deep-frozen, so any test that resolves one also proves the code never mutates input.
 */
import {
  V1Ingress,
  V1IngressClass,
  V1IngressClassSpec,
  V1IngressSpec,
  V1ObjectMeta,
} from '@kubernetes/client-node';
import type { IngressClassLike, IngressLike } from '../src/index.js';

/** A shape-neutral IngressClass. `created` is an RFC 3339 string (typed fixtures get `new Date(created)`). */
export interface ClassFixture {
  name: string;
  controller?: string;
  /** The raw value of ingressclass.kubernetes.io/is-default-class, when the annotation is present. */
  isDefault?: string;
  created?: string;
}

/** A shape-neutral Ingress. `className: null` is how JSON spells "unset". */
export interface IngressFixture {
  name?: string;
  namespace?: string;
  className?: string | null;
  /** The raw value of kubernetes.io/ingress.class, when the annotation is present. */
  annotation?: string;
}

/** One way of building inputs. */
export interface Shape {
  readonly name: 'client-node' | 'json';
  readonly ingress: (fixture: IngressFixture) => IngressLike;
  readonly ingressClass: (fixture: ClassFixture) => IngressClassLike;
}

export const ours = 'ingresskit.dev/ingress-controller';
export const traefik = 'traefik.io/ingress-controller';
export const ingressNginx = 'k8s.io/ingress-nginx';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function ingressAnnotations(fixture: IngressFixture): Record<string, string> | undefined {
  return fixture.annotation === undefined ? undefined : { 'kubernetes.io/ingress.class': fixture.annotation };
}

function classAnnotations(fixture: ClassFixture): Record<string, string> | undefined {
  return fixture.isDefault === undefined
    ? undefined
    : { 'ingressclass.kubernetes.io/is-default-class': fixture.isDefault };
}

export const jsonShape: Shape = {
  name: 'json',
  ingress(fixture) {
    return deepFreeze({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: {
        name: fixture.name ?? 'web',
        namespace: fixture.namespace ?? 'shop',
        creationTimestamp: '2025-01-01T00:00:00Z',
        ...(fixture.annotation === undefined ? {} : { annotations: ingressAnnotations(fixture) }),
      },
      spec: {
        ...(fixture.className === undefined ? {} : { ingressClassName: fixture.className }),
        rules: [{ host: 'shop.example.com' }],
      },
    });
  },
  ingressClass(fixture) {
    return deepFreeze({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: {
        name: fixture.name,
        ...(fixture.created === undefined ? {} : { creationTimestamp: fixture.created }),
        ...(fixture.isDefault === undefined ? {} : { annotations: classAnnotations(fixture) }),
      },
      spec: fixture.controller === undefined ? {} : { controller: fixture.controller },
    });
  },
};

export const clientNodeShape: Shape = {
  name: 'client-node',
  ingress(fixture) {
    const metadata = new V1ObjectMeta();
    metadata.name = fixture.name ?? 'web';
    metadata.namespace = fixture.namespace ?? 'shop';
    metadata.creationTimestamp = new Date('2025-01-01T00:00:00Z');
    metadata.annotations = ingressAnnotations(fixture);
    const spec = new V1IngressSpec();
    // The model types the field as `string | undefined`; an unset field is simply absent.
    if (fixture.className !== undefined && fixture.className !== null)
      spec.ingressClassName = fixture.className;
    const ingress = new V1Ingress();
    ingress.apiVersion = 'networking.k8s.io/v1';
    ingress.kind = 'Ingress';
    ingress.metadata = metadata;
    ingress.spec = spec;
    return deepFreeze(ingress);
  },
  ingressClass(fixture) {
    const metadata = new V1ObjectMeta();
    metadata.name = fixture.name;
    if (fixture.created !== undefined) metadata.creationTimestamp = new Date(fixture.created);
    metadata.annotations = classAnnotations(fixture);
    const spec = new V1IngressClassSpec();
    spec.controller = fixture.controller;
    const ingressClass = new V1IngressClass();
    ingressClass.apiVersion = 'networking.k8s.io/v1';
    ingressClass.kind = 'IngressClass';
    ingressClass.metadata = metadata;
    ingressClass.spec = spec;
    return deepFreeze(ingressClass);
  },
};

/** Both shapes, for `describe.each`. */
export const shapes: readonly Shape[] = [clientNodeShape, jsonShape];
