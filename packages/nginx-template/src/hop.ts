/**
 * The hop of routes with custom error pages (see HOP_LOCATION_PARTIAL in nginx-conf-template.ts):
 * the headers that carry the router's choices from the hop location to the hop server, where
 * `ingresskit.hop` reads them back into the same variables and takes them out of the request.
 */

/** A hop header and the variable whose value it carries. */
export interface HopHeader {
  name: string;
  variable: string;
}

/** Every hop header, in the order the hop location sets them. */
export const HOP_HEADERS: readonly HopHeader[] = [
  { name: 'X-Ingresskit-Route', variable: '$ingresskit_route' },
  { name: 'X-Ingresskit-Backend', variable: '$ingresskit_backend' },
  { name: 'X-Ingresskit-Target', variable: '$ingresskit_target' },
  { name: 'X-Ingresskit-Ssl-Name', variable: '$ingresskit_backend_ssl_name' },
  { name: 'X-Ingresskit-Peer', variable: '$ingresskit_peer' },
  { name: 'X-Ingresskit-Affinity', variable: '$ingresskit_affinity' },
  { name: 'X-Ingresskit-Canary', variable: '$ingresskit_affinity_canary' },
  { name: 'X-Ingresskit-Client', variable: '$remote_addr' },
];

/**
 * The body readers nginx.conf has: one per power of two from 1 KiB to 1 TiB (the largest body
 * limit), named by its exponent (`@ingresskit_read_20` reads at most 1 MiB).
 */
export const BODY_READER_EXPONENTS: readonly number[] = Array.from({ length: 31 }, (_, i) => i + 10);
