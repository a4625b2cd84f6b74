/**
 * Host ownership in HTTPRoute statuses: the hostnames a route lost to another namespace's older
 * source (from the route table's assembly notes) become a `PartiallyInvalid` condition on its parents.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import type { AssemblyNote, SourceRef } from '@ingresskit/route-model';
import type { ConditionDraft, HTTPRouteStatusEntry } from './types.js';

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
    const key = namespacedKey(note.source.namespace, note.source.name);
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
    const hostnames = lost.get(namespacedKey(entry.namespace, entry.name));
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
