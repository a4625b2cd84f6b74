/**
 * The cluster objects the layer-4 resolvers read: as plain data, by key. This package never asks
 * the Kubernetes API; the caller's informer cache (or a directory of manifests) answers.
 */
import type { ConfigMapLike, EndpointSliceLike, IngressLike, ServiceLike } from '@ingresskit/kube-objects';

/** Objects by key (`namespace/name`) and EndpointSlices by Service key. */
export interface L4ClusterView {
  ingress(key: string): IngressLike | undefined;
  ingressKeys(): Iterable<string>;
  service(key: string): ServiceLike | undefined;
  endpointSlicesForService(serviceKey: string): readonly EndpointSliceLike[];
  configMap(key: string): ConfigMapLike | undefined;
}
