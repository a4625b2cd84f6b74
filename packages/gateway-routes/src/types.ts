/**
 * The shapes the Gateway API translation reads and returns.
 *
 * Input objects are typed structurally after the Gateway API v1 CRDs: `@kubernetes/client-node`
 * custom objects and plain JSON from a store or a manifest both fit without casts. Only the fields
 * read here are typed; each is checked at run time anyway, so a wrong shape becomes a condition or a
 * problem, never an exception.
 */
import type { KubeObjectLike, SecretLike, ServiceLike, StringMapLike } from '@ingresskit/kube-objects';
import type { Problem, RouteContribution } from '@ingresskit/route-model';

export type {
  KubeObjectLike,
  ObjectMetaLike,
  SecretLike,
  ServiceLike,
  StringMapLike,
  Timestamp,
} from '@ingresskit/kube-objects';

/** A label selector (`matchLabels` and `matchExpressions`, ANDed). */
export interface LabelSelectorLike {
  readonly matchLabels?: StringMapLike | null | undefined;
  readonly matchExpressions?:
    | readonly {
        readonly key?: string | null | undefined;
        readonly operator?: string | null | undefined;
        readonly values?: readonly string[] | null | undefined;
      }[]
    | null
    | undefined;
}

/** A route kind a listener allows (`group` defaults to `gateway.networking.k8s.io`). */
export interface RouteGroupKindLike {
  readonly group?: string | null | undefined;
  readonly kind?: string | null | undefined;
}

/** A reference to a Secret (or another object) from a Gateway listener's TLS config. */
export interface SecretObjectReferenceLike {
  readonly group?: string | null | undefined;
  readonly kind?: string | null | undefined;
  readonly name?: string | null | undefined;
  readonly namespace?: string | null | undefined;
}

/** One listener of a Gateway. */
export interface ListenerLike {
  readonly name?: string | null | undefined;
  readonly hostname?: string | null | undefined;
  readonly port?: number | null | undefined;
  readonly protocol?: string | null | undefined;
  readonly tls?:
    | {
        readonly mode?: string | null | undefined;
        readonly certificateRefs?: readonly SecretObjectReferenceLike[] | null | undefined;
        readonly options?: unknown;
      }
    | null
    | undefined;
  readonly allowedRoutes?:
    | {
        readonly namespaces?:
          | {
              readonly from?: string | null | undefined;
              readonly selector?: LabelSelectorLike | null | undefined;
            }
          | null
          | undefined;
        readonly kinds?: readonly RouteGroupKindLike[] | null | undefined;
      }
    | null
    | undefined;
}

/** A gateway.networking.k8s.io/v1 Gateway as read here. */
export interface GatewayLike extends KubeObjectLike {
  readonly spec?:
    | {
        readonly gatewayClassName?: string | null | undefined;
        readonly listeners?: readonly ListenerLike[] | null | undefined;
        readonly addresses?: unknown;
        readonly infrastructure?: unknown;
        readonly tls?: unknown;
      }
    | null
    | undefined;
  readonly status?: unknown;
}

/** A parentRef of a route. */
export interface ParentReferenceLike {
  readonly group?: string | null | undefined;
  readonly kind?: string | null | undefined;
  readonly namespace?: string | null | undefined;
  readonly name?: string | null | undefined;
  readonly sectionName?: string | null | undefined;
  readonly port?: number | null | undefined;
}

/** A header or query parameter condition of an HTTPRoute match. */
export interface HTTPValueMatchLike {
  readonly type?: string | null | undefined;
  readonly name?: string | null | undefined;
  readonly value?: string | null | undefined;
}

/** One match of an HTTPRoute rule. */
export interface HTTPRouteMatchLike {
  readonly path?:
    | { readonly type?: string | null | undefined; readonly value?: string | null | undefined }
    | null
    | undefined;
  readonly headers?: readonly HTTPValueMatchLike[] | null | undefined;
  readonly queryParams?: readonly HTTPValueMatchLike[] | null | undefined;
  readonly method?: string | null | undefined;
}

