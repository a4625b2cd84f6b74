export { checkDnsLabel, checkDnsSubdomain, checkPortName, isPortNumber } from './names.js';
export { checkCertificateStrength } from './certificate-strength.js';
export { mergeConditions, type Condition } from './conditions.js';
export {
  readTlsSecret,
  tlsSecretContentKey,
  type TlsCertificate,
  type TlsSecretResult,
} from './tls-secret.js';
export type {
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
  NETWORKING_API_GROUP,
  SERVICE_NAME_LABEL,
  TLS_SECRET_TYPE,
} from './well-known-names.js';
export { namespacedKey, objectKey, splitObjectKey, type ObjectWithMetadata } from './object-key.js';
