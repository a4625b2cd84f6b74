/** Which GatewayClasses are this controller's: decided by their controllerName alone. */
import type { GatewayClassLike } from './types.js';

/**
 * True when `gatewayClass.spec.controllerName` is exactly `controllerName` (Gateway API compares the
 * strings as they are, with no case folding); a class without a controllerName is nobody's.
 */
export function isOwnGatewayClass(gatewayClass: GatewayClassLike, controllerName: string): boolean {
  const name = gatewayClass.spec?.controllerName;
  return typeof name === 'string' && name !== '' && name === controllerName;
}
