/**
 * How a store is set up: the options a caller passes, and the settings every part of the store
 * reads, with each default decided here once.
 */
import { type LabelRequirement, parseLabelSelector, SelectorSyntaxError } from '@ingresskit/kube-objects';
import { type BackoffPolicy, type Clock, systemClock } from '@ingresskit/task-queue';
import { StoreConfigError } from './errors.js';
import type { StoredShapeOptions } from './normalize.js';
import type { OwnerClass } from './state.js';
import {
  allKinds,
  coreKinds,
  optInKinds,
  optionalKinds,
  type ResourceKind,
  resourceTypes,
} from './resources.js';
import type { ResourceClient } from './api-client.js';

/** How a store is set up; every field is optional. */
export interface StoreOptions {
  /** Namespaces to mirror (one list+watch per namespace and kind); all namespaces when empty or unset. */
  readonly namespaces?: readonly string[];
  /** Kinds to mirror; default all. Optional kinds are mirrored only while their CRD exists. */
  readonly kinds?: readonly ResourceKind[];
  /**
   * A label selector of Namespaces (`team=a`, `env in (prod,staging)`, `!legacy`): objects of
   * `namespaceSelectorKinds` are kept only while their Namespace's labels match it. The store then
   * also watches Namespaces; every namespace is still listed and watched, and the store filters
   * (as ingress-nginx does). Empty or unset: no filtering.
   */
  readonly namespaceSelector?: string;
  /** The kinds `namespaceSelector` filters (default every namespaced kind). */
  readonly namespaceSelectorKinds?: readonly ResourceKind[];
  /** A label selector per kind, applied by the server to lists and watches. */
  readonly labelSelectors?: Partial<Record<ResourceKind, string>>;
  /** A field selector per kind, e.g. `{ Secret: 'type!=helm.sh/release.v1' }` on a real cluster. */
  readonly fieldSelectors?: Partial<Record<ResourceKind, string>>;
  /** Annotations whose value names a Secret an Ingress depends on (default: ingress-nginx's auth/TLS ones). */
  readonly secretAnnotations?: readonly string[];
  /** Keep every Secret whole instead of only referenced ones. */
  readonly keepAllSecrets?: boolean;
  /**
   * Whether an IngressClass or GatewayClass belongs to another controller: an Ingress or Gateway
   * naming such a class (`spec.ingressClassName`, `spec.gatewayClassName`) does not make the store
   * keep the Secrets it references. Unset: every class may be this controller's.
   */
  readonly isForeignClass?: (ownerClass: OwnerClass) => boolean;
  /** Keys (`namespace/name`) of Secrets to keep whatever their type, e.g. the default certificate. */
  readonly keepSecrets?: readonly string[];
  /** Keep `metadata.managedFields` (dropped by default to save memory). */
  readonly keepManagedFields?: boolean;
  /** Deep-freeze stored objects (default true). */
  readonly freezeObjects?: boolean;
  /** Keep every field of Services and EndpointSlices, not only those a controller reads (default false). */
  readonly keepAllFields?: boolean;
  /** Items per list page (default 500; 0 lists in one request). */
  readonly pageSize?: number;

