export { checkDnsLabel, checkDnsSubdomain, checkPortName, isPortNumber } from './names.js';
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
