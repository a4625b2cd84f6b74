/**
 * kube-objects without the TLS Secret reader: no Node built-ins, so browser-embeddable packages
 * (class-resolution, checksum's pure entry) share the vocabulary (`@ingresskit/kube-objects/pure`).
 * The package's main entry adds `readTlsSecret` and `checkCertificateStrength`.
 */
export { checkDnsLabel, checkDnsSubdomain, checkPortName, isPortNumber } from './names.js';
export { mergeConditions, type Condition } from './conditions.js';
export type {
  ConfigMapLike,
  EndpointLike,
  EndpointPortLike,
  EndpointSliceLike,
  GatewayClassLike,
  IngressBackendLike,
  IngressClassLike,
  IngressLike,
  IngressPathLike,
  IngressRuleLike,
  IngressTlsLike,
  KubeObjectLike,
  ObjectMetaLike,
  SecretLike,
  ServiceBackendPortLike,
  ServiceLike,
  ServicePortLike,
  StringMapLike,
  Timestamp,
} from './types.js';
export { flatString } from './flat-string.js';
export {
  BUNDLE_VERSION_ANNOTATION,
  DEFAULT_INGRESS_CLASS_ANNOTATION,
  GATEWAY_API_GROUP,
  INGRESS_CLASS_ANNOTATION,
  INGRESS_NGINX_ANNOTATION_PREFIX,
  NETWORKING_API_GROUP,
  SERVICE_NAME_LABEL,
  TENGINE_API_GROUP,
  TLS_SECRET_TYPE,
} from './well-known-names.js';
export { namespacedKey, objectKey, splitObjectKey, type ObjectWithMetadata } from './object-key.js';
export {
  describeLabelKeyProblems,
  describeLabelValueProblems,
  matchesLabels,
  parseLabelSelector,
  SUBDOMAIN_GRAMMAR_MESSAGE,
  type LabelRequirement,
} from './label-selector.js';
export { SelectorSyntaxError } from './errors.js';
