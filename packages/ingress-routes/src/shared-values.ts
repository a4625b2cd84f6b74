/**
 * One frozen copy of the small route parts that many Ingresses have in common: a path condition
 * (`/`, `/api`), the policy of an Ingress without scoped annotations. At 10,000 Ingresses the
 * copies were some 3 MiB of a controller's heap. Values are shared across translations and
 * translators, so they are deep-frozen; the tables stop growing at a bound so that hostile objects
 * cannot grow them.
 */
import type { PathMatch, RouteContribution, RouteMatch, RoutePolicy } from '@ingresskit/route-model';

const SHARED_LIMIT = 4096;
/** Longer values are rarely shared, and keep the keys small. */
const MAX_KEY_LENGTH = 512;

const matches = new Map<string, RouteMatch>();
const policies = new Map<string, RoutePolicy>();

/** The route match `{ path }`, shared with every equal one. */
export function internPathMatch(path: PathMatch): RouteMatch {
  const key = `${path.type} ${path.type === 'RegularExpression' && path.ignoreCase === true ? 'i' : ''} ${path.value}`;
  return share(matches, key, () => ({ path }));
}

/**
 * `policy`, or an equal one made before. Policies with client limits are scoped to their Ingress
 * (`clientLimits.scope`), so they are never equal to another Ingress's and are only frozen.
 */
export function internPolicy(policy: RoutePolicy): RoutePolicy {
  if (policy.clientLimits !== undefined) return deepFreeze(policy);
  return share(policies, JSON.stringify(policy), () => policy);
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * `list`, or one frozen empty list when it is empty: most translations have no problems, TLS
 * claims or Secrets, and an empty array is 32 bytes each.
 */
export function listOrNone<T>(list: T[]): T[] {
  return list.length === 0 ? (NONE as never[]) : list;
}

/**
 * Gives `contribution`, just made, lists of their exact length: a list grown by `push` keeps room
 * for 17 elements (152 bytes) and a translation lives as long as its Ingress.
 */
export function compactContribution(contribution: RouteContribution): RouteContribution {
  for (const host of contribution.hosts) host.routes = listOrNone(host.routes.slice());
  contribution.tls = listOrNone(contribution.tls);
  return contribution;
}

function share<T extends object>(table: Map<string, T>, key: string, make: () => T): T {
  const known = table.get(key);
  if (known !== undefined) return known;
  const made = deepFreeze(make());
  if (table.size < SHARED_LIMIT && key.length <= MAX_KEY_LENGTH) table.set(key, made);
  return made;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const field of Object.values(value)) deepFreeze(field);
  return Object.freeze(value);
}
