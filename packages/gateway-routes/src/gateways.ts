/**
 * Gateways → the listeners we serve. Every Gateway of one of our GatewayClasses is read listener by
 * listener: protocol, port (served only when the caller maps it), hostname, TLS certificates
 * (cross-namespace only with a ReferenceGrant) and which routes may attach. Listeners of all our
 * Gateways share the data plane's ports, so conflicts are decided over all of them together.
 */
import {
  compareHostnames,
  createProblemLog,
  describeValue,
  type Certificate,
  type Problem,
  type ProblemLog,
} from '@ingresskit/route-model';
import { readSecretCertificate, type SecretCertificate } from './certificates.js';
import { ConditionType, createCondition, GatewayReason, ListenerReason } from './conditions.js';
import {
  arrayOr,
  checkDnsLabel,
  checkDnsSubdomain,
  checkHostname,
  compareText,
  generationOf,
  isPortNumber,
  objectOr,
  optionalString,
  toMillis,
} from './grammar.js';
import { parseLabelSelector } from './label-selector.js';
import { GATEWAY_GROUP, isReferenceAllowed } from './reference-grants.js';
import type {
  ConditionDraft,
  GatewayApiConfig,
  GatewayApiReferences,
  GatewayLike,
  GatewayStatusDraft,
  ListenerStatusDraft,
  RouteGroupKind,
  SecretLike,
} from './types.js';

/** The route kind this package serves. */
export const HTTP_ROUTE_KIND = 'HTTPRoute';

/** Which namespaces may attach routes to a listener. */
export type NamespacePolicy =
  | { from: 'Same' }
  | { from: 'All' }
  | { from: 'Selector'; matches: (labels: Readonly<Record<string, string>>) => boolean; key: string }
  | { from: 'None' };

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

/** One of our Gateways, evaluated. */
export interface EvaluatedGateway {
  namespace: string;
  name: string;
  generation: number | undefined;
  createdAt: number;
  listeners: EvaluatedListener[];
  /**
   * Why the Gateway is not accepted as a whole (a `spec.infrastructure.parametersRef`, which this
   * controller cannot read), undefined when it is not refused; a refused Gateway serves no listener.
   */
  invalidParameters: string | undefined;
  /**
   * A string equal for two evaluations exactly when routes would attach the same way (listener
   * names, ports, hostnames, readiness, allowed kinds and namespaces); a memo key for routes.
   */
  attachmentKey: string;
}

/** Every Gateway of ours, by `namespace/name`, and the problems found reading them. */
export interface GatewayEvaluation {
  gateways: ReadonlyMap<string, EvaluatedGateway>;
  /**
   * The hostnames of the ready listeners of every Gateway, per data-plane listener: a request is
   * served by the routes of the most specific listener hostname that covers it (listener isolation).
   */
  listenerHostnames: ReadonlyMap<string, readonly string[]>;
  /** A string equal for two evaluations exactly when `listenerHostnames` is; a memo key for routes. */
  listenerHostnamesKey: string;
  problems: Problem[];
}

/** Reads a Secret's certificate, possibly from a cache; the default reads it every time. */
export type CertificateReader = (secret: SecretLike) => SecretCertificate;

const SUPPORTED_PROTOCOLS = new Set(['HTTP', 'HTTPS']);

interface ListenerDraft extends EvaluatedListener {
  /** False once the listener cannot be served at all (Accepted False or conflicted). */
  isAccepted: boolean;
  hasCertificateProblem: boolean;
}

function readNamespaces(
  raw: unknown,
  field: string,
  log: ProblemLog,
): { policy: NamespacePolicy; problem?: string } {
  const namespaces = objectOr<{ from: unknown; selector: unknown }>(raw);
  const from = namespaces.from ?? 'Same';
  switch (from) {
    case 'Same':
    case 'All':
      return { policy: { from: from as 'Same' | 'All' } };
    case 'Selector': {
      const parsed = parseLabelSelector(namespaces.selector);
      if (!parsed.ok) {
        log.error(`${field}.selector`, `${parsed.message}; no route may attach`, namespaces.selector);
        return { policy: { from: 'None' }, problem: `${field}.selector: ${parsed.message}` };
      }
      return {
        policy: { from: 'Selector', matches: parsed.matches, key: describeValue(namespaces.selector) ?? '' },
      };
    }
    default:
      log.error(`${field}.from`, 'must be All, Same or Selector; no route may attach', from);
      return { policy: { from: 'None' }, problem: `${field}.from: unsupported value` };
  }
}

