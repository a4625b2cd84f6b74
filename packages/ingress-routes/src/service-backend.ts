/**
 * Service ports to route-model backends: the Service port by number or name, ExternalName
 * targets, and the ready, non-terminating endpoints of the Service's EndpointSlices.
 */
import {
  compareText,
  DEFAULT_BACKEND_ADDRESS_POLICY,
  refusedBackendAddress,
  type Backend,
  type BackendAddressPolicy,
  type Endpoint,
} from '@ingresskit/route-model';
import { backendIdOf, FIRST_SERVICE_PORT } from './backend-reference.js';

import {
  checkDnsSubdomain,
  isPortNumber,
  SERVICE_NAME_LABEL,
  type EndpointSliceLike,
  type ServiceLike,
  type ServicePortLike,
} from '@ingresskit/kube-objects';
import { isIpAddress } from './grammar.js';
import type { ServiceReference } from './types.js';

/**
 * What can be wrong with a backend, each as a stable code with what it means; the problem's
 * message says it in words. The route of such a backend answers 503 (as in ingress-nginx).
 */
export const BACKEND_PROBLEM_CODES = {
  'service-not-found': 'error: the Service does not exist; its routes answer 503 until it does',
  'service-port-not-found': 'error: the Service has no such port; its routes answer 503',
  'service-no-cluster-ip': 'error: service-upstream on a Service without a cluster IP; its routes answer 503',
  'external-name-invalid': 'error: an ExternalName that is no host name; its routes answer 503',
  'external-name-not-allowed':
    'error: an ExternalName Service while ExternalName backends are off; its routes answer 503',
  'external-name-unresolved':
    'error: an ExternalName not resolved yet, or that does not resolve; its routes answer 503',
  'backend-address-refused':
    'error: endpoint addresses the backend address policy refuses are left out; with none left, its routes answer 503',
} as const satisfies Readonly<Record<string, string>>;

/** What is wrong with a backend, as a stable code (see BACKEND_PROBLEM_CODES). */
export type BackendProblemCode = keyof typeof BACKEND_PROBLEM_CODES;

/** A backend, and why it can only answer 503 when it cannot serve. */
export interface ServiceBackendResolution {
  backend: Backend;
  /**
   * Set when the backend cannot serve (no Service, no such port, an invalid or refused
   * ExternalName) or some of its endpoints were left out (addresses the policy refuses).
   */
  problem?: string;
  /** What kind of problem `problem` is; set with it. */
  problemCode?: BackendProblemCode;
}

/** service-upstream: the Service's cluster IP and port as the one endpoint. */
function resolveClusterIp(
  id: string,
  service: ServiceLike,
  port: number,
  policy: BackendAddressPolicy,
  key: string,
): ServiceBackendResolution {
  const clusterIp = service.spec?.clusterIP;
  if (!isIpAddress(clusterIp)) {
    return {
      backend: { id, endpoints: [] },
      problem: `Service ${key} has no cluster IP (service-upstream); requests get 503`,
      problemCode: 'service-no-cluster-ip',
    };
  }
  const refusal = refusedBackendAddress(clusterIp, port, policy);
  if (refusal !== undefined) {
    return {
      backend: { id, endpoints: [] },
      problem: `Service ${key} cluster IP ${refusal}, which a backend may not point at; requests get 503`,
      problemCode: 'backend-address-refused',
    };
  }
  return { backend: { id, endpoints: [{ address: clusterIp, port }] } };
}

/**
 * The list when `value` is one, else empty. Items stay possibly null: the input is only typed,
 * not checked, and broken objects must become problems, not exceptions.
 */
function listOf<T>(value: readonly T[] | null | undefined): readonly (T | null | undefined)[] {
  return Array.isArray(value) ? (value as readonly T[]) : [];
}

function findServicePort(service: ServiceLike, port: number | string): ServicePortLike | undefined {
  if (port === FIRST_SERVICE_PORT) return listOf(service.spec?.ports)[0] ?? undefined;
  return (
    listOf(service.spec?.ports).find((candidate) =>
      typeof port === 'number' ? candidate?.port === port : candidate?.name === port,
    ) ?? undefined
  );
}

function isSliceOf(slice: EndpointSliceLike | null | undefined, namespace: string, service: string): boolean {
  return slice?.metadata?.namespace === namespace && slice.metadata.labels?.[SERVICE_NAME_LABEL] === service;
}

/**
 * Ready, non-terminating endpoints of the slices for one Service port, deduplicated and sorted;
 * `refused` collects why addresses the policy refuses were left out.
 */
