/**
 * Pins an ExternalName backend to the addresses its name resolved to. A tenant controls the DNS
 * answers of their own names, so a name checked once and resolved again by the data plane could
 * point it at loopback or the metadata service the next time (DNS rebinding). Pinned, the data
 * plane connects only to addresses the address policy let through here.
 */
import { isIP } from 'node:net';
import {
  refusedBackendAddress,
  type Backend,
  type BackendAddressPolicy,
  type Endpoint,
} from '@ingresskit/route-model';
import type { ServiceBackendResolution } from './service-backend.js';

/** What resolving a name gave: its addresses, or why there are none. */
export type NameResolution = { readonly addresses: readonly string[] } | { readonly error: string };

/**
 * The backend `backend` (an ExternalName one) pinned to `resolution`, and a problem when some or
 * all addresses were left out. An IP literal needs no resolution. `undefined` (not resolved yet)
 * and errors give no target (503) until the name resolves. Other backends come back unchanged.
 */
export function pinExternalName(
  backend: Backend,
  resolution: NameResolution | undefined,
  policy: BackendAddressPolicy,
): ServiceBackendResolution {
  const target = backend.externalName;
  if (target === undefined) return { backend };
  const { hostname, port } = target;
  const unusable: Backend = { id: backend.id, endpoints: [] };
  const addresses: NameResolution | undefined = isIP(hostname) !== 0 ? { addresses: [hostname] } : resolution;
  if (addresses === undefined)
    return {
      backend: unusable,
      problem: `spec.externalName ${hostname} is not resolved yet; requests get 503`,
      problemCode: 'external-name-unresolved',
    };
  if ('error' in addresses)
    return {
      backend: unusable,
      problem: `spec.externalName ${hostname} does not resolve (${addresses.error}); requests get 503`,
      problemCode: 'external-name-unresolved',
    };
  const refused: string[] = [];
  const endpoints: Endpoint[] = [];
  for (const address of new Set(addresses.addresses)) {
    const refusal = refusedBackendAddress(address, port, policy);
    if (refusal === undefined) endpoints.push({ address, port });
    else refused.push(refusal);
  }
  endpoints.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const pinned: Backend = endpoints.length === 0 ? unusable : { ...backend, endpoints };
  if (refused.length === 0) return { backend: pinned };
  const outcome = endpoints.length === 0 ? 'requests get 503' : 'the other addresses are used';
  return {
    backend: pinned,
    problem: `spec.externalName ${hostname} resolves to addresses a backend may not point at (${refused.join('; ')}); ${outcome}`,
    problemCode: 'backend-address-refused',
  };
}
