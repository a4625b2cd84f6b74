/**
 * What the route table reads of the cluster to resolve backends: Services and their
 * EndpointSlices by Service key (`namespace/name`), in kube-objects' shapes. A store snapshot or a
 * directory of manifests gives it; nothing here asks the API server.
 */
import type { EndpointSliceLike, ServiceLike } from '@ingresskit/kube-objects';

/** Services and their EndpointSlices by Service key (`namespace/name`). */
export interface BackendView {
  /** The Service `namespace/name`; undefined while it does not exist. */
  service(key: string): ServiceLike | undefined;
  /** The EndpointSlices of the Service `namespace/name`; empty when none. */
  endpointSlicesForService(serviceKey: string): readonly EndpointSliceLike[];
}
