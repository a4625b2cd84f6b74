/** The controller's addresses on Gateways; @ingresskit/gateway-routes merges the statuses that hold them. */
import type { GatewayStatusAddress } from '@ingresskit/gateway-routes';
import type { StatusAddress } from '@ingresskit/status-sync';

export type { GatewayStatusAddress };

/** Status addresses (as status-sync resolves them for Ingresses) in the Gateway API's shape. */
export function toGatewayAddresses(addresses: readonly StatusAddress[]): GatewayStatusAddress[] {
  return addresses.map((address) =>
    'ip' in address
      ? { type: 'IPAddress', value: address.ip }
      : { type: 'Hostname', value: address.hostname },
  );
}
