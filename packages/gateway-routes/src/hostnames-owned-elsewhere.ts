/**
 * Host ownership in HTTPRoute statuses: the hostnames a route lost to another namespace's older
 * source (from the route table's assembly notes) become a `PartiallyInvalid` condition on its parents.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import type { AssemblyNote, SourceRef } from '@ingresskit/route-model';
import type { ConditionDraft, HTTPRouteStatusEntry } from './types.js';

/**
 * A hostname an HTTPRoute lost: to another namespace's older source (`owner`, `tenant`), or to
 * the table's limit on a host (`limit`, why: older sources of the host keep theirs).
 */
export type LostHostname =
  { hostname: string; owner: SourceRef; tenant: string } | { hostname: string; limit: string };

function lostHostnameOf(note: AssemblyNote): LostHostname | undefined {
  if (note.type === 'host-owned-elsewhere')
    return { hostname: note.hostname, owner: note.owner.source, tenant: note.owner.tenant };
  if (note.type === 'host-limit-exceeded') return { hostname: note.hostname, limit: note.reason };
  return undefined;
}

function describeLost(lost: LostHostname): string {
  if ('limit' in lost)
    return `host ${lost.hostname}: ${lost.limit}; older routes of the host keep theirs, and this route's rules for it are not served`;
  const { hostname, owner, tenant } = lost;
  return `host ${hostname} belongs to namespace ${tenant}, whose ${owner.kind} ${owner.namespace}/${owner.name} is the oldest to name it; this route's rules for it are not served (--allow-cross-namespace-hosts)`;
}

/**
 * The hostnames each HTTPRoute (by `namespace/name`) lost to host ownership or to a host limit,
 * from assembly notes.
 */
export function lostHostnamesOf(notes: readonly AssemblyNote[]): Map<string, LostHostname[]> {
  const lost = new Map<string, LostHostname[]>();
  for (const note of notes) {
    const entry = note.source.kind === 'HTTPRoute' ? lostHostnameOf(note) : undefined;
    if (entry === undefined) continue;
    const key = namespacedKey(note.source.namespace, note.source.name);
    const list = lost.get(key);
    if (list === undefined) lost.set(key, [entry]);
    else list.push(entry);
  }
  return lost;
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
