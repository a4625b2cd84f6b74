/**
 * One HTTPRoute → its route-model contribution and its parent statuses. A pure function of the
 * route, the Gateways it names (as evaluateGateways saw them), the Services, ReferenceGrants and
 * namespace labels it reads; a controller re-translates a route only when one of those changed.
 */
import {
  createProblemLog,
  describeValue,
  type HostContribution,
  type Problem,
  type ProblemLog,
  type Route,
  type RouteContribution,
  type SourceRef,
} from '@ingresskit/route-model';
import { ConditionType, createCondition, RouteReason } from './conditions.js';
import { HTTP_ROUTE_KIND } from './allowed-routes.js';
import type { EvaluatedGateway, GatewayEvaluation } from './gateways.js';
import type { EvaluatedListener } from './listeners.js';
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
import { intersectHostnames, isolateHostnames } from './hostnames.js';
import { GATEWAY_GROUP } from './reference-grants.js';
import { translateRules, type TranslatedRules } from './rules.js';
import type {
  ConditionDraft,
  GatewayApiConfig,
  GatewayApiReferences,
  HTTPRouteLike,
  ParentReference,
  RouteParentStatusDraft,
} from './types.js';

/** A listener a route attached to, and the hostnames it serves there. */
export interface ListenerAttachment {
  /** `namespace/name` of the Gateway. */
  gateway: string;
  listener: string;
  dataPlaneListener: string;
  hostnames: string[];
}

/** What translateHTTPRoute returns for one HTTPRoute. */
export interface HTTPRouteTranslation {
  source: SourceRef;
  /**
   * The route's virtual-host routes, on the hostnames and data-plane listeners it attached to;
   * undefined when it attached nowhere (a builder should then drop its earlier contribution).
   */
  contribution: RouteContribution | undefined;
  /** One entry per parentRef that names one of our Gateways. */
  parents: RouteParentStatusDraft[];
  problems: Problem[];
  /** The listeners it attached to (for attachedRoutes and hostname-less HTTPS listeners' certificates). */
  attachments: ListenerAttachment[];
  /** What the translation read, for memoising and for mapping changes to routes. */
  references: {
    /** `namespace/name` of the Gateways its parentRefs name (ours or not). */
    gateways: string[];
    /** `namespace/name` of the Services its backendRefs name. */
    services: string[];
    /** Namespaces whose ReferenceGrants it consulted. */
    referenceGrantNamespaces: string[];
    /** Its own namespace, when a listener's selector read its labels. */
    namespaceLabels: string[];
  };
}

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

interface ParentDecision {
  ref: ParentReference;
  gateway: EvaluatedGateway;
  attached: { listener: EvaluatedListener; hostnames: string[] }[];
  reason: string;
  message: string;
}

