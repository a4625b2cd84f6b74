/**
 * Gateway API objects as a contribution source of the route table the Ingresses feed. A store
 * change maps to the source keys of the Gateways and HTTPRoutes it names, or to ALL_GATEWAY_API
 * for what every one of them may read (Services, Secrets, ReferenceGrants, Namespaces, classes).
 * gateway-routes' translator reads the whole snapshot and memoises per HTTPRoute, so the keys
 * decide whether to translate, and the translator what: it translates again only the HTTPRoutes
 * whose inputs changed and keeps the very same contribution object for the others; only
 * contributions that are new (`!==`) or gone are passed on, so an unrelated route costs the table
 * nothing. No I/O: the statuses to write come out as data and the controller writes them once
 * nginx serves what they describe.
 */
import { namespacedKey, splitObjectKey } from '@ingresskit/kube-objects';
import { evaluateGatewayClass } from '@ingresskit/gateway-class';
import {
  createGatewayApiTranslator,
  type GatewayApiObjects,
  type GatewayApiTranslation,
  type GatewayApiTranslator,
  type PortMapping,
} from '@ingresskit/gateway-routes';
import { sourceKey, type Problem, type RouteContribution } from '@ingresskit/route-model';
import type {
  BackendView,
  ContributionSink,
  ContributionSource,
  SourceProblems,
} from '@ingresskit/route-table';
import type {
  ChangeEvent,
  ConfigMap,
  CustomResourceDefinition,
  GatewayClass,
  StoreSnapshot,
} from '@ingresskit/store';
import { isStatusOnlyChange, type StoreChange } from './store-change.js';

/** The key of a change every Gateway API object may read (a Service, a Secret, a class, ...). */
export const ALL_GATEWAY_API = '*';

/** What the Gateway API translation reads from the cluster. */
export interface GatewayApiView extends BackendView {
  gatewayClasses(): readonly GatewayClass[];
  customResourceDefinitions(): readonly CustomResourceDefinition[];
  configMap(key: string): ConfigMap | undefined;
  /** Gateways, HTTPRoutes, ReferenceGrants, Services, Secrets and Namespaces as lists. */
  gatewayApiObjects(): GatewayApiObjects;
}

/** How the translation changed the table's Gateway API contributions. */
export interface GatewayContributionChange {
  /** New or changed contributions (set them again). */
  set: RouteContribution[];
  /** Source keys whose contribution is gone. */
  removed: string[];
}

/** Options of {@link GatewayRouting}. */
export interface GatewayRoutingOptions {
  /** `--gateway-controller-name`. */
  controllerName: string;
  /**
   * Let HTTPRoutes share hostnames with Ingresses of other namespaces
   * (`--allow-cross-namespace-hosts`); see {@link tenantOf}.
   */
  allowCrossNamespaceHosts?: boolean | undefined;
  /** Wall clock in ms (GatewayClass evaluation stamps times it does not use here). */
  now: () => number;
}

/**
 * Gateway ports the data plane serves: 80 on its HTTP listener, 443 on its HTTPS listener, whatever
 * ports those listen on (a Gateway names the ports clients use; a Service maps them in front).
 */
export const GATEWAY_PORTS: readonly PortMapping[] = [
  { port: 80, protocol: 'HTTP', listener: 'http' },
  { port: 443, protocol: 'HTTPS', listener: 'https' },
];

/**
 * The Gateway API features this controller serves (gateway-routes' translation and the nginx data
 * plane together), as GatewayClass `status.supportedFeatures` publishes them: each has its upstream
 * conformance scenarios ported in test/gateway-api*.integration.test.ts (docs/gateway-api-conformance.md).
 */
export const SUPPORTED_GATEWAY_FEATURES: readonly string[] = [
  'Gateway',
  'HTTPRoute',
  'ReferenceGrant',
  'HTTPRouteQueryParamMatching',
  'HTTPRouteMethodMatching',
  'HTTPRouteResponseHeaderModification',
  'HTTPRoutePortRedirect',
  'HTTPRouteSchemeRedirect',
  'HTTPRoutePathRedirect',
  'HTTPRouteHostRewrite',
  'HTTPRoutePathRewrite',
  'HTTPRouteRequestTimeout',
  'HTTPRouteBackendTimeout',
  'HTTPRouteCORS',
  'HTTPRouteDestinationPortMatching',
  'HTTPRouteBackendProtocolWebSocket',
  'HTTPRouteNamedRouteRule',
  'HTTPRoute303RedirectStatusCode',
  'HTTPRoute307RedirectStatusCode',
  'HTTPRoute308RedirectStatusCode',
  'GatewayHTTPListenerIsolation',
  'HTTPRouteRequestMirror',
];

