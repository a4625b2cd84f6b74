/**
 * One Gateway's listeners: each read on its own (protocol, port, hostname, allowed routes, TLS)
 * into its conditions, then those sharing a port with different protocols, or a port and a
 * hostname, marked Conflicted.
 */
import { describeValue, type Certificate } from '@ingresskit/route-model';
import { type NamespacePolicy, readKinds, readNamespaces } from './allowed-routes.js';
import { type CertificateReader, readCertificates } from './certificate-refs.js';
import { ConditionType, createCondition, ListenerReason } from './conditions.js';
import { checkHostname, isPortNumber, objectOr } from './grammar.js';
import type { ConditionDraft, GatewayApiConfig, GatewayApiReferences, RouteGroupKind } from './types.js';
import type { GatewayApiProblemLog } from './problem-codes.js';

/** One listener of one of our Gateways, as routes see it. */
export interface EvaluatedListener {
  name: string;
  /** Position in `spec.listeners`. */
  index: number;
  port: number | undefined;
  protocol: string;
  /** The listener's hostname; undefined: every hostname. */
  hostname: string | undefined;
  /** The route-model listener it is served on; undefined when its port is not served. */
  dataPlaneListener: string | undefined;
  /** Accepted, not conflicted, and (HTTPS) with a certificate: routes attach and are served. */
  isReady: boolean;
  /** Why it is not ready, for route statuses. */
  notReadyMessage: string | undefined;
  /**
   * Whether routes attach to it: when it is ready, and when its only problem is its certificate
   * (the routes are then counted in attachedRoutes, as the spec asks, but not served).
   */
  attachable: boolean;
  supportedKinds: RouteGroupKind[];
  namespaces: NamespacePolicy;
  certificate: Certificate | undefined;
  accepted: ConditionDraft;
  resolvedRefs: ConditionDraft;
  conflicted: ConditionDraft | undefined;
}

const SUPPORTED_PROTOCOLS = new Set(['HTTP', 'HTTPS']);

/** A listener as read, before its Gateway's other listeners and other Gateways are considered. */
export interface ListenerDraft extends EvaluatedListener {
  /** False once the listener cannot be served at all (Accepted False or conflicted). */
  isAccepted: boolean;
  hasCertificateProblem: boolean;
}

