export {
  buildConfiguration,
  computeConfigurationHash,
  createConfiguration,
  type BuildResult,
  type Configuration,
  type ConfiguredListener,
} from './build-configuration.js';
export { renderNginxConf, inPlaceMaxBodyBytes } from './render.js';
export { listConfigurationFiles } from './backend-tls.js';
export { listHttpSettingsFiles, type HttpOptions, type HttpSettings } from './http-settings.js';
export { listSettingsFiles, type DhParamSettings } from './connection-settings.js';
export { diffConfigurations, type ConfigurationDiff } from './diff-configurations.js';
export { createProfile, DEFAULT_PROFILE, profileOf, type Profile } from './profiles.js';
export {
  compileDataPlaneUpdate,
  compileVirtualHost,
  createDataPlaneUpdate,
  backendKey,
  certificateKey,
  hostKey,
  serializeDataEntry,
  tlsKey,
  DATA_ENDPOINT_PATH,
  DIGEST_ENDPOINT_PATH,
  STATUS_ENDPOINT_PATH,
  type DataPlaneAccepted,
  type DataPlaneDigest,
  type DataPlaneRejection,
  type DataPlaneStatus,
  type DataPlaneUpdateOptions,
} from './data-plane-update.js';
export { compileRoute, type CompiledRoute, type RouteIssue } from './compile-route.js';
export type {
  ActionEntry,
  AffinityEntry,
  AuthEntry,
  BackendEntry,
  CanaryEntry,
  CertificateEntry,
  ClientCertEntry,
  ConditionEntry,
  DataEntry,
  DataPlaneUpdate,
  HeadersEntry,
  HostEntry,
  LimitsEntry,
  ListenersEntry,
  MemberEntry,
  PathChangeEntry,
  PolicyEntry,
  RouteEntry,
  TlsEntry,
} from './data-entries.js';
export {
  parseRequestMetrics,
  REQUEST_HISTOGRAMS,
  REQUEST_METRICS_ENDPOINT_PATH,
  type HistogramCounts,
  type RequestHistogramKey,
  type RequestMetrics,
  type RequestSeries,
  type UncountedReason,
  type UncountedRequests,
} from './request-metrics.js';
export {
  BUCKET_KIND_OF,
  checkBucketBounds,
  DEFAULT_REQUEST_BUCKETS,
  DEFAULT_SERIES_PER_NAMESPACE,
  type RequestBuckets,
  type RequestCountingOptions,
} from './request-counting.js';
export { NGINX_STATUS_ENDPOINT_PATH, parseNginxStatus, type NginxStatus } from './nginx-status.js';
export { parseCidr, type ParsedCidr } from './cidr.js';
export {
  createSelfSignedCertificate,
  type SelfSignedCertificate,
  type SelfSignedCertificateOptions,
} from './self-signed-certificate.js';
export {
  authSocketPathOf,
  resolveSettings,
  type GzipSettings,
  type KeepaliveSettings,
  type RealIpSettings,
  type RenderOptions,
  type Settings,
  type StreamService,
} from './settings.js';
export type { AccessLogField, AccessLogOptions, AccessLogPart, AccessLogSettings } from './access-log.js';
export type { StreamAccessLogOptions, StreamAccessLogSettings } from './stream-access-log.js';
export type { StreamProxyOptions, StreamServiceSource } from './stream-proxy.js';
export { luaDirectory, luaFiles, type LuaFile } from './lua-files.js';
export { quoteNginxLiteral, quoteNginxString } from './quote.js';
export { InvalidRenderOptionsError, UnsafeValueError } from './errors.js';
