/**
 * The checksum without Secrets' certificate parsing: no Node built-ins, so it runs in a browser
 * (`@ingresskit/checksum/pure`). The package's main entry adds `secretConfigId`.
 */
export { computeChecksum } from './compute.js';
export {
  defaultAnnotationPrefix,
  ingressConfigId,
  type ConfigIdMetadata,
  type ConfigIdOptions,
  type ConfigIdSkipReason,
  type ConfigIdSkipped,
  type IngressConfigIdResult,
  type IngressLike,
  type SecretConfigIdResult,
} from './config-id.js';
export { diffIds, type IdDiff } from './diff.js';
export {
  verifyChecksum,
  type ChecksumObjectLike,
  type ChecksumObjectRef,
  type ChecksumVerification,
} from './verify.js';
export {
  buildIngressCheckSum,
  buildSecretCheckSum,
  checksumApiGroup,
  checksumApiVersion,
  ingressCheckSumResource,
  secretCheckSumResource,
  type BuildChecksumOptions,
  type ChecksumObjectMetadata,
  type ChecksumSpec,
  type IngressCheckSum,
  type SecretCheckSum,
} from './checksum-object.js';
export {
  ingressCheckSumCrd,
  secretCheckSumCrd,
  type CrdSchemaProps,
  type CrdVersion,
  type CustomResourceDefinition,
} from './crds.js';
export { InvalidChecksumInputError } from './errors.js';
