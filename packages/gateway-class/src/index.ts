export { createGatewayClassClient, type GatewayClassClient, type GatewayClassWriteResult } from './client.js';
export { GatewayClassConditionType, GatewayClassReason, hasNewerConditions } from './conditions.js';
export { mergeConditions } from '@ingresskit/kube-objects';
export {
  GatewayClassController,
  type GatewayClassControllerEvents,
  type GatewayClassControllerOptions,
  type GatewayClassReconcileOutcome,
  type GatewayClassReconcileResult,
} from './controller.js';
export {
  ControllerStateError,
  GatewayClassApiError,
  GatewayClassConflictError,
  GatewayClassListenerError,
  ListenerError,
  InvalidControllerNameError,
  InvalidVersionPolicyError,
} from './errors.js';
export {
  evaluateGatewayClass,
  formatConditionTime,
  type GatewayClassEvaluation,
  type GatewayClassEvaluationContext,
} from './evaluate.js';
export { GATEWAY_EXISTS_FINALIZER, withGatewayExistsFinalizer } from './finalizer.js';
export {
  PARAMETERS_API_VERSION,
  PARAMETERS_GROUP,
  PARAMETERS_KIND,
  describeReferent,
  parseParameters,
  resolveParametersRef,
  supportedParametersKinds,
  type GatewayClassParameters,
  type ParametersKind,
  type ParametersLogLevel,
  type ParametersLookup,
  type ParametersResolution,
} from './parameters.js';
export { ingressKitParametersCrd } from './parameters-crd.js';
export {
  listAffectedGatewayClasses,
  type GatewayClassSource,
  type GatewayClassSourceChange,
} from './source.js';
export type {
  Condition,
  CustomResourceDefinition,
  Gateway,
  GatewayClass,
  GatewayClassSummary,
  ObjectMeta,
  ParametersReference,
  SupportedFeature,
} from './types.js';
export {
  BUNDLE_VERSION_ANNOTATION,
  GATEWAY_API_GROUP,
  checkBundleVersions,
  defaultVersionPolicy,
  isSupportedBundleVersion,
  isValidVersionPattern,
  type BundleVersionCheck,
  type VersionPolicy,
} from './versions.js';
