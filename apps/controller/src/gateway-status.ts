/**
 * The Gateway and HTTPRoute statuses to write, from gateway-routes' drafts and what the objects
 * hold now: conditions get `lastTransitionTime` (kept when their status did not change), Gateways
 * get the controller's addresses, and HTTPRoute parents of other controllers are left as they are.
 * Each function returns undefined when the object already holds exactly that, so nothing is
 * written twice. Pure: the time comes in as a string.
 */
import { mergeConditions, type Condition } from '@ingresskit/gateway-class';
import type {
  ConditionDraft,
  GatewayStatusDraft,
  HTTPRouteStatusEntry,
  RouteParentStatusDraft,
} from '@ingresskit/gateway-routes';
import type { AssemblyNote, SourceRef } from '@ingresskit/route-model';
import type { StatusAddress } from '@ingresskit/status-sync';
import { isDeepStrictEqual } from 'node:util';

/** One entry of a Gateway's `status.addresses`. */
export interface GatewayStatusAddress {
  type: 'IPAddress' | 'Hostname';
  value: string;
}

/** A Gateway's `status` as written here. */
export interface GatewayStatus {
  addresses?: GatewayStatusAddress[];
  conditions: Condition[];
  listeners: (Omit<GatewayStatusDraft['listeners'][number], 'conditions'> & { conditions: Condition[] })[];
  [field: string]: unknown;
}

/** One entry of an HTTPRoute's `status.parents` as read (another controller's entries are opaque). */
export interface RouteParentStatus {
  parentRef: Record<string, unknown>;
  controllerName: string;
  conditions: Condition[];
}

/** Status addresses (as status-sync resolves them for Ingresses) in the Gateway API's shape. */
export function toGatewayAddresses(addresses: readonly StatusAddress[]): GatewayStatusAddress[] {
  return addresses.map((address) =>
    'ip' in address
      ? { type: 'IPAddress', value: address.ip }
      : { type: 'Hostname', value: address.hostname },
  );
}

function stamp(drafts: readonly ConditionDraft[], now: string): Condition[] {
  return drafts.map((draft) => ({ ...draft, lastTransitionTime: now }));
}

