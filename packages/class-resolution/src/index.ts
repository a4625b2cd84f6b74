export {
  DEFAULT_INGRESS_CLASS_ANNOTATION,
  INGRESS_CLASS_ANNOTATION,
  WITHOUT_CLASS_NAME,
} from './annotations.js';
export { defaultClassResolutionConfig, normalizeClassResolutionConfig } from './config.js';
export type { ClassResolutionConfig } from './config.js';
export { isValidControllerName } from './controller-name.js';
export type { ClassDecision, NotOwnedDecision, NotOwnedReason, OwnedDecision, OwnedVia } from './decision.js';
export { isDefaultIngressClass, pickDefaultIngressClass } from './default-class.js';
export { InvalidClassResolutionConfigError } from './errors.js';
export { explainDecision } from './explain.js';
export { isOwnGatewayClass } from './gateway-class.js';
export { createIngressClassResolver, isOwnIngressClass, resolveIngressClass } from './resolver.js';
export type { IngressClassResolver } from './resolver.js';
export type { GatewayClassLike, IngressClassLike, IngressLike, ObjectMetaLike, Timestamp } from './types.js';
