/** What the translation of one Ingress reads and collects, shared by its parts (rules, TLS). */
import type { RouteAction, RouteOrigin, RoutePolicy, SourceRef } from '@ingresskit/route-model';
import { flatString } from '@ingresskit/kube-objects';
import type { IngressReferences, IngressTranslationConfig } from './types.js';
import { type IngressAnnotations } from './annotation-types.js';
import type { IngressProblemLog } from './problem-codes.js';

/** The origin kind and route id prefix of everything an Ingress contributes. */
export const INGRESS_KIND = 'Ingress';

/** Everything the translation of one Ingress reads and collects. */
export interface Context {
  source: SourceRef;
  createdAt: number;
  annotations: IngressAnnotations;
  references: IngressReferences;
  config: IngressTranslationConfig;
  log: IngressProblemLog;
  secretsRead: Set<string>;
  /** `namespace/name` of the ConfigMaps read (auth-proxy-set-headers, custom-headers), found or not. */
  configMapsRead: Set<string>;
  services: Set<string>;
  /** With `now`: the earliest notAfter (ms) of the certificates read that have not expired yet. */
  expiresAt: number;
  /** The policy the annotations give every route, made once (see sharedPolicy). */
  policy?: RoutePolicy;
  /** The action of the routes to each backend id, made once per backend (see sharedAction). */
  actions?: Map<string, RouteAction>;
  /** The shared policy with a backend's default-backend policies, per backend id (addDefaultBackendPolicy). */
  backendPolicies?: Map<string, RoutePolicy>;
}

/**
 * Field paths and indexes, one copy each: `spec.rules[0].http.paths[1]` and `[0, 1]` are the
 * field and index of a route in nearly every Ingress, so thousands of routes share a few hundred
 * frozen copies instead of a string and an array each. Bounded, so that hostile Ingresses with
 * thousands of paths cannot grow it without end.
 */
const sharedFields = new Map<string, string>();
const sharedIndexes = new Map<string, number[]>();
const MAX_SHARED = 4096;

function shared<T>(cache: Map<string, T>, key: string, make: () => T): T {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const made = make();
  if (cache.size < MAX_SHARED) cache.set(key, made);
  return made;
}

/** What an Ingress path wrote, for the data plane's log: the path and the backend's Service port. */
export interface WrittenRoute {
  path: string;
  service: string;
  port: number | string;
}

/**
 * The origin of something the Ingress contributes, at `index` and `field` inside it; with
 * `written`, the path and Service port it names (ingress-nginx's $location_path, $service_name,
 * $service_port).
 */
export function originOf(
  context: Context,
  index: number[],
  field: string,
  written?: WrittenRoute,
): RouteOrigin {
  const { namespace, name } = context.source;
  const { createdAt } = context;
  const shareIndex = shared(sharedIndexes, index.join(), () => Object.freeze([...index]) as number[]);
  const shareField = shared(sharedFields, field, () => flatString(field));
  if (written === undefined)
    return { kind: INGRESS_KIND, namespace, name, createdAt, index: shareIndex, field: shareField };
  // One literal of every field: properties added afterwards would cost a backing store per route.
  return {
    kind: INGRESS_KIND,
    namespace,
    name,
    createdAt,
    index: shareIndex,
    field: shareField,
    path: written.path,
    service: written.service,
    servicePort: String(written.port),
  };
}
