/**
 * Service references to backends: the Service port by number or name, ExternalName targets, and
 * the ready, non-terminating endpoints of the Service's EndpointSlices.
 */
import { compareText } from './compare.js';
import { checkDnsSubdomain, isIpAddress, isPortNumber } from './grammar.js';
import type { Backend, Endpoint, EndpointSliceLike, ServiceLike, ServicePortLike } from './types.js';

/** Reads Services and EndpointSlices by key, whatever shape the caller passed them in. */
export interface BackendLookups {
  service(namespace: string, name: string): ServiceLike | undefined;
  endpointSlices(namespace: string, serviceName: string): readonly EndpointSliceLike[];
}

/** A resolved backend, with a problem when it can only answer 503. */
export interface BackendResolution {
  backend: Backend;
  /** Set when the backend cannot serve (no Service, no such port, bad ExternalName). */
  issue?: string;
}

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** Names a backend `namespace/service:port`, unambiguous because `/` and `:` cannot occur in names. */
export function formatBackendName(namespace: string, service: string, port: number | string): string {
  return `${namespace}/${service}:${port}`;
}

/** Indexes a list of EndpointSlices by `namespace/service-name`; maps are used as they are. */
export function indexEndpointSlices(
  slices: readonly EndpointSliceLike[] | ReadonlyMap<string, readonly EndpointSliceLike[]> | undefined,
): ReadonlyMap<string, readonly EndpointSliceLike[]> {
  if (slices === undefined) return new Map();
  if (!Array.isArray(slices)) return slices as ReadonlyMap<string, readonly EndpointSliceLike[]>;
  const index = new Map<string, EndpointSliceLike[]>();
  for (const slice of slices as readonly EndpointSliceLike[]) {
    const namespace = slice?.metadata?.namespace;
    const service = slice?.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (typeof namespace !== 'string' || typeof service !== 'string') continue;
    const key = `${namespace}/${service}`;
    const list = index.get(key);
    if (list) list.push(slice);
    else index.set(key, [slice]);
  }
  return index;
}

/**
 * The list when `value` is one, else empty. Items stay possibly null: the input is only typed,
 * not checked, and broken objects must become problems, not exceptions.
 */
function listOf<T>(value: readonly T[] | null | undefined): readonly (T | null | undefined)[] {
  return Array.isArray(value) ? (value as readonly T[]) : [];
}

function findServicePort(service: ServiceLike, port: number | string): ServicePortLike | undefined {
  return (
    listOf(service.spec?.ports).find((candidate) =>
      typeof port === 'number' ? candidate?.port === port : candidate?.name === port,
    ) ?? undefined
  );
}

/** Ready, non-terminating endpoints of the slices for one Service port, deduplicated and sorted. */
export function collectEndpoints(
  slices: readonly EndpointSliceLike[],
  servicePort: ServicePortLike,
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
        seen.set(`${address}|${slicePort.port}`, { address, port: slicePort.port });
      }
    }
  }
  return [...seen.values()].sort((a, b) => compareText(a.address, b.address) || a.port - b.port);
}

/**
 * Resolves `namespace/service` at `port` (number or name). A missing Service or port gives a
 * backend with no endpoints (503) and an issue to report; an ExternalName Service gives a backend
 * with `externalName`.
 */
export function resolveBackend(
  lookups: BackendLookups,
  namespace: string,
  serviceName: string,
  port: number | string,
): BackendResolution {
  const service = { namespace, name: serviceName };
  const found = lookups.service(namespace, serviceName);
  if (found === undefined) {
    return {
      backend: { name: formatBackendName(namespace, serviceName, port), service, port, endpoints: [] },
      issue: `Service ${namespace}/${serviceName} not found; requests get 503 until it exists`,
    };
  }
  const servicePort = findServicePort(found, port);
  if (found.spec?.type === 'ExternalName') {
    const target = found.spec.externalName;
    const portNumber = servicePort?.port ?? (typeof port === 'number' ? port : undefined);
    const unusable: BackendResolution = {
      backend: { name: formatBackendName(namespace, serviceName, port), service, port, endpoints: [] },
    };
    // IPv4 literals pass the subdomain grammar; IPv6 ones would need brackets in proxy_pass.
    if (typeof target !== 'string' || checkDnsSubdomain(target) !== undefined) {
      return { ...unusable, issue: `Service ${namespace}/${serviceName} has an invalid spec.externalName` };
    }
    if (!isPortNumber(portNumber)) {
      return { ...unusable, issue: `Service ${namespace}/${serviceName} has no port named "${port}"` };
    }
    return {
      backend: {
        name: formatBackendName(namespace, serviceName, portNumber),
        service,
        port: portNumber,
        externalName: target,
        endpoints: [],
      },
    };
  }
  if (servicePort === undefined || !isPortNumber(servicePort.port)) {
    return {
      backend: { name: formatBackendName(namespace, serviceName, port), service, port, endpoints: [] },
      issue: `Service ${namespace}/${serviceName} has no port ${typeof port === 'number' ? port : `named "${port}"`}; requests get 503`,
    };
  }
  return {
    backend: {
      name: formatBackendName(namespace, serviceName, servicePort.port),
      service,
      port: servicePort.port,
      endpoints: collectEndpoints(lookups.endpointSlices(namespace, serviceName), servicePort),
    },
  };
}
