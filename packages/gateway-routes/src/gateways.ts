/**
 * Gateways → the listeners we serve. Every Gateway of one of our GatewayClasses is read with its
 * listeners (listeners.ts). Listeners of all our Gateways share the data plane's ports, so conflicts
 * across Gateways, and which listeners are ready, are decided here over all of them together.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import { compareHostnames, createProblemLog, describeValue, type Problem } from '@ingresskit/route-model';
import { readSecretCertificate } from './certificates.js';
import type { CertificateReader } from './certificate-refs.js';
import { ConditionType, createCondition, ListenerReason } from './conditions.js';
import {
  arrayOr,
  checkDnsLabel,
  checkDnsSubdomain,
  compareText,
  generationOf,
  objectOr,
  toMillis,
} from './grammar.js';
import { type EvaluatedListener, evaluateListener, type ListenerDraft, markConflicts } from './listeners.js';
import type { GatewayApiConfig, GatewayApiReferences, GatewayLike } from './types.js';
import type { GatewayApiProblemCode, GatewayApiProblemLog } from './problem-codes.js';

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
   * The hostnames of the ready listeners of every Gateway, per data-plane listener (and per
   * namespace with `isolateListenersByNamespace`; see isolationKey): a request is served by the
   * routes of the most specific listener hostname that covers it (listener isolation).
   */
  listenerHostnames: ReadonlyMap<string, readonly string[]>;
  /** Whether `listenerHostnames` is per namespace too. */
  isolatesByNamespace: boolean;
  /** A string equal for two evaluations exactly when `listenerHostnames` is; a memo key for routes. */
  listenerHostnamesKey: string;
  problems: Problem[];
}
/**
 * Why `spec.infrastructure.parametersRef` refuses the Gateway, or undefined without one. No kind of
 * Gateway parameters is read here, so any reference is one the spec says to reject with
 * InvalidParameters: serving the Gateway without them would ignore what its owner asked for.
 */
function readParametersRef(raw: unknown, log: GatewayApiProblemLog): string | undefined {
  const ref = objectOr<{ parametersRef: unknown }>(raw).parametersRef;
  if (ref === undefined || ref === null) return undefined;
  const { group, kind, name } = objectOr<{ group: unknown; kind: unknown; name: unknown }>(ref);
  const what = `${describeValue(group)}/${describeValue(kind)} ${describeValue(name)}`;
  const message = 'Gateway parameters are not supported; the Gateway is not served';
  log.error('invalid-parameters-ref', 'spec.infrastructure.parametersRef', message, what);
  return `spec.infrastructure.parametersRef (${what}): ${message}`;
}

interface GatewayDraft extends Omit<EvaluatedGateway, 'listeners' | 'attachmentKey'> {
  listeners: ListenerDraft[];
  problems: GatewayApiProblemLog;
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
  const log = createProblemLog<GatewayApiProblemCode>({ kind: 'Gateway', namespace, name });
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
        'hostname-conflict',
        `spec.listeners[${listener.index}].hostname`,
        `conflicts with Gateway ${owner.namespace}/${owner.name}, which serves it on port ${listener.port}`,
        listener.hostname ?? '*',
      );
    }
  }
}

/** The key of `listenerHostnames` for a listener on `dataPlaneListener` of a Gateway in `namespace`. */
export function isolationKey(dataPlaneListener: string, namespace: string, byNamespace: boolean): string {
  return byNamespace ? `${dataPlaneListener}\u0000${namespace}` : dataPlaneListener;
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
    result.set(namespacedKey(draft.namespace, draft.name), {
      ...gateway,
      listeners,
      attachmentKey: attachmentKeyOf(listeners),
    });
    problems.push(...log.problems);
  }
  const isolatesByNamespace = config.isolateListenersByNamespace === true;
  const listenerHostnames = new Map<string, string[]>();
  for (const gateway of result.values()) {
    for (const listener of gateway.listeners) {
      if (!listener.isReady || listener.hostname === undefined) continue;
      const key = isolationKey(listener.dataPlaneListener!, gateway.namespace, isolatesByNamespace);
      const names = listenerHostnames.get(key) ?? [];
      if (!names.includes(listener.hostname)) names.push(listener.hostname);
      listenerHostnames.set(key, names);
    }
  }
  for (const names of listenerHostnames.values()) names.sort(compareHostnames);
  const listenerHostnamesKey = JSON.stringify([...listenerHostnames].sort(([a], [b]) => compareText(a, b)));
  return { gateways: result, listenerHostnames, isolatesByNamespace, listenerHostnamesKey, problems };
}