/** A header to set or add. */
export interface HTTPHeaderLike {
  readonly name?: string | null | undefined;
  readonly value?: string | null | undefined;
}

/** The RequestHeaderModifier and ResponseHeaderModifier filters. */
export interface HTTPHeaderFilterLike {
  readonly set?: readonly HTTPHeaderLike[] | null | undefined;
  readonly add?: readonly HTTPHeaderLike[] | null | undefined;
  readonly remove?: readonly string[] | null | undefined;
}

/** The path part of RequestRedirect and URLRewrite. */
export interface HTTPPathModifierLike {
  readonly type?: string | null | undefined;
  readonly replaceFullPath?: string | null | undefined;
  readonly replacePrefixMatch?: string | null | undefined;
}

/** One filter of an HTTPRoute rule (or of a backendRef). */
export interface HTTPRouteFilterLike {
  readonly type?: string | null | undefined;
  readonly requestHeaderModifier?: HTTPHeaderFilterLike | null | undefined;
  readonly responseHeaderModifier?: HTTPHeaderFilterLike | null | undefined;
  readonly requestRedirect?:
    | {
        readonly scheme?: string | null | undefined;
        readonly hostname?: string | null | undefined;
        readonly path?: HTTPPathModifierLike | null | undefined;
        readonly port?: number | null | undefined;
        readonly statusCode?: number | null | undefined;
      }
    | null
    | undefined;
  readonly urlRewrite?:
    | {
        readonly hostname?: string | null | undefined;
        readonly path?: HTTPPathModifierLike | null | undefined;
      }
    | null
    | undefined;
  readonly requestMirror?: unknown;
  readonly extensionRef?: unknown;
  readonly cors?: unknown;
  readonly externalAuth?: unknown;
}

/** One backendRef of an HTTPRoute rule. */
export interface HTTPBackendRefLike {
  readonly group?: string | null | undefined;
  readonly kind?: string | null | undefined;
  readonly name?: string | null | undefined;
  readonly namespace?: string | null | undefined;
  readonly port?: number | null | undefined;
  /** 1 when absent. */
  readonly weight?: number | null | undefined;
  readonly filters?: readonly HTTPRouteFilterLike[] | null | undefined;
}

/** One rule of an HTTPRoute. */
export interface HTTPRouteRuleLike {
  readonly name?: string | null | undefined;
  readonly matches?: readonly HTTPRouteMatchLike[] | null | undefined;
  readonly filters?: readonly HTTPRouteFilterLike[] | null | undefined;
  readonly backendRefs?: readonly HTTPBackendRefLike[] | null | undefined;
  readonly timeouts?:
    | { readonly request?: string | null | undefined; readonly backendRequest?: string | null | undefined }
    | null
    | undefined;
  readonly retry?: unknown;
  readonly sessionPersistence?: unknown;
}

/** A gateway.networking.k8s.io/v1 HTTPRoute as read here. */
export interface HTTPRouteLike extends KubeObjectLike {
  readonly spec?:
    | {
        readonly parentRefs?: readonly ParentReferenceLike[] | null | undefined;
        readonly hostnames?: readonly string[] | null | undefined;
        readonly rules?: readonly HTTPRouteRuleLike[] | null | undefined;
      }
    | null
    | undefined;
  readonly status?: unknown;
}

/** A ReferenceGrant (v1 or v1beta1): who may refer to what in its namespace. */
export interface ReferenceGrantLike extends KubeObjectLike {
  readonly spec?:
    | {
        readonly from?:
          | readonly {
              readonly group?: string | null | undefined;
              readonly kind?: string | null | undefined;
              readonly namespace?: string | null | undefined;
            }[]
          | null
          | undefined;
        readonly to?:
          | readonly {
              readonly group?: string | null | undefined;
              readonly kind?: string | null | undefined;
              readonly name?: string | null | undefined;
            }[]
          | null
          | undefined;
      }
    | null
    | undefined;
}

/** A v1 Namespace: its labels are what listener `allowedRoutes` selectors see. */
export type NamespaceLike = KubeObjectLike;

/**
 * The objects the translation looks up by name. Each returns undefined for an object that does not
 * exist (or is not visible to the controller).
 */
