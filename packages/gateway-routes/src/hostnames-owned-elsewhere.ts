/**
 * Host ownership in Gateway API statuses: the hostnames a route or a Gateway lost to another
 * namespace's older source (from the route table's assembly notes, wildcards that cover them
 * included) become a `PartiallyInvalid` condition on the route's parents, and a `Conflicted`
 * (`HostnameConflict`) listener of the Gateway.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import type { AssemblyNote, SourceRef } from '@ingresskit/route-model';
import { ConditionType, GatewayReason, ListenerReason } from './conditions.js';
import type {
  ConditionDraft,
  GatewayStatusEntry,
  HTTPRouteStatusEntry,
  ListenerStatusDraft,
} from './types.js';

/**
 * A hostname an HTTPRoute or Gateway lost: to another namespace's older source (`owner`, `tenant`,
 * and `via`, the owner's wildcard that covers it, when it owns it through one), or to the table's
 * limit on a host (`limit`, why: older sources of the host keep theirs).
 */
export type LostHostname = OwnedElsewhere | { hostname: string; limit: string };

/** A hostname lost to another namespace's older source. */
export interface OwnedElsewhere {
  hostname: string;
  owner: SourceRef;
  tenant: string;
  via?: string;
}

function lostHostnameOf(note: AssemblyNote): LostHostname | undefined {
  if (note.type === 'host-owned-elsewhere') {
    const lost: OwnedElsewhere = {
      hostname: note.hostname,
      owner: note.owner.source,
      tenant: note.owner.tenant,
    };
    if (note.owner.via !== undefined) lost.via = note.owner.via;
    return lost;
  }
  if (note.type === 'host-limit-exceeded') return { hostname: note.hostname, limit: note.reason };
  return undefined;
}

function describeLost(lost: LostHostname): string {
  if ('limit' in lost)
    return `host ${lost.hostname}: ${lost.limit}; older routes of the host keep theirs, and this route's rules for it are not served`;
  return `${describeOwner(lost)}; this route's rules for it are not served (--allow-cross-namespace-hosts)`;
}

/**
 * The hostnames each object of `kind` (`HTTPRoute` by default, or `Gateway`), by `namespace/name`,
 * lost to host ownership or to a host limit, from assembly notes.
 */
export function lostHostnamesOf(
  notes: readonly AssemblyNote[],
  kind: 'HTTPRoute' | 'Gateway' = 'HTTPRoute',
): Map<string, LostHostname[]> {
  const lost = new Map<string, LostHostname[]>();
  for (const note of notes) {
    const entry = note.source.kind === kind ? lostHostnameOf(note) : undefined;
    if (entry === undefined) continue;
    const key = namespacedKey(note.source.namespace, note.source.name);
    const list = lost.get(key);
    if (list === undefined) lost.set(key, [entry]);
    else list.push(entry);
  }
  return lost;
}

/** Who owns a lost hostname, in the words of a condition message. */
function describeOwner({ hostname, owner, tenant, via }: OwnedElsewhere): string {
  const through = via === undefined ? '' : ` (through its wildcard ${via})`;
  return `host ${hostname} belongs to namespace ${tenant}, whose ${owner.kind} ${owner.namespace}/${owner.name} is the oldest to name it${through}`;
}

/**
 * The route statuses with `PartiallyInvalid` `True` (reason `HostnameOwnedElsewhere`, or
 * `HostLimitExceeded` when the first hostname lost went to a host limit) on every parent of a
 * route that lost hostnames, the message naming each hostname and its owner or the limit. Rules
 * left out as invalid keep their own message, before these.
 */
