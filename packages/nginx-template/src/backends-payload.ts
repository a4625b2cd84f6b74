/** The body the controller POSTs to the Lua configuration endpoint. */
import type { Configuration, Endpoint } from './types.js';

/** The decoded shape of backendsPayload's JSON. */
export interface BackendsPayload {
  backends: { name: string; endpoints: Endpoint[] }[];
}

/** Path of the configuration endpoint on `127.0.0.1:<statusPort>`; POST the payload, expect 201. */
export const BACKENDS_ENDPOINT_PATH = '/configuration/backends';

/** Path of the status endpoint: `{ checksum, configurationLoads, backendsVersion, workerPid }`. */
export const STATUS_ENDPOINT_PATH = '/configuration/status';

/**
 * The JSON body for `POST /configuration/backends`: every Lua-balanced backend (ExternalName ones
 * are proxied by nginx directly) with its endpoints. Deterministic for equal configurations.
 */
export function backendsPayload(configuration: Configuration): string {
  const payload: BackendsPayload = {
    backends: configuration.backends
      .filter((backend) => backend.externalName === undefined)
      .map((backend) => ({
        name: backend.name,
        endpoints: backend.endpoints.map(({ address, port }) => ({ address, port })),
      })),
  };
  return JSON.stringify(payload);
}
