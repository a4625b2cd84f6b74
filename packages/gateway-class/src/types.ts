// Plain-JSON shapes of the objects this package reads. They are structural and loose on purpose:
// objects from the store (normalized JSON), from a raw GET, or from client-node models all fit.

import type { Condition, GatewayClassLike, ObjectMetaLike } from '@ingresskit/kube-objects';

/** A `metav1.Condition` as it appears in GatewayClass status. */
export type { Condition };

/** Metadata fields this package reads or writes: kube-objects' ObjectMetaLike. */
export type ObjectMeta = ObjectMetaLike;

/** `spec.parametersRef` of a GatewayClass (Gateway API `ParametersReference`). */
export interface ParametersReference {
  /** API group of the referent; `""` is the core group. */
  group: string;
  kind: string;
  name: string;
  /** Required for namespaced referents, forbidden for cluster-scoped ones. */
  namespace?: string;
}

/** One entry of `status.supportedFeatures`. */
export interface SupportedFeature {
  name: string;
}

/**
 * A `gateway.networking.k8s.io/v1` GatewayClass: kube-objects' GatewayClassLike with the spec and
 * status this package reads and writes spelled out.
 */
export interface GatewayClass extends GatewayClassLike {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    controllerName?: string;
    parametersRef?: ParametersReference;
    description?: string;
  };
  status?: {
    conditions?: readonly Condition[];
    supportedFeatures?: readonly SupportedFeature[];
  };
}

/** The part of a Gateway this package reads: which class it uses. */
export interface Gateway {
  metadata?: ObjectMeta;
  spec?: { gatewayClassName?: string };
}

/** The part of a CustomResourceDefinition this package reads: its group and annotations. */
export interface CustomResourceDefinition {
  metadata?: ObjectMeta;
  spec?: { group?: string };
}

/**
 * The least a cached GatewayClass must show to route change events: its name, controllerName and
 * parametersRef (checked at run time, so loosely typed caches fit without casts): kube-objects'
 * GatewayClassLike.
 */
export type GatewayClassSummary = GatewayClassLike;
