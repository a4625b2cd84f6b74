export type {
  AssemblyNote,
  Backend,
  BackendProtocol,
  CanaryContribution,
  CanaryRule,
  CanarySplit,
  Certificate,
  ClientLimits,
  ClientRate,
  CorsPolicy,
  Endpoint,
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
  Route,
  RouteAction,
  RouteContribution,
  RouteMatch,
  RouteOrigin,
  RoutePolicy,
  RouteTable,
  RouteTableDelta,
  RouteTimeouts,
  SourceRef,
  TlsBinding,
  TlsClaim,
  VirtualHost,
  WeightedBackend,
} from './types.js';
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
export {
  backendIdsOfRoute,
  createRouteTableBuilder,
  sourceKey,
  type BackendReferenceChange,
  type RouteTableBuilder,
  type RouteTableBuilderOptions,
} from './builder.js';
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
