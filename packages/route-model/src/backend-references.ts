/**
 * Which sources refer to which backends, so each change to the route table can say which backend
 * ids became referenced or unreferenced (the caller then fetches or drops those backends).
 */
import { MemberIndex } from './member-index.js';
import type { Route, RouteContribution } from './types.js';

/** How the set of backends sources refer to changed with one call. */
export interface BackendReferenceChange {
  /** Ids no source referred to before. */
  added: string[];
  /** Ids no source refers to any more. */
  removed: string[];
}

/** Backend ids a route may send traffic to (its group, its mirror, its no-endpoints and error backends). */
export function backendIdsOfRoute(route: Route): string[] {
  const ids: string[] = [];
  if (route.action.type === 'forward') {
    for (const member of route.action.backends) if (member.backend !== undefined) ids.push(member.backend);
    for (const member of route.action.canary?.backends ?? []) {
      if (member.backend !== undefined) ids.push(member.backend);
    }
  }
  if (route.policy.mirror !== undefined) ids.push(route.policy.mirror.backend);
  if (route.policy.noEndpointsBackend !== undefined) ids.push(route.policy.noEndpointsBackend);
  if (route.policy.customErrors !== undefined) ids.push(...route.policy.customErrors.backends);
  return ids;
}

/** Backend ids any route, canary or fallback of `contribution` may send traffic to. */
export function backendIdsOfContribution(contribution: RouteContribution): Set<string> {
  const ids = new Set<string>();
  for (const host of contribution.hosts) {
    for (const route of host.routes) for (const id of backendIdsOfRoute(route)) ids.add(id);
    for (const { route } of host.canaries ?? []) for (const id of backendIdsOfRoute(route)) ids.add(id);
    if (host.fallback !== undefined && host.fallback !== 'table-default') {
      for (const id of backendIdsOfRoute(host.fallback)) ids.add(id);
    }
  }
  return ids;
}

/** `first` then `second` as one change: an id dropped and taken again is neither added nor removed. */
export function mergeReferenceChanges(
  first: BackendReferenceChange,
  second: BackendReferenceChange,
): BackendReferenceChange {
  const readded = new Set(second.added.filter((id) => first.removed.includes(id)));
  return {
    added: [...first.added, ...second.added.filter((id) => !readded.has(id))],
    removed: [...first.removed.filter((id) => !readded.has(id)), ...second.removed],
  };
}

/** The backend references of every source, by source key. */
export class BackendReferences {
  /** Sources referring to each backend id. */
  readonly #sourcesByBackend = new MemberIndex();
  /** Backend ids each source refers to. */
  readonly #backendsBySource = new Map<string, readonly string[]>();

  /** Records that source `key` refers to `ids` (after {@link unrefer} of its old ones); returns the ids new to the table. */
  refer(key: string, ids: Iterable<string>): BackendReferenceChange {
    const own = [...new Set(ids)];
    if (own.length === 0) return { added: [], removed: [] };
    this.#backendsBySource.set(key, own);
    return { added: own.filter((id) => this.#sourcesByBackend.add(id, key)), removed: [] };
  }

  /** Forgets what source `key` refers to; returns the ids no source refers to any more. */
  unrefer(key: string): BackendReferenceChange {
    const removed = (this.#backendsBySource.get(key) ?? []).filter((id) =>
      this.#sourcesByBackend.delete(id, key),
    );
    this.#backendsBySource.delete(key);
    return { added: [], removed };
  }

  /** Each referenced backend id with its number of sources. */
  counts(): IterableIterator<[string, number]> {
    return this.#sourcesByBackend.counts();
  }

  /** Keys of the sources referring to backend `id`, in no particular order. */
  sourcesOf(id: string): string[] {
    return this.#sourcesByBackend.members(id);
  }
}
