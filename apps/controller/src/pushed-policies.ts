/**
 * The shared policies nginx holds, by the hosts that name them. A delta pushes the policies of the
 * hosts it carries, but only the controller knows which other hosts still name a policy: so it
 * counts, and a push deletes the policies that no host names once it is applied.
 */
import {
  hostKey,
  policyKey,
  sharedPolicyIdsOf,
  type DataPlaneUpdate,
  type HostEntry,
  type SharedPolicyId,
} from '@ingresskit/nginx-template';

const HOST_PREFIX = hostKey('');

/** What a push changes: the policy ids of the hosts it carries (empty: none), whether it replaces all. */
interface Pending {
  full: boolean;
  hosts: Map<string, Set<SharedPolicyId>>;
}

/** Which shared policies nginx holds, counted by the hosts that name them. */
export class PushedPolicies {
  /** The policy ids each pushed host names. */
  readonly #byHost = new Map<string, Set<SharedPolicyId>>();
  /** How many pushed hosts name each policy. */
  readonly #hostCounts = new Map<SharedPolicyId, number>();
  /** What the push being made changes, once it is applied. */
  #pending: Pending | undefined;

  /**
   * Adds to `update` (about to be pushed) the deletes of the policies no host will name once it is
   * applied. `full`: the update replaces everything nginx holds. Takes effect at {@link commit}.
   */
  prepare(update: DataPlaneUpdate, full: boolean): void {
    const hosts = new Map<string, Set<SharedPolicyId>>();
    for (const [key, entry] of Object.entries(update.set)) {
      if (key.startsWith(HOST_PREFIX)) hosts.set(key, sharedPolicyIdsOf(entry as HostEntry));
    }
    for (const key of update.delete) if (key.startsWith(HOST_PREFIX)) hosts.set(key, new Set());
    this.#pending = { full, hosts };
    // A full push deletes whatever it does not carry.
    if (full) return;
    const change = new Map<SharedPolicyId, number>();
    for (const [host, ids] of hosts) {
      for (const id of this.#byHost.get(host) ?? []) change.set(id, (change.get(id) ?? 0) - 1);
      for (const id of ids) change.set(id, (change.get(id) ?? 0) + 1);
    }
    for (const [id, difference] of change) {
      if (difference < 0 && (this.#hostCounts.get(id) ?? 0) + difference <= 0)
        update.delete.push(policyKey(id));
    }
    update.delete.sort();
  }

  /** The push prepared last was applied. */
  commit(): void {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    if (pending.full) {
      this.#byHost.clear();
      this.#hostCounts.clear();
    }
    for (const [host, ids] of pending.hosts) {
      for (const id of this.#byHost.get(host) ?? []) {
        const count = (this.#hostCounts.get(id) ?? 1) - 1;
        if (count > 0) this.#hostCounts.set(id, count);
        else this.#hostCounts.delete(id);
      }
      for (const id of ids) this.#hostCounts.set(id, (this.#hostCounts.get(id) ?? 0) + 1);
      if (ids.size > 0) this.#byHost.set(host, ids);
      else this.#byHost.delete(host);
    }
  }

  /** How many shared policies the pushed hosts name. */
  get size(): number {
    return this.#hostCounts.size;
  }
}
