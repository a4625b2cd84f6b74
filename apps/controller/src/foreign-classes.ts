/**
 * Which IngressClasses and GatewayClasses belong to other controllers, for the store: an Ingress or
 * Gateway of such a class is not ours and cannot become ours while its class exists (a class's
 * controller field is immutable), so the Secrets it names are not held for it.
 */
import { isOwnGatewayClass, isOwnIngressClass } from '@ingresskit/class-resolution';
import type { OwnerClass } from '@ingresskit/store';
import type { ControllerConfig } from './config.js';

/** The store's `isForeignClass` for a controller of `config`. */
export function createForeignClassCheck(
  config: Pick<ControllerConfig, 'classConfig' | 'gatewayControllerName'>,
): (ownerClass: OwnerClass) => boolean {
  return ({ kind, object }) =>
    kind === 'IngressClass'
      ? !isOwnIngressClass(object, config.classConfig)
      : config.gatewayControllerName === undefined ||
        !isOwnGatewayClass(object, config.gatewayControllerName);
}