/** Reads listener `index` of a Gateway; `isReady` and `attachable` are settled later, over all Gateways. */
export function evaluateListener(
  raw: unknown,
  index: number,
  gateway: { namespace: string; generation: number | undefined },
  config: GatewayApiConfig,
  references: GatewayApiReferences,
  readCertificate: CertificateReader,
  log: GatewayApiProblemLog,
): ListenerDraft {
  const field = `spec.listeners[${index}]`;
  const listener = objectOr<{
    name: unknown;
    hostname: unknown;
    port: unknown;
    protocol: unknown;
    tls: unknown;
    allowedRoutes: unknown;
  }>(raw);
  const generation = gateway.generation;
  const name = typeof listener.name === 'string' ? listener.name : `#${index}`;
  const protocol = typeof listener.protocol === 'string' ? listener.protocol : '';
  let acceptedReason: string = ListenerReason.Accepted;
  let acceptedMessage = 'the listener is valid';
  const refuse = (reason: string, message: string) => {
    if (acceptedReason !== ListenerReason.Accepted) return;
    acceptedReason = reason;
    acceptedMessage = message;
  };
  if (typeof listener.name !== 'string' || listener.name === '') {
    log.error('invalid-listener-name', `${field}.name`, 'must be a non-empty string', listener.name);
    refuse(ListenerReason.UnsupportedValue, 'the listener has no name');
  }
  const isSupportedProtocol = SUPPORTED_PROTOCOLS.has(protocol);
  if (!isSupportedProtocol) {
    log.error(
      'unsupported-protocol',
      `${field}.protocol`,
      'only HTTP and HTTPS listeners are supported',
      listener.protocol,
    );
    refuse(
      ListenerReason.UnsupportedProtocol,
      `protocol ${describeValue(listener.protocol)} is not supported (HTTP, HTTPS)`,
    );
  }
  const port = isPortNumber(listener.port) ? listener.port : undefined;
  let dataPlaneListener: string | undefined;
  if (port === undefined) {
    log.error('port-unavailable', `${field}.port`, 'must be a port number 1-65535', listener.port);
    refuse(ListenerReason.PortUnavailable, 'the port is not a port number');
  } else if (isSupportedProtocol) {
    const mapping = config.ports.find((entry) => entry.port === port);
    if (mapping === undefined) {
      const served = config.ports.map((entry) => `${entry.port} (${entry.protocol})`).join(', ');
      log.error(
        'port-unavailable',
        `${field}.port`,
        `port ${port} is not served (served: ${served || 'none'})`,
        port,
      );
      refuse(ListenerReason.PortUnavailable, `port ${port} is not served; served ports: ${served || 'none'}`);
    } else if (mapping.protocol !== protocol) {
      log.error(
        'port-unavailable',
        `${field}.port`,
        `port ${port} is served as ${mapping.protocol}, not ${protocol}`,
        port,
      );
      refuse(
        ListenerReason.PortUnavailable,
        `port ${port} is served as ${mapping.protocol}, not ${protocol}`,
      );
    } else {
      dataPlaneListener = mapping.listener;
    }
  }
  let hostname: string | undefined;
  if (listener.hostname !== undefined && listener.hostname !== null && listener.hostname !== '') {
    const problem = checkHostname(listener.hostname);
    if (problem === undefined) hostname = listener.hostname as string;
    else {
      log.error('invalid-hostname', `${field}.hostname`, problem, listener.hostname);
      refuse(ListenerReason.UnsupportedValue, `hostname ${problem}`);
    }
  }
  const allowedRoutes = objectOr<{ namespaces: unknown; kinds: unknown }>(listener.allowedRoutes);
  const namespaces = readNamespaces(allowedRoutes.namespaces, `${field}.allowedRoutes.namespaces`, log);
  if (namespaces.problem !== undefined) refuse(ListenerReason.UnsupportedValue, namespaces.problem);
  const { kinds, invalid } = isSupportedProtocol
    ? readKinds(allowedRoutes.kinds, `${field}.allowedRoutes.kinds`, log)
    : { kinds: [], invalid: [] };
  let refsReason: string | undefined;
  let refsMessage: string | undefined;
  if (invalid.length > 0) {
    refsReason = ListenerReason.InvalidRouteKinds;
    refsMessage = `unsupported route kinds: ${invalid.join(', ')}`;
  }
  let certificate: Certificate | undefined;
  let hasCertificateProblem = false;
  const tls = objectOr<{ mode: unknown; certificateRefs: unknown }>(listener.tls);
  if (protocol === 'HTTPS') {
    const mode = tls.mode ?? 'Terminate';
    if (mode !== 'Terminate') {
      log.error(
        'unsupported-tls-mode',
        `${field}.tls.mode`,
        'only Terminate is supported for HTTPS listeners',
        mode,
      );
      refuse(ListenerReason.UnsupportedValue, `TLS mode ${describeValue(mode)} is not supported (Terminate)`);
    } else {
      const result = readCertificates(
        tls.certificateRefs,
        gateway,
        `${field}.tls.certificateRefs`,
        references,
        readCertificate,
        log,
      );
      certificate = result.certificate;
      if (result.reason !== undefined) {
        hasCertificateProblem = true;
        // An invalid route kind is the lesser problem; a certificate is what keeps HTTPS up.
        refsReason = result.reason;
        refsMessage = result.message;
      }
    }
  } else if (listener.tls !== undefined && listener.tls !== null) {
    log.warning('tls-ignored', `${field}.tls`, `is ignored for protocol ${protocol}`);
  }
  const isAccepted = acceptedReason === ListenerReason.Accepted;
  return {
    name,
    index,
    port,
    protocol,
    hostname,
    dataPlaneListener,
    isReady: false,
    notReadyMessage: undefined,
    attachable: false,
    supportedKinds: kinds,
    namespaces: namespaces.policy,
    certificate,
    accepted: createCondition(
      ConditionType.Accepted,
      isAccepted,
      acceptedReason,
      acceptedMessage,
      generation,
    ),
    resolvedRefs: createCondition(
      ConditionType.ResolvedRefs,
      refsReason === undefined,
      refsReason ?? ListenerReason.ResolvedRefs,
      refsMessage ?? 'all references are resolved',
      generation,
    ),
    conflicted: undefined,
    isAccepted,
    hasCertificateProblem,
  };
}

/** Marks Conflicted the listeners of one Gateway that share a port with different protocols, or a port and hostname. */
export function markConflicts(listeners: ListenerDraft[], generation: number | undefined): void {
  const byPort = new Map<number, ListenerDraft[]>();
  for (const listener of listeners) {
    if (listener.port === undefined || !SUPPORTED_PROTOCOLS.has(listener.protocol)) continue;
    byPort.set(listener.port, [...(byPort.get(listener.port) ?? []), listener]);
  }
  for (const [port, group] of byPort) {
    const protocols = new Set(group.map((listener) => listener.protocol));
    if (protocols.size > 1) {
      for (const listener of group) {
        listener.conflicted = createCondition(
          ConditionType.Conflicted,
          true,
          ListenerReason.ProtocolConflict,
          `listeners on port ${port} use different protocols (${[...protocols].sort().join(', ')})`,
          generation,
        );
      }
      continue;
    }
    const byHostname = new Map<string, ListenerDraft[]>();
    for (const listener of group) {
      const key = listener.hostname ?? '';
      byHostname.set(key, [...(byHostname.get(key) ?? []), listener]);
    }
    for (const [hostname, same] of byHostname) {
      if (same.length < 2) continue;
      const names = same.map((listener) => listener.name).join(', ');
      for (const listener of same) {
        listener.conflicted = createCondition(
          ConditionType.Conflicted,
          true,
          ListenerReason.HostnameConflict,
          `listeners ${names} share port ${port} and hostname "${hostname || '*'}"`,
          generation,
        );
      }
    }
  }
}
