export { countIngressPaths, translateIngress } from './translate-ingress.js';
export { isReferencedObjectProblem, tlsSecretNameOf } from './translate-tls.js';
export {
  createIngressTranslator,
  type IngressTranslator,
  type IngressTranslatorConfig,
} from './ingress-translator.js';
export { backendIdOf, FIRST_SERVICE_PORT, parseBackendId } from './backend-reference.js';
export {
  BACKEND_PROBLEM_CODES,
  resolveServiceBackend,
  type BackendProblemCode,
  type ServiceBackendResolution,
} from './service-backend.js';
// Spelled once in kube-objects; re-exported because it was this package's public name.
export { SERVICE_NAME_LABEL } from '@ingresskit/kube-objects';
export { pinExternalName, type NameResolution } from './external-name.js';
// The backend address policy and the address grammar live in route-model (HTTPRoute backends and
// layer-4 services use them too); re-exported because they were this package's public names.
export {
  canonicalAddress,
  CLOUD_METADATA_NETWORKS,
  DEFAULT_BACKEND_ADDRESS_POLICY,
  embeddedIpv4,
  findMetadataNetwork,
  formatIpAddress,
  isInNetwork,
  parseIpAddress,
  parseIpNetwork,
  refusedBackendAddress,
  type BackendAddressPolicy,
  type IpAddress,
  type IpNetwork,
  type MetadataNetwork,
} from '@ingresskit/route-model';
export {
  createDefaultBackendContribution,
  createDefaultBackendRoute,
  createDefaultCertificateContribution,
} from './default-backend.js';
export { parseAnnotations } from './annotations.js';
export {
  DEFAULT_ANNOTATION_PREFIX,
  type AnnotationDefaults,
  type AnnotationParseResult,
  type AnnotationProblem,
  type IngressAnnotations,
} from './annotation-types.js';
export {
  ANNOTATION_DEFAULT_KEYS,
  checkAnnotationValue,
  parseAnnotationDefault,
} from './annotation-defaults.js';
export { SUPPORTED_ANNOTATIONS } from './annotation-parsers.js';
export {
  isSnippetDirective,
  SNIPPET_DIRECTIVES,
  translateSnippet,
  type SnippetDirectiveName,
} from './snippet-directives.js';
export type { SnippetHeaders } from './annotation-parts.js';
export {
  findIngressNginxAnnotation,
  INGRESS_NGINX_ANNOTATIONS,
  refusalOf,
  type AnnotationRefusal,
  type IngressNginxAnnotation,
} from './ingress-nginx-annotations.js';
export {
  DEFAULT_TRANSLATION,
  INGRESS_NGINX_CONFIGMAP_KEYS,
  parseControllerConfigMap,
  type ConfigMapNginxSettings,
  type SslProtocol,
  SSL_PROTOCOLS,
  type ControllerConfigMapParse,
  type ControllerConfigMapSettings,
  type TranslationDefaults,
} from './ingress-nginx-configmap.js';
export type { ConfigMapProblem, IngressNginxConfigKey } from './configmap-key.js';
export { DEFAULT_HSTS } from './route-policy.js';
export {
  INGRESS_NGINX_LOG_FORMAT,
  parseAccessLogFormat,
  type AccessLogField,
  type AccessLogPart,
} from './access-log-format.js';
export type { ConfigMapAccessLog } from './access-log-keys.js';
export type { ConfigMapHttpSettings } from './configmap-nginx-http-keys.js';
export {
  DEFAULT_INGRESS_CHECKS,
  checkIngressAnnotations,
  type IngressChecks,
  type IngressCheckFailure,
} from './ingress-checks.js';
export {
  ANNOTATION_RISKS,
  annotationRiskOf,
  DEFAULT_ANNOTATIONS_RISK_LEVEL,
  type AnnotationRisk,
} from './annotation-risk.js';
export { INGRESS_NGINX_STREAM_LOG_FORMAT, parseStreamLogFormat } from './stream-log-format.js';
export { parseGoDuration } from './go-duration.js';
export {
  checkDhParamPem,
  checkEcdhCurve,
  DH_PARAM_SECRET_KEY,
  type ConnectionKeySettings,
  type SecretData,
  type SecretDataLookup,
} from './configmap-connection-keys.js';
export {
  createCertificateCache,
  parseTlsSecret,
  type CertificateCache,
  type CertificateCacheOptions,
  type SecretContent,
  type TlsSecretResult,
} from './certificates.js';
export { InvalidServiceReferenceError } from './errors.js';
export type {
  GlobalExternalAuth,
  GlobalRateLimitConfig,
  IngressReferences,
  IngressTranslation,
  IngressTranslationConfig,
  ServiceReference,
} from './types.js';
// The objects translateIngress reads are kube-objects' shapes, re-exported for its callers.
export type {
  ConfigMapLike,
  EndpointLike,
  EndpointPortLike,
  EndpointSliceLike,
  IngressBackendLike,
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
} from '@ingresskit/kube-objects';
export {
  INGRESS_PROBLEM_CODES,
  type AnnotationProblemCode,
  type IngressProblemCode,
  type IngressProblemLog,
} from './problem-codes.js';