export interface GatewayApiReferences {
  service(namespace: string, name: string): ServiceLike | undefined;
  secret(namespace: string, name: string): SecretLike | undefined;
  namespace(name: string): NamespaceLike | undefined;
  /** Every ReferenceGrant in `namespace` (the namespace of the objects referred to). */
  referenceGrants(namespace: string): readonly ReferenceGrantLike[];
}

/**
 * A Gateway port the data plane serves: Gateway listeners on `port` with protocol `protocol` are
 * served on the route-model listener named `listener`. Listeners on other ports are not accepted.
 */
export interface PortMapping {
  port: number;
  protocol: 'HTTP' | 'HTTPS';
  /** The name of a route-model `Listener` of the table (e.g. `http`, `https`). */
  listener: string;
}

/** What the caller decides once: who we are, which classes are ours, which ports we serve. */
export interface GatewayApiConfig {
  /** Written into every HTTPRoute parent status, e.g. `ingresskit.dev/gateway-controller`. */
  controllerName: string;
  /** Names of the GatewayClasses that are ours and accepted; Gateways of other classes are ignored. */
  gatewayClassNames: readonly string[];
  ports: readonly PortMapping[];
  /**
   * Listener isolation (a request goes to the routes of the most specific listener hostname that
   * covers it) across the Gateways of one namespace only, where the table decides between
   * namespaces by host ownership: another namespace's listener hostname must not take a name from
   * a route. Across every Gateway when false or absent (they share the data plane's address).
   */
  isolateListenersByNamespace?: boolean;
}

/** A status condition as the translation decides it; the writer adds `lastTransitionTime`. */
export interface ConditionDraft {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
}

/** A route kind, as listed in a listener's `supportedKinds`. */
export interface RouteGroupKind {
  group: string;
  kind: string;
}

/** The status of one listener. */
export interface ListenerStatusDraft {
  name: string;
  supportedKinds: RouteGroupKind[];
  attachedRoutes: number;
  conditions: ConditionDraft[];
}

/** The status of one Gateway, without `addresses` (the caller publishes those). */
export interface GatewayStatusDraft {
  conditions: ConditionDraft[];
  listeners: ListenerStatusDraft[];
}

/** A parentRef as written back in a route's status (defaults filled in). */
export interface ParentReference {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  sectionName?: string;
  port?: number;
}

/** One entry of `status.parents` of an HTTPRoute: the parts this controller owns. */
export interface RouteParentStatusDraft {
  parentRef: ParentReference;
  controllerName: string;
  conditions: ConditionDraft[];
}

/** The status to write into one Gateway. */
export interface GatewayStatusEntry {
  namespace: string;
  name: string;
  status: GatewayStatusDraft;
  /**
   * The hostname of each listener of `status.listeners`, in order (undefined: none), for
   * markListenersOwnedElsewhere; not part of the status written.
   */
  listenerHostnames?: (string | undefined)[];
}

/** The parent statuses to write into one HTTPRoute (entries of other controllers are left alone). */
export interface HTTPRouteStatusEntry {
  namespace: string;
  name: string;
  parents: RouteParentStatusDraft[];
}

/** Everything translateGatewayApi reads, as lists (a store snapshot). */
export interface GatewayApiObjects {
  gateways: readonly GatewayLike[];
  httpRoutes: readonly HTTPRouteLike[];
  referenceGrants?: readonly ReferenceGrantLike[];
  services?: readonly ServiceLike[];
  secrets?: readonly SecretLike[];
  namespaces?: readonly NamespaceLike[];
}

/** What translateGatewayApi returns. */
export interface GatewayApiTranslation {
  /**
   * One contribution per served Gateway (its TLS claims and listener hostnames) and per HTTPRoute
   * that attached somewhere, keyed by source (`Gateway/ns/name`, `HTTPRoute/ns/name`), sorted by key.
   */
  routes: RouteContribution[];
  statuses: { gateways: GatewayStatusEntry[]; httpRoutes: HTTPRouteStatusEntry[] };
  /** What could not be served as written, per object and field. */
  problems: Problem[];
}
