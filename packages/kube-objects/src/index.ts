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
  KubeObjectLike,
  ObjectMetaLike,
  SecretLike,
  ServiceLike,
  ServicePortLike,
  StringMapLike,
  Timestamp,
} from './types.js';
export { flatString } from './flat-string.js';