  /** Retry delays after failures (default 500 ms doubling to 30 s, 20 % jitter). */
  readonly backoff?: Partial<BackoffPolicy>;
  /** An informer unable to list or watch for this long is stale (default 60 s). */
  readonly staleAfterMs?: number;
  /** Range of `timeoutSeconds` asked of the server per watch (default 300–600 s, as client-go). */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** Cut a watch silent for this long and resume it (default 30 s, client-node's default). */
  readonly watchInactivityTimeoutMs?: number;
  /** Parallel Secret reads when Secrets become referenced (default 4). */
  readonly secretFetchConcurrency?: number;
  /** Time source for backoff and staleness (default the system clock). */
  readonly clock?: Clock;
  /** Randomness for jitter and watch timeouts (default Math.random). */
  readonly random?: () => number;
  /** Replaces the client built from the kube config (for tests). */
  readonly client?: ResourceClient;
}

/** The store's default retry delays: 500 ms doubling up to 30 s, plus up to 20 % jitter. */
export const defaultBackoff: BackoffPolicy = { initialMs: 500, maxMs: 30_000, jitter: 0.2 };

/** StoreOptions with every default filled in: what the store's parts read. */
export interface StoreSettings {
  readonly clock: Clock;
  readonly random: () => number;
  readonly backoff: BackoffPolicy;
  readonly staleAfterMs: number;
  /** Kinds to mirror, never CustomResourceDefinition (the store watches CRDs only to follow optional kinds). */
  readonly kinds: ReadonlySet<ResourceKind>;
  /** One entry per list+watch scope of a namespaced kind; `[undefined]` for all namespaces. */
  readonly namespaces: readonly (string | undefined)[];
  readonly shapeOptions: StoredShapeOptions;
  readonly pageSize: number;
  /** Secrets are listed by their metadata only, and read whole when wanted (not with keepAllSecrets). */
  readonly metadataOnlySecretLists: boolean;
  readonly watchTimeoutSeconds: readonly [number, number];
  readonly secretFetchConcurrency: number;
  readonly labelSelectors: Partial<Record<ResourceKind, string>> | undefined;
  readonly fieldSelectors: Partial<Record<ResourceKind, string>> | undefined;
  /** The parsed `namespaceSelector` and the kinds it filters; undefined when nothing is filtered. */
  readonly namespaceSelector:
    | { readonly requirements: readonly LabelRequirement[]; readonly kinds: ReadonlySet<ResourceKind> }
    | undefined;
}

const defaultKinds: readonly ResourceKind[] = [...coreKinds, ...optionalKinds].filter(
  (kind) => !optInKinds.includes(kind),
);

/** Fills in the defaults of `options`; does not read the client or the Secret policy, which other parts own. */
export function resolveStoreSettings(options: StoreOptions): StoreSettings {
  const namespaceSelector = resolveNamespaceSelector(options);
  const kinds = (options.kinds ?? defaultKinds).filter((kind) => kind !== 'CustomResourceDefinition');
  if (namespaceSelector !== undefined) kinds.push('Namespace');
  return {
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    backoff: { ...defaultBackoff, ...options.backoff },
    staleAfterMs: options.staleAfterMs ?? 60_000,
    kinds: new Set(kinds),
    namespaces:
      options.namespaces && options.namespaces.length > 0 ? [...new Set(options.namespaces)] : [undefined],
    shapeOptions: {
      keepManagedFields: options.keepManagedFields,
      freeze: options.freezeObjects,
      keepAllFields: options.keepAllFields,
    },
    pageSize: options.pageSize ?? 500,
    metadataOnlySecretLists: options.keepAllSecrets !== true,
    watchTimeoutSeconds: options.watchTimeoutSeconds ?? [300, 600],
    secretFetchConcurrency: options.secretFetchConcurrency ?? 4,
    labelSelectors: options.labelSelectors,
    fieldSelectors: options.fieldSelectors,
    namespaceSelector,
  };
}

/** Parses `namespaceSelector`; throws StoreConfigError when it does not parse. */
function resolveNamespaceSelector(options: StoreOptions): StoreSettings['namespaceSelector'] {
  const selector = options.namespaceSelector?.trim() ?? '';
  if (selector === '') return undefined;
  let requirements: LabelRequirement[];
  try {
    requirements = parseLabelSelector(selector);
  } catch (error) {
    if (!(error instanceof SelectorSyntaxError)) throw error;
    throw new StoreConfigError(`namespaceSelector: ${error.message}`, { cause: error });
  }
  const kinds = options.namespaceSelectorKinds ?? allKinds;
  return { requirements, kinds: new Set(kinds.filter((kind) => resourceTypes[kind].namespaced)) };
}
