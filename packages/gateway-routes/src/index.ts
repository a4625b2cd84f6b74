export { translateGatewayApi, createReferences } from './translate-gateway-api.js';
export { createGatewayApiTranslator, type GatewayApiTranslator } from './gateway-api-translator.js';
export {
  translateHTTPRoute,
  type HTTPRouteTranslation,
  type ListenerAttachment,
} from './translate-httproute.js';
export { evaluateGateways, type EvaluatedGateway, type GatewayEvaluation } from './gateways.js';
export { buildGatewayStatus } from './gateway-status.js';
export type { EvaluatedListener } from './listeners.js';
export { HTTP_ROUTE_KIND, type NamespacePolicy } from './allowed-routes.js';
export type { CertificateReader } from './certificate-refs.js';
export { intersectHostnames } from './hostnames.js';
export {
  GATEWAY_GROUP,
  isReferenceAllowed,
  type ReferenceFrom,
  type ReferenceTo,
} from './reference-grants.js';
export { parseLabelSelector, type ParsedSelector } from './label-selector.js';
export { readSecretCertificate, type SecretCertificate } from './certificates.js';
export {
  ConditionType,
  GatewayReason,
  ListenerReason,
  markGatewayProgrammed,
  RouteReason,
  type ProgrammedOutcome,
} from './conditions.js';
export {
  mergeGatewayStatus,
  mergeRouteParents,
  type GatewayStatus,
  type GatewayStatusAddress,
  type RouteParentStatus,
} from './status-merge.js';
export {
  lostHostnamesOf,
  markHostnamesOwnedElsewhere,
  markListenersOwnedElsewhere,
  type LostHostname,
  type OwnedElsewhere,
} from './hostnames-owned-elsewhere.js';
export { formatProblem } from '@ingresskit/route-model';
export type {
  ConditionDraft,
  GatewayApiConfig,
  GatewayApiObjects,
  GatewayApiReferences,
  GatewayApiTranslation,
  GatewayLike,
  GatewayStatusDraft,
  GatewayStatusEntry,
  HTTPBackendRefLike,
  HTTPHeaderFilterLike,
  HTTPHeaderLike,
  HTTPPathModifierLike,
  HTTPRouteFilterLike,
  HTTPRouteLike,
  HTTPRouteMatchLike,
  HTTPRouteRuleLike,
  HTTPRouteStatusEntry,
  HTTPValueMatchLike,
  KubeObjectLike,
  LabelSelectorLike,
  ListenerLike,
  ListenerStatusDraft,
  NamespaceLike,
  ObjectMetaLike,
  ParentReference,
  ParentReferenceLike,
  PortMapping,
  ReferenceGrantLike,
  RouteGroupKind,
  RouteGroupKindLike,
  RouteParentStatusDraft,
  SecretLike,
  SecretObjectReferenceLike,
  ServiceLike,
  StringMapLike,
  Timestamp,
} from './types.js';
export {
  GATEWAY_API_PROBLEM_CODES,
  type GatewayApiProblemCode,
  type GatewayApiProblemLog,
} from './problem-codes.js';
