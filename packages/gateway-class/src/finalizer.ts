/** Finalizer a GatewayClass carries while any Gateway references it (Gateway API convention). */
export const GATEWAY_EXISTS_FINALIZER = 'gateway-exists-finalizer.gateway.networking.k8s.io';

/** Returns the finalizer list with the gateway-exists finalizer present or absent, untouched when already so. */
export function withGatewayExistsFinalizer(finalizers: readonly string[], present: boolean): string[] {
  const has = finalizers.includes(GATEWAY_EXISTS_FINALIZER);
  if (present === has) return [...finalizers];
  return present
    ? [...finalizers, GATEWAY_EXISTS_FINALIZER]
    : finalizers.filter((finalizer) => finalizer !== GATEWAY_EXISTS_FINALIZER);
}