function readKinds(
  raw: unknown,
  field: string,
  log: ProblemLog,
): { kinds: RouteGroupKind[]; invalid: string[] } {
  if (raw === undefined || raw === null)
    return { kinds: [{ group: GATEWAY_GROUP, kind: HTTP_ROUTE_KIND }], invalid: [] };
  const kinds: RouteGroupKind[] = [];
  const invalid: string[] = [];
  for (const [index, entry] of arrayOr(raw).entries()) {
    const kind = objectOr<{ group: unknown; kind: unknown }>(entry);
    const group = kind.group ?? GATEWAY_GROUP;
    if (group === GATEWAY_GROUP && kind.kind === HTTP_ROUTE_KIND) {
      if (!kinds.some((known) => known.kind === HTTP_ROUTE_KIND))
        kinds.push({ group, kind: HTTP_ROUTE_KIND });
    } else {
      const name = `${describeValue(group)}/${describeValue(kind.kind)}`;
      invalid.push(name);
      log.error(
        `${field}[${index}]`,
        'is not a supported route kind (only gateway.networking.k8s.io/HTTPRoute)',
        name,
      );
    }
  }
  return { kinds, invalid };
}

interface CertificateResult {
  certificate: Certificate | undefined;
  reason: string | undefined;
  message: string | undefined;
}

function readCertificates(
  raw: unknown,
  gateway: { namespace: string },
  field: string,
  references: GatewayApiReferences,
  readCertificate: CertificateReader,
  log: ProblemLog,
): CertificateResult {
  let certificate: Certificate | undefined;
  let reason: string | undefined;
  let message: string | undefined;
  const fail = (at: string, why: string, text: string, value?: unknown) => {
    log.error(at, text, value);
    // RefNotPermitted is the more specific verdict: a grant is what the user has to add.
    if (reason === undefined || why === ListenerReason.RefNotPermitted) {
      reason = why;
      message = `${at}: ${text}`;
    }
  };
  const refs = arrayOr(raw);
  if (refs.length === 0) {
    fail(field, ListenerReason.InvalidCertificateRef, 'an HTTPS listener needs a certificateRef');
  }
  for (const [index, entry] of refs.entries()) {
    const at = `${field}[${index}]`;
    const ref = objectOr<{ group: unknown; kind: unknown; name: unknown; namespace: unknown }>(entry);
    const group = ref.group ?? '';
    const kind = ref.kind ?? 'Secret';
    if (group !== '' || kind !== 'Secret') {
      fail(
        at,
        ListenerReason.InvalidCertificateRef,
        'must refer to a core Secret',
        `${describeValue(group)}/${describeValue(kind)}`,
      );
      continue;
    }
    const namespace = optionalString(ref.namespace) ?? gateway.namespace;
    if (checkDnsSubdomain(ref.name) !== undefined || checkDnsLabel(namespace) !== undefined) {
      fail(at, ListenerReason.InvalidCertificateRef, 'must name a Secret', ref.name);
      continue;
    }
    const name = ref.name as string;
    if (
      !isReferenceAllowed(
        { group: GATEWAY_GROUP, kind: 'Gateway', namespace: gateway.namespace },
        { group: '', kind: 'Secret', namespace, name },
        references.referenceGrants(namespace),
      )
    ) {
      fail(
        at,
        ListenerReason.RefNotPermitted,
        `Secret ${namespace}/${name} is in another namespace and no ReferenceGrant there allows it`,
      );
      continue;
    }
    const secret = references.secret(namespace, name);
    if (secret === undefined || secret === null) {
      fail(at, ListenerReason.InvalidCertificateRef, `Secret ${namespace}/${name} does not exist`);
      continue;
    }
    const result = readCertificate(secret);
    if (!result.ok) {
      fail(at, ListenerReason.InvalidCertificateRef, `Secret ${namespace}/${name} ${result.message}`);
      continue;
    }
    if (certificate === undefined) certificate = result.certificate;
    else log.warning(at, 'only the first valid certificate of a listener is served');
  }
  return { certificate, reason, message };
}