function decideParent(
  ref: ParentReference,
  gateway: EvaluatedGateway,
  routeNamespace: string,
  routeHostnames: readonly string[] | undefined,
  references: GatewayApiReferences,
  listenerHostnames: GatewayEvaluation['listenerHostnames'],
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
            listenerHostnames.get(listener.dataPlaneListener!) ?? [],
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

function readParentRef(raw: unknown, routeNamespace: string): ParentReference | undefined {
  const ref = objectOr<{
    group: unknown;
    kind: unknown;
    namespace: unknown;
    name: unknown;
    sectionName: unknown;
    port: unknown;
  }>(raw);
  const group = ref.group ?? GATEWAY_GROUP;
  const kind = ref.kind ?? 'Gateway';
  // A parentRef to anything else (a Service of a mesh, another kind) belongs to another controller.
  if (group !== GATEWAY_GROUP || kind !== 'Gateway' || typeof ref.name !== 'string') return undefined;
  const parent: ParentReference = {
    group,
    kind,
    namespace: optionalString(ref.namespace) ?? routeNamespace,
    name: ref.name,
  };
  const sectionName = optionalString(ref.sectionName);
  if (sectionName !== undefined) parent.sectionName = sectionName;
  if (isPortNumber(ref.port)) parent.port = ref.port;
  return parent;
}

function readRouteHostnames(raw: unknown, log: ProblemLog): string[] | undefined {
  const list = arrayOr(raw);
  const valid: string[] = [];
  for (const [index, hostname] of list.entries()) {
    const problem = checkHostname(hostname);
    if (problem === undefined) valid.push(hostname as string);
    else log.error(`spec.hostnames[${index}]`, `${problem}; the hostname is not served`, hostname);
  }
  if (list.length > 0 && valid.length === 0) return undefined;
  return valid;
}

function buildContribution(
  source: SourceRef,
  createdAt: number,
  decisions: readonly ParentDecision[],
  rules: TranslatedRules,
): RouteContribution | undefined {
  const listenersByHostname = new Map<string, Set<string>>();
  for (const decision of decisions) {
    for (const { listener, hostnames } of decision.attached) {
      // A listener without its certificate counts the route but serves nothing.
      if (!listener.isReady) continue;
      for (const hostname of hostnames) {
        const set = listenersByHostname.get(hostname) ?? new Set<string>();
        set.add(listener.dataPlaneListener!);
        listenersByHostname.set(hostname, set);
      }
    }
  }
  if (listenersByHostname.size === 0) return undefined;
  const prefix = `${HTTP_ROUTE_KIND}/${source.namespace}/${source.name}`;
  const hosts: HostContribution[] = [...listenersByHostname.keys()].sort(compareText).map((hostname) => {
    const listeners = [...listenersByHostname.get(hostname)!].sort(compareText);
    const routes = rules.matches.map((entry): Route => ({
      id: JSON.parse(JSON.stringify(`${prefix}/r${entry.index[0]}/m${entry.index[1]}@${hostname}`)) as string,
      origin: {
        kind: HTTP_ROUTE_KIND,
        namespace: source.namespace,
        name: source.name,
        createdAt,
        index: entry.index,
        field: entry.field,
      },
      match: entry.match,
      action: entry.action,
      policy: entry.policy,
      listeners,
    }));
    return { hostname, wildcard: 'suffix', routes };
  });
  return { source: { ...source }, hosts, tls: [] };
}

function parentConditions(
  decision: ParentDecision,
  rules: TranslatedRules,
  generation: number | undefined,
): ConditionDraft[] {
  const conditions: ConditionDraft[] = [];
  const allRulesInvalid = rules.ruleCount > 0 && rules.invalidRules.length === rules.ruleCount;
  if (decision.reason !== RouteReason.Accepted) {
    conditions.push(
      createCondition(ConditionType.Accepted, false, decision.reason, decision.message, generation),
    );
  } else if (allRulesInvalid) {
    conditions.push(
      createCondition(
        ConditionType.Accepted,
        false,
        RouteReason.UnsupportedValue,
        `no rule can be served: ${rules.invalidRules.join('; ')}`,
        generation,
      ),
    );
  } else {
    conditions.push(
      createCondition(ConditionType.Accepted, true, RouteReason.Accepted, decision.message, generation),
    );
  }
  conditions.push(
    rules.refProblem === undefined
      ? createCondition(
          ConditionType.ResolvedRefs,
          true,
          RouteReason.ResolvedRefs,
          'all references are resolved',
          generation,
        )
      : createCondition(
          ConditionType.ResolvedRefs,
          false,
          rules.refProblem.reason,
          rules.refProblem.message,
          generation,
        ),
  );
  if (rules.invalidRules.length > 0 && !allRulesInvalid) {
    conditions.push(
      createCondition(
        ConditionType.PartiallyInvalid,
        true,
        RouteReason.UnsupportedValue,
        `rules left out: ${rules.invalidRules.join('; ')}`,
        generation,
      ),
    );
  }
  return conditions;
}

function emptyTranslation(source: SourceRef, problems: Problem[]): HTTPRouteTranslation {
  return {
    source,
    contribution: undefined,
    parents: [],
    problems,
    attachments: [],
    references: { gateways: [], services: [], referenceGrantNamespaces: [], namespaceLabels: [] },
  };
}

/**
 * Translates one HTTPRoute against the Gateways of `gateways`: for each parentRef naming one of
 * ours, which listeners it attaches to (allowed kinds and namespaces, intersecting hostnames) and
 * the Accepted and ResolvedRefs conditions; for the listeners it attached to, one host per
 * hostname with a route per rule match, served on the data-plane listeners of those listeners.
 * Invalid rules are left out (PartiallyInvalid); refused or missing backends answer 500 for their
 * share. Pure; never throws and never changes its input.
 */
export function translateHTTPRoute(
  route: HTTPRouteLike,
  gateways: GatewayEvaluation,
  references: GatewayApiReferences,
  config: GatewayApiConfig,
): HTTPRouteTranslation {
  let log = createProblemLog({ kind: HTTP_ROUTE_KIND, namespace: '', name: '' });
  try {
    const raw = objectOr<{ metadata: unknown; spec: unknown }>(route);
    const metadata = objectOr<{
      namespace: unknown;
      name: unknown;
      generation: unknown;
      creationTimestamp: unknown;
    }>(raw.metadata);
    const source: SourceRef = {
      kind: HTTP_ROUTE_KIND,
      namespace: describeValue(metadata.namespace) ?? '',
      name: describeValue(metadata.name) ?? '',
    };
    log = createProblemLog(source);
    if (checkDnsLabel(metadata.namespace) !== undefined || checkDnsSubdomain(metadata.name) !== undefined) {
      log.error('metadata', 'namespace and name must be RFC 1123 names; the HTTPRoute is not served');
      return emptyTranslation(source, log.problems);
    }
    const namespace = source.namespace;
    const generation = generationOf(metadata.generation);
    const spec = objectOr<{ parentRefs: unknown; hostnames: unknown; rules: unknown }>(raw.spec);
    const hostnames = readRouteHostnames(spec.hostnames, log);
    const gatewayKeys = new Set<string>();
    let readLabels = false;
    const decisions: ParentDecision[] = [];
    for (const entry of arrayOr(spec.parentRefs)) {
      const ref = readParentRef(entry, namespace);
      if (ref === undefined) continue;
      const key = `${ref.namespace}/${ref.name}`;
      gatewayKeys.add(key);
      const gateway = gateways.gateways.get(key);
      if (gateway === undefined) continue;
      decisions.push(
        decideParent(ref, gateway, namespace, hostnames, references, gateways.listenerHostnames, () => {
          readLabels = true;
        }),
      );
    }
    const rules = translateRules(spec.rules, namespace, references, log);
    const attachedAnywhere = decisions.some((decision) => decision.attached.length > 0);
    const served = attachedAnywhere && rules.invalidRules.length < rules.ruleCount;
    // Attachments count in attachedRoutes, also on a listener that lacks its certificate.
    const attachments: ListenerAttachment[] = served
      ? decisions.flatMap((decision) =>
          decision.attached.map(({ listener, hostnames: names }) => ({
            gateway: `${decision.gateway.namespace}/${decision.gateway.name}`,
            listener: listener.name,
            dataPlaneListener: listener.dataPlaneListener!,
            hostnames: names,
          })),
        )
      : [];
    return {
      source,
      contribution: served
        ? buildContribution(source, toMillis(metadata.creationTimestamp), decisions, rules)
        : undefined,
      parents: decisions.map((decision) => ({
        parentRef: decision.ref,
        controllerName: config.controllerName,
        conditions: parentConditions(decision, rules, generation),
      })),
      problems: log.problems,
      attachments,
      references: {
        gateways: [...gatewayKeys].sort(compareText),
        services: [...rules.services].sort(compareText),
        referenceGrantNamespaces: [...rules.grantNamespaces].sort(compareText),
        namespaceLabels: readLabels ? [namespace] : [],
      },
    };
  } catch (error) {
    // Only a hostile object (a throwing getter, a proxy) gets here; serving half of it could
    // expose what the other half restricts, so the whole route is left out.
    log.error(
      'spec',
      `could not be read: ${error instanceof Error ? error.message : String(error)}; the HTTPRoute is not served`,
    );
    return emptyTranslation(log.object, log.problems);
  }
}