/** A translation of no Gateway API objects. */
export function emptyGatewayApiTranslation(): GatewayApiTranslation {
  return { routes: [], statuses: { gateways: [], httpRoutes: [] }, problems: [] };
}

/** Turns Gateway API changes into the contributions that changed and the statuses to write. */
export class GatewayRouting implements ContributionSource<GatewayApiView, StoreChange> {
  readonly #options: GatewayRoutingOptions;
  #classNames = '';
  #translator: GatewayApiTranslator | undefined;
  /** By source key: the translator's contribution and the tenant-stamped copy the table has. */
  #contributions = new Map<string, { translated: RouteContribution; served: RouteContribution }>();
  #last: GatewayApiTranslation = emptyGatewayApiTranslation();

  constructor(options: GatewayRoutingOptions) {
    this.#options = options;
  }

  /** The last translation: statuses (Programmed not settled yet) and problems. */
  get translation(): GatewayApiTranslation {
    return this.#last;
  }

  /** How many HTTPRoutes the last update translated rather than reused. */
  get lastTranslated(): number {
    return this.#translator?.lastTranslated ?? 0;
  }

  /** The Gateway API keys a store change affects; none when it changes nothing the translation reads. */
  keysOf({ event, snapshot }: StoreChange): string[] {
    switch (event.kind) {
      case 'Gateway':
      case 'HTTPRoute': {
        if (event.type === 'updated' && isStatusOnlyChange(event.oldObject, event.newObject)) return [];
        const { namespace = '', name } = splitObjectKey(event.key);
        return [sourceKey({ kind: event.kind, namespace, name })];
      }
      default:
        return isGatewayApiInput(event, snapshot) ? [ALL_GATEWAY_API] : [];
    }
  }

  /**
   * Translates the Gateway API objects of `view` again (memoised; `keys` only say that something
   * changed) and sets into `table` the contributions that changed, withdrawing those gone.
   */
  update(view: GatewayApiView, _keys: Iterable<string>, table: ContributionSink<GatewayApiView>): void {
    const change = this.translate(view);
    for (const key of change.removed) table.withdraw(view, key);
    // Also after removals alone: what they took of the budgets is given to others.
    table.update(
      view,
      change.set.map((contribution) => ({ source: contribution.source, contribution, isNewVersion: true })),
    );
  }

  /** The problems of the Gateway or HTTPRoute with source `key`: the translation's and `table`'s. */
  problemsOf(key: string, table: SourceProblems): Problem[] {
    const served = this.#contributions.get(key)?.served;
    const own = this.#last.problems.filter((problem) => sourceKey(problem.object) === key);
    return served === undefined ? own : [...own, ...table.problemsOf(served.source)];
  }

  /** The problems of the Gateways and HTTPRoutes a budget of `table` leaves out. */
  budgetProblems(table: { budgetProblemOf(object: Problem['object']): Problem | undefined }): Problem[] {
    const problems: Problem[] = [];
    for (const { served } of this.#contributions.values()) {
      const problem = table.budgetProblemOf(served.source);
      if (problem !== undefined) problems.push(problem);
    }
    return problems;
  }

