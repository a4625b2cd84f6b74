/**
 * The writes the GatewayClass controller makes, over client-node, where a stale or vanished object
 * is an expected answer, not an exception.
 */
import {
  CustomObjectsApi,
  Observable,
  type ConfigurationOptions,
  type KubeConfig,
  type ObservableMiddleware,
} from '@kubernetes/client-node';
import { GatewayClassApiError } from './errors.js';
import type { GatewayClass } from './types.js';
import { GATEWAY_API_GROUP } from './versions.js';

/** Result of a write: the stored object, or an expected "no" (stale resourceVersion, object gone). */
export type GatewayClassWriteResult =
  { outcome: 'written'; gatewayClass: GatewayClass } | { outcome: 'conflict' } | { outcome: 'gone' };

/**
 * The writes the controller makes, one request each. `replace` and `replaceStatus` send the object's
 * `metadata.resourceVersion` as a precondition, so a concurrent change gives `conflict`.
 */
export interface GatewayClassClient {
  /** Reads the class from the API server; undefined when it does not exist. */
  get(name: string, signal?: AbortSignal): Promise<GatewayClass | undefined>;
  /** PUT of the main resource (metadata and spec; the server ignores status). */
  replace(gatewayClass: GatewayClass, signal?: AbortSignal): Promise<GatewayClassWriteResult>;
  /** PUT of the status subresource (the server ignores everything but status). */
  replaceStatus(gatewayClass: GatewayClass, signal?: AbortSignal): Promise<GatewayClassWriteResult>;
}

const resource = { group: GATEWAY_API_GROUP, version: 'v1', plural: 'gatewayclasses' } as const;

function statusCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

// client-node 2.x has no per-call signal parameter; a request middleware sets it on the fetch.
function withSignal(signal: AbortSignal | undefined): ConfigurationOptions | undefined {
  if (signal === undefined) return undefined;
  const middleware: ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' };
}

/** Creates a {@link GatewayClassClient} over `gateway.networking.k8s.io/v1` with client-node's CustomObjectsApi. */
export function createGatewayClassClient(kubeConfig: KubeConfig): GatewayClassClient {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);

  async function write(
    operation: string,
    gatewayClass: GatewayClass,
    send: (name: string, options: ConfigurationOptions | undefined) => Promise<unknown>,
    signal: AbortSignal | undefined,
  ): Promise<GatewayClassWriteResult> {
    const name = gatewayClass.metadata?.name ?? '';
    try {
      return { outcome: 'written', gatewayClass: (await send(name, withSignal(signal))) as GatewayClass };
    } catch (error) {
      const statusCode = statusCodeOf(error);
      if (statusCode === 409) return { outcome: 'conflict' };
      if (statusCode === 404) return { outcome: 'gone' };
      throw new GatewayClassApiError(operation, name, statusCode, { cause: error });
    }
  }

  return {
    async get(name, signal) {
      try {
        return (await api.getClusterCustomObject({ ...resource, name }, withSignal(signal))) as GatewayClass;
      } catch (error) {
        const statusCode = statusCodeOf(error);
        if (statusCode === 404) return undefined;
        throw new GatewayClassApiError('get', name, statusCode, { cause: error });
      }
    },
    replace: (gatewayClass, signal) =>
      write(
        'replace',
        gatewayClass,
        (name, options) => api.replaceClusterCustomObject({ ...resource, name, body: gatewayClass }, options),
        signal,
      ),
    replaceStatus: (gatewayClass, signal) =>
      write(
        'replace status of',
        gatewayClass,
        (name, options) =>
          api.replaceClusterCustomObjectStatus({ ...resource, name, body: gatewayClass }, options),
        signal,
      ),
  };
}