export function markHostnamesOwnedElsewhere(
  entries: readonly HTTPRouteStatusEntry[],
  lost: ReadonlyMap<string, readonly LostHostname[]>,
): HTTPRouteStatusEntry[] {
  return entries.map((entry) => {
    const hostnames = lost.get(namespacedKey(entry.namespace, entry.name));
    if (hostnames === undefined || hostnames.length === 0) return entry;
    const message = hostnames.map(describeLost).join('; ');
    const reason = 'limit' in hostnames[0]! ? 'HostLimitExceeded' : 'HostnameOwnedElsewhere';
    return {
      ...entry,
      parents: entry.parents.map((parent) => {
        const generation = parent.conditions.find(({ type }) => type === 'Accepted')?.observedGeneration;
        const invalid = parent.conditions.find(({ type }) => type === 'PartiallyInvalid');
        const others = parent.conditions.filter(({ type }) => type !== 'PartiallyInvalid');
        const condition: ConditionDraft = {
          type: 'PartiallyInvalid',
          status: 'True',
          reason: invalid?.reason ?? reason,
          message: invalid === undefined ? message : `${invalid.message}; ${message}`,
          ...(generation === undefined ? {} : { observedGeneration: generation }),
        };
        return { ...parent, conditions: [...others, condition] };
      }),
    };
  });
}

/**
 * The Gateway statuses with each ready listener whose hostname the Gateway lost to another
 * namespace (host ownership) `Conflicted` `True` (`HostnameConflict`, as the spec names a
 * listener whose hostname conflicts) and `Programmed` `False` (`Invalid`), the message naming the
 * owner; the Gateway's `Accepted` then says `ListenersNotValid`, `False` when no listener is left.
 * Needs `listenerHostnames` on the entries; others are returned as they are.
 */
export function markListenersOwnedElsewhere(
  entries: readonly GatewayStatusEntry[],
  lost: ReadonlyMap<string, readonly LostHostname[]>,
): GatewayStatusEntry[] {
  return entries.map((entry) => {
    const hostnames = lost.get(namespacedKey(entry.namespace, entry.name));
    const listenerHostnames = entry.listenerHostnames;
    if (hostnames === undefined || listenerHostnames === undefined) return entry;
    const byHostname = new Map(
      hostnames
        .filter((lostOne): lostOne is OwnedElsewhere => 'owner' in lostOne)
        .map((lostOne) => [lostOne.hostname, lostOne]),
    );
    const conflicted: string[] = [];
    const listeners = entry.status.listeners.map((listener, index) => {
      const hostname = listenerHostnames[index];
      const lostOne = hostname === undefined ? undefined : byHostname.get(hostname);
      if (lostOne === undefined || !isWaitingToServe(listener)) return listener;
      const message = `${describeOwner(lostOne)}; this listener serves nothing for it (--allow-cross-namespace-hosts)`;
      conflicted.push(`${listener.name} (${message})`);
      return {
        ...listener,
        conditions: listener.conditions.map((condition) => {
          if (condition.type === ConditionType.Conflicted)
            return {
              ...condition,
              status: 'True' as const,
              reason: ListenerReason.HostnameConflict,
              message,
            };
          if (condition.type === ConditionType.Programmed)
            return { ...condition, status: 'False' as const, reason: ListenerReason.Invalid, message };
          return condition;
        }),
      };
    });
    if (conflicted.length === 0) return entry;
    const ready = listeners.filter(isWaitingToServe).map((listener) => listener.name);
    const accepted =
      `${ready.length > 0 ? `listeners ${ready.join(', ')} are accepted; ` : 'no listener is valid; '}` +
      `not valid: ${conflicted.join('; ')}`;
    const conditions = entry.status.conditions.map((condition): ConditionDraft => {
      if (condition.type === ConditionType.Accepted)
        return {
          ...condition,
          status: ready.length > 0 ? 'True' : 'False',
          reason: GatewayReason.ListenersNotValid,
          message: accepted,
        };
      if (condition.type === ConditionType.Programmed && ready.length === 0)
        return {
          ...condition,
          status: 'False',
          reason: GatewayReason.Invalid,
          message: 'the Gateway has no valid listener',
        };
      return condition;
    });
    return { ...entry, status: { conditions, listeners } };
  });
}

/** A listener that can be served: its Programmed condition waits for the data plane. */
function isWaitingToServe(listener: ListenerStatusDraft): boolean {
  return listener.conditions.some(
    (condition) => condition.type === ConditionType.Programmed && condition.reason === ListenerReason.Pending,
  );
}
