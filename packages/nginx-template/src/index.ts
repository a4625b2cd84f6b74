export {
  buildConfiguration,
  computeConfigurationHash,
  createConfiguration,
  type BuildResult,
  type Configuration,
  type ConfiguredListener,
} from './build-configuration.js';
export { renderNginxConf } from './render.js';
export {
  compileBackendTlsRelay,
  relaySocketName,
  RELAY_SOCKET_DIRECTORY,
  type BackendTlsRelay,
} from './backend-tls.js';
export { listHttpSettingsFiles, type HttpSettings } from './http-settings.js';
// Declared once in nginx-settings (ingress-routes reads it from the ConfigMap); RenderOptions.http.
export type { HttpOptions } from '@ingresskit/nginx-settings';
export { listSettingsFiles, type DhParamSettings } from './connection-settings.js';
export { diffConfigurations, type ConfigurationDiff } from './diff-configurations.js';
export {
  createProfileCatalogue,
  DEFAULT_CATALOGUE,
  DEFAULT_PROFILE,
  DEFAULT_PROFILES,
  HEADER_BUFFER_SIZES,
  INTERCEPTABLE_STATUSES,
  isInterceptableStatus,
  profileOf,
  RETRY_SETS,
  type CatalogueOptions,
  type Profile,
  type ProfileCatalogue,
  type ProfileFamily,
} from './profiles.js';
export { BODY_READER_EXPONENTS, HOP_HEADERS, type HopHeader } from './hop.js';
export {
  compileDataPlaneUpdate,
  compileVirtualHost,
  createDataPlaneUpdate,
  isValidEndpoint,
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
export {
  estimateRegexBytes,
  groupRegexPaths,
  REGEX_GROUP_CAPACITY,
  type RegexGroup,
  type RegexPath,
} from './regex-groups.js';
export { DEFAULT_REGEX_MATCHES_PER_REQUEST, measureRegexWork, type RegexWork } from './regex-work.js';
export {
  createSharedDictMeasure,
  measureContribution,
  type ContributionDictUse,
  type SharedDictMeasure,
} from './shared-dict-measure.js';
export { policyKey, sharedPolicyIdsOf, SharedPolicies } from './shared-policies.js';
export {
  measureBackend,
  measureCertificate,
  measureDictEntry,
  measureHostEntry,
  measureRoutes,
  measureTlsBinding,
  type HostRoutes,
  type RouteDataSize,
} from './entry-sizes.js';
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
  RegexGroupEntry,
  RouteEntry,
  SharedPolicyId,
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
  formatValue,
  renderRequestMetrics,
  REQUEST_METRIC_NAMES,
  REQUEST_METRICS,
  SERIES_METRIC_NAMES,
  type RequestMetric,
} from './request-metrics-text.js';
export {
  boundRequestSeries,
  formatLabels,
  type BoundedSeries,
  type LabelledSeries,
  type LabelsOf,
} from './request-series-bound.js';
export { labelSeriesOf, type ControllerLabels, type SeriesLabelOptions } from './request-series-labels.js';
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
  hopSocketPathOf,
  resolveSettings,
  sharedDictBytesOf,
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
