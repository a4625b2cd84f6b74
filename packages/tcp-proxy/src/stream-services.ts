/**
 * ingress-nginx's TCP and UDP services ConfigMaps (`--tcp-services-configmap`,
 * `--udp-services-configmap`): each entry `"<port>": "<namespace>/<service>:<port>[:PROXY][:PROXY]"`
 * becomes a stream service of nginx over the Service's ready endpoints. A bad entry is a problem
 * naming its key, and the other entries are served.
 */
import { checkDnsLabel, checkPortName, namespacedKey } from '@ingresskit/kube-objects';
import { resolveServiceBackend, type BackendAddressPolicy } from '@ingresskit/ingress-routes';
import type { StreamService } from '@ingresskit/nginx-template';
import type { L4ClusterView } from './l4-cluster-view.js';

/** Which ConfigMap a stream service comes from. */
export interface StreamServicesSource {
  protocol: 'TCP' | 'UDP';
  /** `namespace/name` of the ConfigMap. */
  configMap: string;
}

/** An entry of a services ConfigMap that is not served (or served without a part of it). */
export interface StreamServiceProblem {
  protocol: 'TCP' | 'UDP';
  configMap: string;
  /** The ConfigMap key: the exposed port as written. */
  key: string;
  message: string;
}

/** What the services ConfigMaps say, resolved against the cluster. */
export interface StreamServicesResolution {
  services: StreamService[];
  problems: StreamServiceProblem[];
  /** `namespace/name` of every Service an entry names: their changes change the services. */
  serviceKeys: Set<string>;
}

/** One entry, parsed: where it points and which PROXY protocol sides it asks for. */
export interface StreamServiceEntry {
  port: number;
  namespace: string;
  service: string;
  servicePort: number | string;
  decodeProxyProtocol: boolean;
  encodeProxyProtocol: boolean;
}

function parsePort(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** One ConfigMap entry; a string says why it cannot be served. */
export function parseStreamServiceEntry(key: string, value: string): StreamServiceEntry | string {
  const port = parsePort(key.trim());
  if (port === undefined) return `the key must be a port from 1 to 65535`;
  const parts = value.trim().split(':');
  if (parts.length < 2 || parts.length > 4)
    return `the value must be <namespace>/<service>:<port>[:PROXY][:PROXY] (got ${JSON.stringify(value)})`;
  const [reference, portText, decode = '', encode = ''] = parts as [string, string, string?, string?];
  const slash = reference.indexOf('/');
  const namespace = reference.slice(0, slash);
  const service = reference.slice(slash + 1);
  if (slash < 0 || checkDnsLabel(namespace) !== undefined || checkDnsLabel(service) !== undefined)
    return `${JSON.stringify(reference)} is not <namespace>/<service>`;
  const servicePort = parsePort(portText) ?? (checkPortName(portText) === undefined ? portText : undefined);
  if (servicePort === undefined)
    return `${JSON.stringify(portText)} is neither a port number nor a port name`;
  for (const flag of [decode, encode]) {
    if (flag !== '' && flag.toUpperCase() !== 'PROXY')
      return `${JSON.stringify(flag)} must be PROXY or empty`;
  }
  return {
    port,
    namespace,
    service,
    servicePort,
    decodeProxyProtocol: decode.toUpperCase() === 'PROXY',
    encodeProxyProtocol: encode.toUpperCase() === 'PROXY',
  };
}

/**
 * The ports the ConfigMaps `sources` name as keys, served or not: nginx listens on each one it
 * serves, so all of them count as the controller's own.
 */
export function listStreamPorts(
  view: Pick<L4ClusterView, 'configMap'>,
  sources: readonly StreamServicesSource[],
): number[] {
  const ports: number[] = [];
  for (const source of sources) {
    for (const key of Object.keys(view.configMap(source.configMap)?.data ?? {})) {
      const port = parsePort(key.trim());
      if (port !== undefined) ports.push(port);
    }
  }
  return ports;
}

/**
 * The stream services of the ConfigMaps `sources` name, in `view`. Ports in `reservedPorts` (the
 * controller's own listeners) are refused; a Service that is missing, has no such port, is an
 * ExternalName or has its port for another protocol gives a problem; a Service without ready
 * endpoints is served (connections are closed) with a problem.
 */
export function resolveStreamServices(
  view: Pick<L4ClusterView, 'configMap' | 'service' | 'endpointSlicesForService'>,
  sources: readonly StreamServicesSource[],
  options: { reservedPorts: ReadonlySet<number>; policy: BackendAddressPolicy },
): StreamServicesResolution {
  const resolution: StreamServicesResolution = { services: [], problems: [], serviceKeys: new Set() };
  for (const source of sources) {
    const data = view.configMap(source.configMap)?.data ?? {};
    const problem = (key: string, message: string) =>
      resolution.problems.push({ protocol: source.protocol, configMap: source.configMap, key, message });
    for (const [key, value] of Object.entries(data).sort(([a], [b]) => Number(a) - Number(b))) {
      const entry = parseStreamServiceEntry(key, value);
      if (typeof entry === 'string') {
        problem(key, `${entry}; not served`);
        continue;
      }
      if (options.reservedPorts.has(entry.port)) {
        problem(key, `port ${entry.port} is one of the controller's own listeners; not served`);
        continue;
      }
      const serviceKey = namespacedKey(entry.namespace, entry.service);
      resolution.serviceKeys.add(serviceKey);
      const service = view.service(serviceKey);
      const servicePort = service?.spec?.ports?.find((candidate) =>
        typeof entry.servicePort === 'number'
          ? candidate.port === entry.servicePort
          : candidate.name === entry.servicePort,
      );
      if (service === undefined) {
        problem(key, `Service ${serviceKey} not found; not served until it exists`);
        continue;
      }
      if (service.spec?.type === 'ExternalName') {
        problem(
          key,
          `Service ${serviceKey} is of type ExternalName, which TCP and UDP services cannot use; not served`,
        );
        continue;
      }
      if (servicePort === undefined) {
        problem(key, `Service ${serviceKey} has no port ${JSON.stringify(entry.servicePort)}; not served`);
        continue;
      }
      if ((servicePort.protocol ?? 'TCP') !== source.protocol) {
        problem(
          key,
          `port ${JSON.stringify(entry.servicePort)} of Service ${serviceKey} is ${servicePort.protocol ?? 'TCP'}, not ${source.protocol}; not served`,
        );
        continue;
      }
      const proxyProtocol = entry.decodeProxyProtocol || entry.encodeProxyProtocol;
      if (source.protocol === 'UDP' && proxyProtocol)
        problem(key, 'the PROXY protocol is for TCP services only; served without it');
      const { backend, problem: backendProblem } = resolveServiceBackend(
        // A port without its number is refused there, with a problem.
        { namespace: entry.namespace, name: entry.service, port: servicePort.port ?? entry.servicePort },
        service,
        view.endpointSlicesForService(serviceKey),
        options.policy,
      );
      if (backendProblem !== undefined) problem(key, backendProblem);
      if (backend.endpoints.length === 0 && backendProblem === undefined)
        problem(key, `Service ${serviceKey} has no ready endpoint; connections are closed`);
      resolution.services.push({
        protocol: source.protocol,
        port: entry.port,
        endpoints: backend.endpoints.map(({ address, port }) => ({ address, port })),
        decodeProxyProtocol: source.protocol === 'TCP' && entry.decodeProxyProtocol,
        encodeProxyProtocol: source.protocol === 'TCP' && entry.encodeProxyProtocol,
        source: { namespace: entry.namespace, service: entry.service, port: entry.servicePort },
      });
    }
  }
  return resolution;
}