  /** Translates the Gateway API objects of `view` again and returns the contributions that changed. */
  translate(view: GatewayApiView): GatewayContributionChange {
    const classNames = this.#acceptedClassNames(view);
    const joined = classNames.join('\n');
    // The translator's memo is per config: a class accepted or dropped (rare) starts a new one.
    if (this.#translator === undefined || joined !== this.#classNames) {
      this.#classNames = joined;
      this.#translator = createGatewayApiTranslator({
        controllerName: this.#options.controllerName,
        gatewayClassNames: classNames,
        ports: GATEWAY_PORTS,
        // Host ownership decides between namespaces: one's listener must not strip another's routes.
        isolateListenersByNamespace: this.#options.allowCrossNamespaceHosts !== true,
      });
    }
    const translation = this.#translator.translate(view.gatewayApiObjects());
    this.#last = translation;
    const tenants = this.#options.allowCrossNamespaceHosts === true ? undefined : tenantsOf(translation);
    const next = new Map<string, { translated: RouteContribution; served: RouteContribution }>();
    const change: GatewayContributionChange = { set: [], removed: [] };
    for (const translated of translation.routes) {
      const key = sourceKey(translated.source);
      const previous = this.#contributions.get(key);
      const tenant = tenants?.get(key);
      // The translator keeps an unchanged contribution identical (`===`).
      if (previous?.translated === translated && previous.served.tenant === tenant) {
        next.set(key, previous);
        continue;
      }
      const served = tenant === undefined ? translated : { ...translated, tenant };
      next.set(key, { translated, served });
      change.set.push(served);
    }
    for (const key of this.#contributions.keys()) if (!next.has(key)) change.removed.push(key);
    this.#contributions = next;
    return change;
  }

  /** Problems of the last translation (the statuses say the same), for the log. */
  problems(): readonly Problem[] {
    return this.#last.problems;
  }

  #acceptedClassNames(view: GatewayApiView): string[] {
    const now = new Date(this.#options.now());
    const crds = view.customResourceDefinitions();
    const names: string[] = [];
    for (const gatewayClass of view.gatewayClasses()) {
      // The same decision the leader's GatewayClass controller publishes, made from the same
      // objects, so every replica serves the classes the status says are accepted.
      const evaluation = evaluateGatewayClass(gatewayClass, {
        controllerName: this.#options.controllerName,
        now,
        customResourceDefinitions: crds,
        getParametersObject: (ref) =>
          ref.kind === 'ConfigMap' && ref.namespace !== undefined
            ? view.configMap(namespacedKey(ref.namespace, ref.name))
            : undefined,
      });
      if (evaluation?.accepted === true) names.push(gatewayClass.metadata.name);
    }
    return names.sort();
  }
}

/**
 * The host-ownership tenant of each contribution. Ingress hosts belong to the namespace of their
 * oldest Ingress (route-model's `oldest-tenant`); Gateway API sources would otherwise have none and
 * merge into any host, so a namespace that may create a Gateway of our class, or attach a route to
 * one, could add paths to a host another namespace serves through Ingresses. A Gateway is the
 * authority for the hostnames it accepts routes for, so a Gateway and the routes it accepted share
 * its namespace as tenant: routes of several namespaces attached to one Gateway still share
 * hostnames (the Gateway's owner allowed them in `allowedRoutes`), while an Ingress host older
 * than the Gateway's claim stays with its namespace. A route accepted by Gateways of several
 * namespaces (or by none yet) is its own namespace's tenant.
 */
export function tenantsOf(translation: GatewayApiTranslation): Map<string, string> {
  const tenants = new Map<string, string>();
  for (const { namespace, name } of translation.statuses.gateways) {
    tenants.set(sourceKey({ kind: 'Gateway', namespace, name }), namespace);
  }
  for (const { namespace, name, parents } of translation.statuses.httpRoutes) {
    const gatewayNamespaces = new Set(
      parents
        .filter((parent) => parent.conditions.some((c) => c.type === 'Accepted' && c.status === 'True'))
        .map((parent) => parent.parentRef.namespace),
    );
    const tenant = gatewayNamespaces.size === 1 ? [...gatewayNamespaces][0]! : namespace;
    tenants.set(sourceKey({ kind: 'HTTPRoute', namespace, name }), tenant);
  }
  return tenants;
}

/**
 * Whether the Gateway API translation reads what changed: its own kinds (not our status writes),
 * and, while there is something to translate, Services (backendRefs), TLS Secrets (listeners),
 * ReferenceGrants, Namespace labels (listener selectors), the Gateway API CRDs (class acceptance
 * reads their bundle version) and a ConfigMap a GatewayClass takes its parameters from.
 */
function isGatewayApiInput(event: ChangeEvent, snapshot: StoreSnapshot): boolean {
  switch (event.kind) {
    case 'GatewayClass':
      return event.type !== 'updated' || !isStatusOnlyChange(event.oldObject, event.newObject);
    case 'ReferenceGrant':
    case 'Service':
      return snapshot.httpRoutes.size > 0 || snapshot.gateways.size > 0;
    case 'Secret':
    case 'Namespace':
      return snapshot.gateways.size > 0;
    case 'CustomResourceDefinition':
      return (event.newObject ?? event.oldObject)?.spec.group === 'gateway.networking.k8s.io';
    case 'ConfigMap':
      return snapshot.gatewayClasses.list().some((gatewayClass) => {
        const ref = gatewayClass.spec?.parametersRef as
          { kind?: unknown; namespace?: unknown; name?: unknown } | undefined;
        return (
          ref?.kind === 'ConfigMap' &&
          typeof ref.namespace === 'string' &&
          typeof ref.name === 'string' &&
          namespacedKey(ref.namespace, ref.name) === event.key
        );
      });
    default:
      return false;
  }
}
