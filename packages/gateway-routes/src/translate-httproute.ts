/**
 * One HTTPRoute → its route-model contribution and its parent statuses. A pure function of the
 * route, the Gateways it names (as evaluateGateways saw them), the Services, ReferenceGrants and
 * namespace labels it reads; a controller re-translates a route only when one of those changed.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import {
  createProblemLog,
  describeValue,
  type Problem,
  type RouteContribution,
  type SourceRef,
} from '@ingresskit/route-model';
import { HTTP_ROUTE_KIND } from './allowed-routes.js';
import type { GatewayEvaluation } from './gateways.js';
import {
  arrayOr,
  checkDnsLabel,
  checkDnsSubdomain,
  compareText,
  generationOf,
  objectOr,
  toMillis,
} from './grammar.js';
import { decideParent, type ParentDecision } from './parent-attachment.js';
import { buildParentConditions } from './parent-conditions.js';
import { readParentRef } from './parent-refs.js';
import { buildContribution } from './route-contribution.js';
import { readRouteHostnames } from './route-hostnames.js';
import { translateRules } from './rules.js';
import type {
  GatewayApiConfig,
  GatewayApiReferences,
  HTTPRouteLike,
  RouteParentStatusDraft,
} from './types.js';
import type { GatewayApiProblemCode } from './problem-codes.js';

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

function createEmptyTranslation(source: SourceRef, problems: Problem[]): HTTPRouteTranslation {
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
  let log = createProblemLog<GatewayApiProblemCode>({ kind: HTTP_ROUTE_KIND, namespace: '', name: '' });
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
    log = createProblemLog<GatewayApiProblemCode>(source);
    if (checkDnsLabel(metadata.namespace) !== undefined || checkDnsSubdomain(metadata.name) !== undefined) {
      log.error(
        'invalid-name',
        'metadata',
        'namespace and name must be RFC 1123 names; the HTTPRoute is not served',
      );
      return createEmptyTranslation(source, log.problems);
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
      const key = namespacedKey(ref.namespace, ref.name);
      gatewayKeys.add(key);
      const gateway = gateways.gateways.get(key);
      if (gateway === undefined) continue;
      decisions.push(
        decideParent(ref, gateway, namespace, hostnames, references, gateways, () => {
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
            gateway: namespacedKey(decision.gateway.namespace, decision.gateway.name),
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
        conditions: buildParentConditions(decision, rules, generation),
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
      'unreadable-object',
      'spec',
      `could not be read: ${error instanceof Error ? error.message : String(error)}; the HTTPRoute is not served`,
    );
    return createEmptyTranslation(log.object, log.problems);
  }
}