function evaluateListener(
  raw: unknown,
  index: number,
  gateway: { namespace: string; generation: number | undefined },
  config: GatewayApiConfig,
  references: GatewayApiReferences,
  readCertificate: CertificateReader,
  log: ProblemLog,
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
    log.error(`${field}.name`, 'must be a non-empty string', listener.name);
    refuse(ListenerReason.UnsupportedValue, 'the listener has no name');
  }
  const isSupportedProtocol = SUPPORTED_PROTOCOLS.has(protocol);
  if (!isSupportedProtocol) {
    log.error(`${field}.protocol`, 'only HTTP and HTTPS listeners are supported', listener.protocol);
    refuse(
      ListenerReason.UnsupportedProtocol,
      `protocol ${describeValue(listener.protocol)} is not supported (HTTP, HTTPS)`,
    );
  }
  const port = isPortNumber(listener.port) ? listener.port : undefined;
  let dataPlaneListener: string | undefined;
  if (port === undefined) {
    log.error(`${field}.port`, 'must be a port number 1-65535', listener.port);
    refuse(ListenerReason.PortUnavailable, 'the port is not a port number');
  } else if (isSupportedProtocol) {
    const mapping = config.ports.find((entry) => entry.port === port);
    if (mapping === undefined) {
      const served = config.ports.map((entry) => `${entry.port} (${entry.protocol})`).join(', ');
      log.error(`${field}.port`, `port ${port} is not served (served: ${served || 'none'})`, port);
      refuse(ListenerReason.PortUnavailable, `port ${port} is not served; served ports: ${served || 'none'}`);
    } else if (mapping.protocol !== protocol) {
      log.error(`${field}.port`, `port ${port} is served as ${mapping.protocol}, not ${protocol}`, port);
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
      log.error(`${field}.hostname`, problem, listener.hostname);
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
      log.error(`${field}.tls.mode`, 'only Terminate is supported for HTTPS listeners', mode);
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
    log.warning(`${field}.tls`, `is ignored for protocol ${protocol}`);
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

function markConflicts(listeners: ListenerDraft[], generation: number | undefined): void {
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

/**
 * Why `spec.infrastructure.parametersRef` refuses the Gateway, or undefined without one. No kind of
 * Gateway parameters is read here, so any reference is one the spec says to reject with
 * InvalidParameters: serving the Gateway without them would ignore what its owner asked for.
 */
function readParametersRef(raw: unknown, log: ProblemLog): string | undefined {
  const ref = objectOr<{ parametersRef: unknown }>(raw).parametersRef;
  if (ref === undefined || ref === null) return undefined;
  const { group, kind, name } = objectOr<{ group: unknown; kind: unknown; name: unknown }>(ref);
  const what = `${describeValue(group)}/${describeValue(kind)} ${describeValue(name)}`;
  const message = 'Gateway parameters are not supported; the Gateway is not served';
  log.error('spec.infrastructure.parametersRef', message, what);
  return `spec.infrastructure.parametersRef (${what}): ${message}`;
}

interface GatewayDraft extends Omit<EvaluatedGateway, 'listeners' | 'attachmentKey'> {
  listeners: ListenerDraft[];
  problems: ProblemLog;
}

function readGateway(
  gateway: GatewayLike,
  config: GatewayApiConfig,
  references: GatewayApiReferences,
  readCertificate: CertificateReader,
): GatewayDraft | undefined {
  const raw = objectOr<{ metadata: unknown; spec: unknown }>(gateway);
  const metadata = objectOr<{
    name: unknown;
    namespace: unknown;
    generation: unknown;
    creationTimestamp: unknown;
  }>(raw.metadata);
  const spec = objectOr<{ gatewayClassName: unknown; listeners: unknown; infrastructure: unknown }>(raw.spec);
  if (
    typeof spec.gatewayClassName !== 'string' ||
    !config.gatewayClassNames.includes(spec.gatewayClassName)
  ) {
    return undefined;
  }
  if (checkDnsLabel(metadata.namespace) !== undefined || checkDnsSubdomain(metadata.name) !== undefined) {
    return undefined;
  }
  const namespace = metadata.namespace as string;
  const name = metadata.name as string;
  const generation = generationOf(metadata.generation);
  const log = createProblemLog({ kind: 'Gateway', namespace, name });
  const listeners = arrayOr(spec.listeners).map((entry, index) =>
    evaluateListener(entry, index, { namespace, generation }, config, references, readCertificate, log),
  );
  markConflicts(listeners, generation);
  return {
    namespace,
    name,
    generation,
    createdAt: toMillis(metadata.creationTimestamp),
    listeners,
    invalidParameters: readParametersRef(spec.infrastructure, log),
    problems: log,
  };
}

function compareGateways(a: GatewayDraft, b: GatewayDraft): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return compareText(a.namespace, b.namespace) || compareText(a.name, b.name);
}

/** Several Gateways share the data plane: a hostname on a port belongs to the oldest Gateway. */
function markCrossGatewayConflicts(drafts: GatewayDraft[]): void {
  const owners = new Map<string, GatewayDraft>();
  for (const gateway of [...drafts].sort(compareGateways)) {
    // A refused Gateway serves nothing, so it keeps no hostname from the others.
    if (gateway.invalidParameters !== undefined) continue;
    for (const listener of gateway.listeners) {
      if (
        !listener.isAccepted ||
        listener.conflicted !== undefined ||
        listener.dataPlaneListener === undefined
      )
        continue;
      const key = `${listener.dataPlaneListener}\u0000${listener.hostname ?? ''}`;
      const owner = owners.get(key);
      if (owner === undefined || owner === gateway) {
        owners.set(key, gateway);
        continue;
      }
      listener.conflicted = createCondition(
        ConditionType.Conflicted,
        true,
        ListenerReason.HostnameConflict,
        `hostname "${listener.hostname ?? '*'}" on port ${listener.port} is served by the older Gateway ${owner.namespace}/${owner.name}`,
        gateway.generation,
      );
      gateway.problems.error(
        `spec.listeners[${listener.index}].hostname`,
        `conflicts with Gateway ${owner.namespace}/${owner.name}, which serves it on port ${listener.port}`,
        listener.hostname ?? '*',
      );
    }
  }
}

function attachmentKeyOf(listeners: readonly EvaluatedListener[]): string {
  return JSON.stringify(
    listeners.map((listener) => [
      listener.name,
      listener.port,
      listener.protocol,
      listener.hostname ?? null,
      listener.dataPlaneListener ?? null,
      listener.isReady,
      listener.notReadyMessage ?? null,
      listener.supportedKinds.map((kind) => kind.kind),
      listener.namespaces.from,
      listener.namespaces.from === 'Selector' ? listener.namespaces.key : null,
    ]),
  );
}

/**
 * Evaluates every Gateway of our classes (others are ignored): each listener's conditions, whether
 * routes can attach to it, the data-plane listener it is served on and its certificate. Listeners
 * of one Gateway that share a port with different protocols, or a port and hostname, are all
 * Conflicted; across Gateways, the oldest Gateway keeps a hostname on a port. Never throws.
 */
export function evaluateGateways(
  gateways: readonly GatewayLike[],
  references: GatewayApiReferences,
  config: GatewayApiConfig,
  readCertificate: CertificateReader = readSecretCertificate,
): GatewayEvaluation {
  const drafts: GatewayDraft[] = [];
  for (const gateway of gateways) {
    try {
      const draft = readGateway(gateway, config, references, readCertificate);
      if (draft !== undefined) drafts.push(draft);
    } catch {
      // Only a hostile object (a throwing getter) gets here; it is left out, the rest is served.
    }
  }
  markCrossGatewayConflicts(drafts);
  const result = new Map<string, EvaluatedGateway>();
  const problems: Problem[] = [];
  for (const draft of drafts.sort(compareGateways)) {
    const listeners: EvaluatedListener[] = draft.listeners.map((listener) => {
      const { isAccepted, hasCertificateProblem, ...evaluated } = listener;
      let notReadyMessage: string | undefined;
      let attachable = false;
      if (draft.invalidParameters !== undefined)
        notReadyMessage = `the Gateway is not accepted: ${draft.invalidParameters}`;
      else if (!isAccepted) notReadyMessage = listener.accepted.message;
      else if (listener.conflicted !== undefined) notReadyMessage = listener.conflicted.message;
      else if (listener.protocol === 'HTTPS' && listener.certificate === undefined) {
        notReadyMessage = hasCertificateProblem ? listener.resolvedRefs.message : 'no valid certificate';
        attachable = true;
      }
      const isReady = notReadyMessage === undefined;
      return { ...evaluated, isReady, notReadyMessage, attachable: isReady || attachable };
    });
    const { problems: log, ...gateway } = draft;
    result.set(`${draft.namespace}/${draft.name}`, {
      ...gateway,
      listeners,
      attachmentKey: attachmentKeyOf(listeners),
    });
    problems.push(...log.problems);
  }
  const listenerHostnames = new Map<string, string[]>();
  for (const gateway of result.values()) {
    for (const listener of gateway.listeners) {
      if (!listener.isReady || listener.hostname === undefined) continue;
      const names = listenerHostnames.get(listener.dataPlaneListener!) ?? [];
      if (!names.includes(listener.hostname)) names.push(listener.hostname);
      listenerHostnames.set(listener.dataPlaneListener!, names);
    }
  }
  for (const names of listenerHostnames.values()) names.sort(compareHostnames);
  const listenerHostnamesKey = JSON.stringify([...listenerHostnames].sort(([a], [b]) => compareText(a, b)));
  return { gateways: result, listenerHostnames, listenerHostnamesKey, problems };
}

/** The Gateway's Accepted condition: refused parameters, else whether its listeners are valid. */
function gatewayAccepted(gateway: EvaluatedGateway): ConditionDraft {
  const generation = gateway.generation;
  if (gateway.invalidParameters !== undefined) {
    return createCondition(
      ConditionType.Accepted,
      false,
      GatewayReason.InvalidParameters,
      gateway.invalidParameters,
      generation,
    );
  }
  const ready = gateway.listeners.filter((listener) => listener.isReady);
  const invalid = gateway.listeners.filter((listener) => !listener.isReady);
  if (invalid.length === 0 && ready.length > 0) {
    return createCondition(
      ConditionType.Accepted,
      true,
      GatewayReason.Accepted,
      'the Gateway is valid',
      generation,
    );
  }
  const message =
    invalid.length === 0
      ? 'the Gateway has no listeners'
      : `${ready.length > 0 ? `listeners ${ready.map((l) => l.name).join(', ')} are accepted; ` : 'no listener is valid; '}` +
        `not valid: ${invalid.map((l) => `${l.name} (${l.notReadyMessage ?? 'invalid'})`).join('; ')}`;
  return createCondition(
    ConditionType.Accepted,
    ready.length > 0,
    GatewayReason.ListenersNotValid,
    message,
    generation,
  );
}

/**
 * The status of an evaluated Gateway, given how many routes attached to each listener (by listener
 * name). Programmed is `Pending` for what can be served: markGatewayProgrammed settles it.
 */
export function buildGatewayStatus(
  gateway: EvaluatedGateway,
  attachedRoutes: ReadonlyMap<string, number>,
): GatewayStatusDraft {
  const generation = gateway.generation;
  const listeners: ListenerStatusDraft[] = gateway.listeners.map((listener) => ({
    name: listener.name,
    supportedKinds: listener.supportedKinds,
    attachedRoutes: attachedRoutes.get(listener.name) ?? 0,
    conditions: [
      listener.accepted,
      listener.conflicted ??
        createCondition(
          ConditionType.Conflicted,
          false,
          ListenerReason.NoConflicts,
          'no conflicts',
          generation,
        ),
      listener.resolvedRefs,
      listener.isReady
        ? createCondition(
            ConditionType.Programmed,
            false,
            ListenerReason.Pending,
            'waiting for the data plane',
            generation,
          )
        : createCondition(
            ConditionType.Programmed,
            false,
            ListenerReason.Invalid,
            listener.notReadyMessage ?? 'invalid',
            generation,
          ),
    ],
  }));
  const isAccepted = gateway.listeners.some((listener) => listener.isReady);
  const accepted = gatewayAccepted(gateway);
  const programmed = isAccepted
    ? createCondition(
        ConditionType.Programmed,
        false,
        GatewayReason.Pending,
        'waiting for the data plane',
        generation,
      )
    : createCondition(
        ConditionType.Programmed,
        false,
        GatewayReason.Invalid,
        gateway.invalidParameters === undefined
          ? 'the Gateway has no valid listener'
          : 'the Gateway is not accepted',
        generation,
      );
  return { conditions: [accepted, programmed], listeners };
}
