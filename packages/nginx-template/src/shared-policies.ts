/**
 * Route policies shared by reference. What a compiled route policy holds that does not depend on
 * the route itself (source lists, CORS, authentication, headers, limits, ...) goes into one
 * `policy:<id>` entry, named by every route that has it; the route keeps only what compiling read
 * of its own path (its rewrite, its affinity cookie's path) or host (its TLS relay). The thousand
 * routes of an Ingress with a 256-network allow-list so carry one copy of the list, not a
 * thousand: in the pushed data, in nginx's shared memory, and in each worker, which checks and
 * prepares a policy once.
 */
import { createHash } from 'node:crypto';
import type { HostEntry, PolicyEntry, RouteEntry, SharedPolicyId } from './data-entries.js';

/**
 * The policy fields a route keeps for itself: compiling them reads the route's own path, or (the
 * TLS relay's id) its virtual host's name and its protocol, so that the routes of every host of an
 * Ingress still share one copy of the rest.
 */
const ROUTE_OWN_FIELDS: ReadonlySet<string> = new Set<keyof PolicyEntry>(['rewrite', 'affinity', 'relay']);

/** The data key of a shared policy. */
export function policyKey(id: SharedPolicyId): string {
  return `policy:${id}`;
}

/** The id of the shared policy whose JSON is `json` (see SharedPolicyId). */
export function sharedPolicyIdOf(json: string): SharedPolicyId {
  return createHash('sha256').update(json).digest('hex').slice(0, 32) as SharedPolicyId;
}

/** The shared policies compiling a table or a delta collects, by id. */
export class SharedPolicies {
  readonly #byId = new Map<SharedPolicyId, PolicyEntry>();
  /** The policy of the route before: the routes of a host mostly have the same one. */
  #last: { policy: PolicyEntry; id: SharedPolicyId } | undefined;

  /** Adds `policy` (once per id) and returns its id. */
  add(policy: PolicyEntry): SharedPolicyId {
    // Routes share their compiled values by reference (compile-once.ts), so comparing with the
    // last policy mostly compares references: far cheaper than serializing and hashing again.
    if (this.#last !== undefined && isEqualEntry(this.#last.policy, policy)) return this.#last.id;
    const id = sharedPolicyIdOf(JSON.stringify(policy));
    if (!this.#byId.has(id)) this.#byId.set(id, policy);
    this.#last = { policy, id };
    return id;
  }

  /** Every policy added, by id. */
  entries(): IterableIterator<[SharedPolicyId, PolicyEntry]> {
    return this.#byId.entries();
  }
}

/** Whether two JSON values are equal, comparing references first. */
function isEqualEntry(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value, index) => isEqualEntry(value, b[index]));
  }
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  // Key order matters too: it is the order of the JSON the id is made from.
  const keysB = Object.keys(b);
  return keysA.every(
    (key, index) =>
      keysB[index] === key &&
      isEqualEntry((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * Moves the shared part of `route`'s policy into `policies` (once per id) and names it on the
 * route; the route keeps its own fields. A route whose policy has no shared part is left as is.
 */
export function sharePolicyOf(route: RouteEntry, policies: SharedPolicies): void {
  const policy = route.policy;
  if (policy === undefined) return;
  const own: Record<string, unknown> = {};
  const shared: Record<string, unknown> = {};
  let sharedFields = 0;
  for (const [field, value] of Object.entries(policy) as [string, unknown][]) {
    if (ROUTE_OWN_FIELDS.has(field)) own[field] = value;
    else {
      shared[field] = value;
      sharedFields++;
    }
  }
  if (sharedFields === 0) return;
  route.sharedPolicy = policies.add(shared);
  if (Object.keys(own).length > 0) route.policy = own;
  else delete route.policy;
}

/** The ids of the shared policies the routes of `host` name. */
export function sharedPolicyIdsOf(host: HostEntry): Set<SharedPolicyId> {
  const ids = new Set<SharedPolicyId>();
  for (const route of host.fallback === undefined ? host.routes : [...host.routes, host.fallback]) {
    if (route.sharedPolicy !== undefined) ids.add(route.sharedPolicy);
  }
  return ids;
}