function collectEndpoints(
  slices: readonly (EndpointSliceLike | null | undefined)[],
  servicePort: ServicePortLike,
  policy: BackendAddressPolicy,
  refused: Set<string>,
): Endpoint[] {
  const wantedName = servicePort.name ?? '';
  const wantedProtocol = servicePort.protocol ?? 'TCP';
  const seen = new Map<string, Endpoint>();
  for (const slice of slices) {
    if (slice?.addressType !== 'IPv4' && slice?.addressType !== 'IPv6') continue;
    const slicePort = listOf(slice.ports).find(
      (candidate) =>
        (candidate?.name ?? '') === wantedName && (candidate?.protocol ?? 'TCP') === wantedProtocol,
    );
    if (!slicePort || !isPortNumber(slicePort.port)) continue;
    for (const endpoint of listOf(slice.endpoints)) {
      // A nil `ready` means ready (API contract); terminating endpoints get no new requests.
      if (endpoint?.conditions?.ready === false || endpoint?.conditions?.terminating === true) continue;
      for (const address of listOf(endpoint?.addresses)) {
        if (!isIpAddress(address)) continue;
        const refusal = refusedBackendAddress(address, slicePort.port, policy);
        if (refusal !== undefined) {
          refused.add(refusal);
          continue;
        }
        seen.set(`${address}|${slicePort.port}`, { address, port: slicePort.port });
      }
    }
  }
  return [...seen.values()].sort((a, b) => compareText(a.address, b.address) || a.port - b.port);
}

/**
 * Resolves a Service port into the backend a route names with `backendIdOf(namespace, name,
 * port)`. `service` is the Service `reference` names (undefined when it does not exist);
 * `endpointSlices` its EndpointSlices (slices of other Services, by namespace and the
 * `kubernetes.io/service-name` label, are ignored, so passing more is safe). A missing Service or
 * port gives a backend without endpoints (503) and a problem; an ExternalName Service gives a
 * backend with `externalName`. Addresses `policy` refuses are left out with a problem, and an
 * ExternalName it refuses gives a backend without endpoints. Never throws.
 */
export function resolveServiceBackend(
  reference: ServiceReference,
  service: ServiceLike | undefined,
  endpointSlices: readonly EndpointSliceLike[],
  policy: BackendAddressPolicy = DEFAULT_BACKEND_ADDRESS_POLICY,
): ServiceBackendResolution {
  const { namespace, name, port } = reference;
  const id = backendIdOf(namespace, name, port, reference.viaClusterIp === true);
  const unusable: Backend = { id, endpoints: [] };
  if (service === undefined || service === null) {
    return {
      backend: unusable,
      problem: `Service ${namespace}/${name} not found; requests get 503 until it exists`,
      problemCode: 'service-not-found',
    };
  }
  const servicePort = findServicePort(service, port);
  if (service.spec?.type === 'ExternalName') {
    const target = service.spec.externalName;
    const portNumber = servicePort?.port ?? (typeof port === 'number' ? port : undefined);
    // IPv4 literals pass the subdomain grammar; IPv6 ones would need brackets in a proxy URL.
    if (typeof target !== 'string' || checkDnsSubdomain(target) !== undefined) {
      return {
        backend: unusable,
        problem: `Service ${namespace}/${name} has an invalid spec.externalName; requests get 503`,
        problemCode: 'external-name-invalid',
      };
    }
    if (!isPortNumber(portNumber)) {
      return {
        backend: unusable,
        problem: `Service ${namespace}/${name} has no port named "${port}"; requests get 503`,
        problemCode: 'service-port-not-found',
      };
    }
    if (!policy.allowExternalName) {
      return {
        backend: unusable,
        problem: `Service ${namespace}/${name} is of type ExternalName, which this controller does not serve (--allow-external-name-services=false); requests get 503`,
        problemCode: 'external-name-not-allowed',
      };
    }
    const refusal = refusedBackendAddress(target, portNumber, policy);
    if (refusal !== undefined) {
      return {
        backend: unusable,
        problem: `Service ${namespace}/${name} spec.externalName: ${refusal}, which a backend may not point at; requests get 503`,
        problemCode: 'backend-address-refused',
      };
    }
    return { backend: { id, endpoints: [], externalName: { hostname: target, port: portNumber } } };
  }
  if (servicePort === undefined || !isPortNumber(servicePort.port)) {
    return {
      backend: unusable,
      problem: `Service ${namespace}/${name} has no ${port === FIRST_SERVICE_PORT ? 'ports' : `port ${typeof port === 'number' ? port : `named "${port}"`}`}; requests get 503`,
      problemCode: 'service-port-not-found',
    };
  }
  if (reference.viaClusterIp === true)
    return resolveClusterIp(id, service, servicePort.port, policy, `${namespace}/${name}`);
  const slices = listOf(endpointSlices).filter((slice) => isSliceOf(slice, namespace, name));
  const refused = new Set<string>();
  const backend = { id, endpoints: collectEndpoints(slices, servicePort, policy, refused) };
  if (refused.size === 0) return { backend };
  const reasons = [...refused].sort(compareText);
  const shown =
    reasons.slice(0, 3).join('; ') + (reasons.length > 3 ? `; and ${reasons.length - 3} more` : '');
  return {
    backend,
    problem: `EndpointSlices of Service ${namespace}/${name} name addresses a backend may not point at, left out: ${shown}`,
    problemCode: 'backend-address-refused',
  };
}
