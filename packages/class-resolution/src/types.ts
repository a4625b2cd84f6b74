/**
 * The objects class resolution reads: kube-objects' shapes (client-node models and plain JSON both
 * fit), re-exported because they were this package's public names.
 */
export type {
  GatewayClassLike,
  IngressClassLike,
  IngressLike,
  ObjectMetaLike,
  Timestamp,
} from '@ingresskit/kube-objects/pure';
