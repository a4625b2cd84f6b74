/**
 * The Gateway and HTTPRoute statuses to write, from the drafts of the translation and what the
 * objects hold now: conditions get `lastTransitionTime` (kept when their status did not change),
 * Gateways get the caller's addresses, and HTTPRoute parents of other controllers are left as they
 * are. Each function returns undefined when the object already holds exactly that, so nothing is
 * written twice. Pure: the time comes in as a string.
 */
import { GATEWAY_API_GROUP, mergeConditions, type Condition } from '@ingresskit/kube-objects';
import { isDeepStrictEqual } from 'node:util';
import type { ConditionDraft, GatewayStatusDraft, RouteParentStatusDraft } from './types.js';

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
    (a.group ?? GATEWAY_API_GROUP) === b.group &&
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

// Written and read back through JSON: undefined fields vanish on the way.
function normalize(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null)) as unknown;
}
