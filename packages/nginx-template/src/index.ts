export { buildConfiguration, CATCH_ALL_HOST } from './build-configuration.js';
export { renderNginxConf, type RenderOptions } from './render.js';
export { diffConfigurations, type ConfigurationDiff } from './diff-configurations.js';
export {
  backendsPayload,
  BACKENDS_ENDPOINT_PATH,
  STATUS_ENDPOINT_PATH,
  type BackendsPayload,
} from './backends-payload.js';
export { createCertificateCache, type CertificateCache } from './certificates.js';
export { luaDirectory, luaFiles, type LuaFile } from './lua-files.js';
export { DEFAULT_ANNOTATION_PREFIX } from './annotations.js';
export { quoteNginxLiteral, quoteNginxReplacement, quoteNginxString } from './quote.js';
export { InvalidRenderOptionsError, UnsafeValueError } from './errors.js';
export type {
  Backend,
  BackendProtocol,
  BuildOptions,
  BuildResult,
  Certificate,
  Configuration,
  ConfigurationInput,
  Endpoint,
  EndpointLike,
  EndpointPortLike,
  EndpointSliceLike,
  IngressBackendLike,
  IngressLike,
  IngressPathLike,
  IngressRuleLike,
  IngressTlsLike,
  KubeObjectLike,
  Location,
  LocationMatch,
  LocationTarget,
  NamespacedName,
  ObjectCollection,
  ObjectMetaLike,
  ObjectReference,
  PathType,
  Problem,
  ProxySettings,
  SecretLike,
  Server,
  ServerTls,
  ServiceBackendPortLike,
  ServiceLike,
  ServicePortLike,
  ServiceReference,
  StringMapLike,
  Timestamp,
} from './types.js';
