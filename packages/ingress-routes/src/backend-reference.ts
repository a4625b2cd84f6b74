/**
 * Ingress backends as Service port references, and the backend ids routes use to name them. The
 * translation never reads a Service: an id carries the port as the Ingress wrote it, and
 * resolveServiceBackend turns the id's reference into endpoints later.
 */
import { checkDnsLabel, checkPortName, isPortNumber } from '@ingresskit/kube-objects';
import { parseServiceBackendId, serviceBackendIdOf } from '@ingresskit/route-model';
import type { ServiceReference } from './types.js';

/**
 * The backend id of a Service port: `namespace/service:port`, the port as written (a number or a
 * name); route-model's `serviceBackendIdOf`.
 */
export function backendIdOf(
  namespace: string,
  service: string,
  port: number | string,
  viaClusterIp = false,
): string {
  return serviceBackendIdOf({ namespace, name: service, port, ...(viaClusterIp ? { viaClusterIp } : {}) });
}

/**
 * The port of a reference to a Service's first port (the default-backend annotation names a
 * Service only, and ingress-nginx then uses its first port); never a real port number.
 */
export const FIRST_SERVICE_PORT = 0;

/**
 * The Service port a backend id made by {@link backendIdOf} stands for; undefined for any other
 * string. Route-model's `parseServiceBackendId`, under the name this package published first.
 */
export const parseBackendId: (id: string) => ServiceReference | undefined = parseServiceBackendId;

/** A parsed Ingress backend: the Service and port it names, or why it cannot be used. */
export type BackendReference =
  { ok: true; service: string; port: number | string } | { ok: false; message: string; value?: unknown };

/**
 * Reads an Ingress backend (`spec.defaultBackend` or a path's `backend`), possibly malformed.
 * Only Service backends are supported; resource backends are refused.
 */
export function parseBackendReference(raw: unknown): BackendReference {
  if (typeof raw !== 'object' || raw === null) return { ok: false, message: 'backend must be an object' };
  const backend = raw as { service?: unknown; resource?: unknown };
  if (backend.resource !== undefined) return { ok: false, message: 'resource backends are not supported' };
  if (typeof backend.service !== 'object' || backend.service === null) {
    return { ok: false, message: 'backend.service is required' };
  }
  const service = backend.service as { name?: unknown; port?: unknown };
  const nameProblem = checkDnsLabel(service.name);
  if (nameProblem !== undefined) {
    return { ok: false, message: `backend.service.name ${nameProblem}`, value: service.name };
  }
  const port = (typeof service.port === 'object' && service.port !== null ? service.port : {}) as {
    number?: unknown;
    name?: unknown;
  };
  const hasNumber = port.number !== undefined && port.number !== null;
  const hasName = port.name !== undefined && port.name !== null && port.name !== '';
  if (hasNumber === hasName) {
    return { ok: false, message: 'backend.service.port needs exactly one of number or name' };
  }
  if (hasNumber) {
    if (!isPortNumber(port.number)) {
      return { ok: false, message: 'backend.service.port.number must be 1-65535', value: port.number };
    }
    return { ok: true, service: service.name as string, port: port.number };
  }
  const portProblem = checkPortName(port.name);
  if (portProblem !== undefined) {
    return { ok: false, message: `backend.service.port.name ${portProblem}`, value: port.name };
  }
  return { ok: true, service: service.name as string, port: port.name as string };
}

/** Why a Service reference is unusable (a bad namespace, name or port), or undefined when it is fine. */
export function checkServiceReference(reference: ServiceReference): string | undefined {
  const namespaceProblem = checkDnsLabel(reference.namespace);
  if (namespaceProblem !== undefined) return `namespace ${namespaceProblem}`;
  const nameProblem = checkDnsLabel(reference.name);
  if (nameProblem !== undefined) return `name ${nameProblem}`;
  if (typeof reference.port === 'number') {
    return isPortNumber(reference.port) ? undefined : 'port must be 1-65535';
  }
  const portProblem = checkPortName(reference.port);
  return portProblem === undefined ? undefined : `port ${portProblem}`;
}
