/**
 * One parentRef of an HTTPRoute against the Gateway it names: which listeners the route attaches
 * to (section and port, validity, allowed kinds and namespaces, shared hostnames), or why none.
 */
import { RouteReason } from './conditions.js';
import { HTTP_ROUTE_KIND } from './allowed-routes.js';
import { isolationKey, type EvaluatedGateway, type GatewayEvaluation } from './gateways.js';
import { objectOr } from './grammar.js';
import { intersectHostnames, isolateHostnames } from './hostnames.js';
import type { EvaluatedListener } from './listeners.js';
import type { GatewayApiReferences, ParentReference } from './types.js';

function isNamespaceAllowed(
  listener: EvaluatedListener,
  gateway: EvaluatedGateway,
  routeNamespace: string,
  references: GatewayApiReferences,
  readLabels: () => void,
): boolean {
  switch (listener.namespaces.from) {
    case 'All':
      return true;
    case 'Same':
      return routeNamespace === gateway.namespace;
    case 'None':
      return false;
    case 'Selector': {
      readLabels();
      const namespace = references.namespace(routeNamespace);
      const labels = objectOr<{ labels: unknown }>(
        objectOr<{ metadata: unknown }>(namespace).metadata,
      ).labels;
      const safe: Record<string, string> = {};
      for (const [key, value] of Object.entries(objectOr<Record<string, unknown>>(labels))) {
        if (typeof value === 'string') safe[key] = value;
      }
      return namespace !== undefined && listener.namespaces.matches(safe);
    }
  }
}

/** One parentRef's outcome: the listeners attached to, their hostnames, the Accepted reason. */
export interface ParentDecision {
  ref: ParentReference;
  gateway: EvaluatedGateway;
  attached: { listener: EvaluatedListener; hostnames: string[] }[];
  reason: string;
  message: string;
}

/**
 * Decides where a route attaches under one parentRef: every candidate listener that accepts it,
 * with the hostnames it serves there; `readLabels` is called when a listener read the namespace labels.
 */
export function decideParent(
  ref: ParentReference,
  gateway: EvaluatedGateway,
  routeNamespace: string,
  routeHostnames: readonly string[] | undefined,
  references: GatewayApiReferences,
  isolation: Pick<GatewayEvaluation, 'listenerHostnames' | 'isolatesByNamespace'>,
  readLabels: () => void,
): ParentDecision {
  const candidates = gateway.listeners.filter(
    (listener) =>
      (ref.sectionName === undefined || listener.name === ref.sectionName) &&
      (ref.port === undefined || listener.port === ref.port),
  );
  const decision = (reason: string, message: string): ParentDecision => ({
    ref,
    gateway,
    attached: [],
    reason,
    message,
  });
  if (candidates.length === 0) {
    const what = [
      ref.sectionName === undefined ? undefined : `sectionName "${ref.sectionName}"`,
      ref.port === undefined ? undefined : `port ${ref.port}`,
    ].filter((part) => part !== undefined);
    return decision(
      RouteReason.NoMatchingParent,
      `Gateway ${gateway.namespace}/${gateway.name} has no listener with ${what.join(' and ')}`,
    );
  }
  const attached: ParentDecision['attached'] = [];
  const refusals: string[] = [];
  let hostnameMismatch = false;
  for (const listener of candidates) {
    if (!listener.attachable) {
      refusals.push(`listener ${listener.name} is not valid: ${listener.notReadyMessage ?? 'invalid'}`);
      continue;
    }
    if (!listener.supportedKinds.some((kind) => kind.kind === HTTP_ROUTE_KIND)) {
      refusals.push(`listener ${listener.name} does not allow HTTPRoutes`);
      continue;
    }
    if (!isNamespaceAllowed(listener, gateway, routeNamespace, references, readLabels)) {
      refusals.push(`listener ${listener.name} does not allow routes from namespace ${routeNamespace}`);
      continue;
    }
    // A route whose every hostname was invalid has none left, and must not become "any hostname".
    const hostnames =
      routeHostnames === undefined
        ? []
        : isolateHostnames(
            listener.hostname,
            intersectHostnames(listener.hostname, routeHostnames),
            isolation.listenerHostnames.get(
              isolationKey(listener.dataPlaneListener!, gateway.namespace, isolation.isolatesByNamespace),
            ) ?? [],
          );
    if (hostnames.length === 0) {
      hostnameMismatch = true;
      refusals.push(
        `listener ${listener.name} (hostname ${listener.hostname ?? '*'}) shares no hostname with the route`,
      );
      continue;
    }
    attached.push({ listener, hostnames });
  }
  if (attached.length > 0) {
    return {
      ref,
      gateway,
      attached,
      reason: RouteReason.Accepted,
      message: `attached to ${attached.map((entry) => entry.listener.name).join(', ')}`,
    };
  }
  return decision(
    hostnameMismatch ? RouteReason.NoMatchingListenerHostname : RouteReason.NotAllowedByListeners,
    refusals.join('; '),
  );
}
