export type {
  AssemblyNote,
  Backend,
  BackendProtocol,
  BackendTlsPolicy,
  BasicAuthPolicy,
  CanaryContribution,
  CanaryRule,
  CanarySplit,
  Certificate,
  ClientCertificatePolicy,
  ClientLimits,
  ClientRate,
  GlobalRateLimit,
  SharedCounterStore,
  CorsPolicy,
  CustomErrors,
  DigestAuthPolicy,
  Endpoint,
  ExternalAuthCache,
  ExternalAuthKeepalive,
  ExternalAuthPolicy,
  HashKeyPart,
  HeaderMatch,
  HeaderModifier,
  HostContribution,
  HostOwner,
  HostnameMatch,
  Listener,
  PathMatch,
  PathModifier,
  PathRewrite,
  Problem,
  QueryParamMatch,
  Redirect,
  ResponseRewrite,
  RetryCondition,
  Route,
  RouteAction,
  RouteContribution,
  RouteMatch,
  RouteOrigin,
  RoutePolicy,
  RouteTable,
  RouteTableDelta,
  RouteTimeouts,
  SessionAffinity,
  SourceRef,
  StrictTransportSecurity,
  TlsBinding,
  TlsClaim,
  UpstreamSettings,
  VirtualHost,
  WeightedBackend,
} from './types.js';
export { RETRY_CONDITIONS } from './types.js';
export {
  ANY_HOSTNAME,
  compareHostnames,
  hostnameCandidates,
  hostnameMatchOf,
  isHostCovered,
  isValidHostname,
} from './hostnames.js';
export {
  compareMatches,
  compareOrigins,
  compareRoutes,
  compareText,
  matchKey,
  normalizePrefix,
} from './precedence.js';
export {
  assembleTlsBinding,
  assembleVirtualHost,
  type AssembledTlsBinding,
  type AssembledVirtualHost,
  type SourcedHostContribution,
  type SourcedTlsClaim,
} from './assemble.js';
export { assembleWithinLimit, type HostLimit } from './host-limit.js';
export { backendIdsOfRoute, type BackendReferenceChange } from './backend-references.js';
export {
  parseRouteId,
  parseServiceBackendId,
  parseSourceKey,
  routeIdOf,
  routeIdPrefixOf,
  serviceBackendIdOf,
  sourceKey,
  type ParsedRouteId,
  type ServiceBackendRef,
} from './ids.js';
export { createRouteTableBuilder, type RouteTableBuilder, type RouteTableBuilderOptions } from './builder.js';
export type { HostClaimant } from './host-ownership.js';
export { NO_CERTIFICATE } from './tls-bindings.js';
export { applyRouteTableDelta, createEmptyDelta, diffRouteTables, isEmptyDelta } from './diff.js';
export { isDeepEqual } from './equal.js';
export {
  matchesPath,
  matchesRequest,
  modifyPath,
  rewritePath,
  selectRoute,
  type RouteRequest,
  type RouteSelection,
} from './select.js';
export { createProblemLog, describeValue, formatProblem, type ProblemLog } from './problems.js';
export { checkPortableRegex } from './regex.js';
export {
  DEFAULT_BACKEND_ADDRESS_POLICY,
  refusedBackendAddress,
  type BackendAddressPolicy,
} from './backend-address-policy.js';
export {
  canonicalAddress,
  embeddedIpv4,
  formatIpAddress,
  isInNetwork,
  parseIpAddress,
  parseIpNetwork,
  parseIpv6Address,
  type IpAddress,
  type IpNetwork,
} from './ip-address.js';
export { CLOUD_METADATA_NETWORKS, findMetadataNetwork, type MetadataNetwork } from './metadata-addresses.js';
export { HTTP_METHODS } from './http-methods.js';
