/**
 * What the route table and its sources read of the cluster, by object key (`namespace/name`) and
 * in kube-objects' shapes: Services and their EndpointSlices to resolve backends, Secrets and
 * ConfigMaps that sources' objects refer to. A store snapshot or a directory of manifests gives
 * it; nothing here asks the API server.
 */
import type { ConfigMapLike, EndpointSliceLike, SecretLike, ServiceLike } from '@ingresskit/kube-objects';

/** Services and their EndpointSlices by Service key (`namespace/name`). */
export interface BackendView {
  /** The Service `namespace/name`; undefined while it does not exist. */
  service(key: string): ServiceLike | undefined;
  /** The EndpointSlices of the Service `namespace/name`; empty when none. */
  endpointSlicesForService(serviceKey: string): readonly EndpointSliceLike[];
}

/** What a contribution source typically reads besides backends: the Secrets and ConfigMaps its objects name. */
export interface SourceView extends BackendView {
  /** The Secret `namespace/name`; undefined while it does not exist (or is not held). */
  secret(key: string): SecretLike | undefined;
  /** The ConfigMap `namespace/name`; undefined while it does not exist (or is not held). */
  configMap(key: string): ConfigMapLike | undefined;
}