function conditionsOf(value: unknown): Condition[] | undefined {
  return Array.isArray(value) ? (value as Condition[]) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The status a Gateway should have: `draft`'s conditions and listeners merged into `current`
 * (conditions of other types stay), `addresses` set. Undefined when `current` already says so.
 */
export function mergeGatewayStatus(
  current: unknown,
  draft: GatewayStatusDraft,
  addresses: readonly GatewayStatusAddress[],
  now: string,
): GatewayStatus | undefined {
  const existing = isRecord(current) ? current : {};
  const existingListeners = new Map<string, unknown>();
  for (const listener of Array.isArray(existing.listeners) ? (existing.listeners as unknown[]) : []) {
    if (isRecord(listener) && typeof listener.name === 'string')
      existingListeners.set(listener.name, listener);
  }
  const next: GatewayStatus = {
    ...existing,
    conditions: mergeConditions(conditionsOf(existing.conditions), stamp(draft.conditions, now)),
    listeners: draft.listeners.map((listener) => {
      const before = existingListeners.get(listener.name);
      return {
        ...listener,
        conditions: mergeConditions(
          conditionsOf(isRecord(before) ? before.conditions : undefined),
          stamp(listener.conditions, now),
        ),
      };
    }),
  };
  if (addresses.length > 0) next.addresses = [...addresses];
  else delete next.addresses;
  return isDeepStrictEqual(normalize(next), normalize(existing)) ? undefined : next;
}

function sameParentRef(a: Record<string, unknown>, b: RouteParentStatusDraft['parentRef']): boolean {
  // Written back with defaults filled in, so an entry we wrote compares field by field.
  return (
    (a.group ?? 'gateway.networking.k8s.io') === b.group &&
    (a.kind ?? 'Gateway') === b.kind &&
    a.namespace === b.namespace &&
    a.name === b.name &&
    a.sectionName === b.sectionName &&
    a.port === b.port
  );
}

/**
 * The `status.parents` an HTTPRoute should have: other controllers' entries as they are, then ours
 * from `drafts` (conditions merged with our previous entry for the same parentRef). Our entries
 * for parents no longer listed are dropped. Undefined when `current` already says so.
 */
export function mergeRouteParents(
  current: unknown,
  drafts: readonly RouteParentStatusDraft[],
  controllerName: string,
  now: string,
): RouteParentStatus[] | undefined {
  const existing = isRecord(current) && Array.isArray(current.parents) ? (current.parents as unknown[]) : [];
  const entries = existing.filter(isRecord) as unknown as RouteParentStatus[];
  const others = entries.filter((entry) => entry.controllerName !== controllerName);
  const ours = entries.filter((entry) => entry.controllerName === controllerName);
  const next: RouteParentStatus[] = [
    ...others,
    ...drafts.map((draft) => {
      const before = ours.find(
        (entry) => isRecord(entry.parentRef) && sameParentRef(entry.parentRef, draft.parentRef),
      );
      // Our entry holds only what the draft says: a condition it no longer has (PartiallyInvalid
      // once the route is fixed) goes, instead of staying True forever.
      const types = new Set(draft.conditions.map(({ type }) => type));
      const kept = conditionsOf(before?.conditions)?.filter(({ type }) => types.has(type));
      return {
        parentRef: { ...draft.parentRef },
        controllerName: draft.controllerName,
        conditions: mergeConditions(kept, stamp(draft.conditions, now)),
      };
    }),
  ];
  return isDeepStrictEqual(normalize(next), normalize(existing)) ? undefined : next;
}

/** Hostnames an HTTPRoute lost to another namespace's older source, and who owns each. */
export interface LostHostname {
  hostname: string;
  owner: SourceRef;
  tenant: string;
}

/** The hostnames each HTTPRoute (by `namespace/name`) lost to host ownership, from assembly notes. */
export function lostHostnamesOf(notes: readonly AssemblyNote[]): Map<string, LostHostname[]> {
  const lost = new Map<string, LostHostname[]>();
  for (const note of notes) {
    if (note.type !== 'host-owned-elsewhere' || note.source.kind !== 'HTTPRoute') continue;
    const key = `${note.source.namespace}/${note.source.name}`;
    const entry = { hostname: note.hostname, owner: note.owner.source, tenant: note.owner.tenant };
    const list = lost.get(key);
    if (list === undefined) lost.set(key, [entry]);
    else list.push(entry);
  }
  return lost;
}

/**
 * The route statuses with `PartiallyInvalid` `True` (reason `HostnameOwnedElsewhere`) on every
 * parent of a route that lost hostnames to another namespace (host ownership), the message naming
 * each hostname and its owner. Rules left out as invalid keep their own message, before these.
 */
export function markHostnamesOwnedElsewhere(
  entries: readonly HTTPRouteStatusEntry[],
  lost: ReadonlyMap<string, readonly LostHostname[]>,
): HTTPRouteStatusEntry[] {
  return entries.map((entry) => {
    const hostnames = lost.get(`${entry.namespace}/${entry.name}`);
    if (hostnames === undefined || hostnames.length === 0) return entry;
    const message = hostnames
      .map(
        ({ hostname, owner, tenant }) =>
          `host ${hostname} belongs to namespace ${tenant}, whose ${owner.kind} ${owner.namespace}/${owner.name} is the oldest to name it; this route's rules for it are not served (--allow-cross-namespace-hosts)`,
      )
      .join('; ');
    return {
      ...entry,
      parents: entry.parents.map((parent) => {
        const generation = parent.conditions.find(({ type }) => type === 'Accepted')?.observedGeneration;
        const invalid = parent.conditions.find(({ type }) => type === 'PartiallyInvalid');
        const others = parent.conditions.filter(({ type }) => type !== 'PartiallyInvalid');
        const condition: ConditionDraft = {
          type: 'PartiallyInvalid',
          status: 'True',
          reason: invalid?.reason ?? 'HostnameOwnedElsewhere',
          message: invalid === undefined ? message : `${invalid.message}; ${message}`,
          ...(generation === undefined ? {} : { observedGeneration: generation }),
        };
        return { ...parent, conditions: [...others, condition] };
      }),
    };
  });
}

// Written and read back through JSON: undefined fields vanish on the way.
function normalize(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null)) as unknown;
}
