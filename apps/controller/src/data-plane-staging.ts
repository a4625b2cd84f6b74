/**
 * What the controller staged for nginx: the route table changes nginx does not have yet, the
 * listeners and directive profiles nginx.conf needs for them, and the entries nginx refused.
 */
import {
  certificateKey,
  compileDataPlaneUpdate,
  hostKey,
  serializeDataEntry,
  type Configuration,
  type DataPlaneRejection,
  type Profile,
  type RenderOptions,
} from '@ingresskit/nginx-template';
import type { Listener, RouteTable, RouteTableDelta } from '@ingresskit/route-model';
import {
  changedKeysOf,
  clearPending,
  clearUrgent,
  createPendingDelta,
  mergeIntoPending,
  pendingDelta,
  pendingSize,
  urgentDelta,
} from './pending-delta.js';
import {
  createDesiredConfiguration,
  findHostsNeedingReload,
  needsReload,
  profilesOf,
} from './data-plane-profiles.js';
import { PushedPolicies } from './pushed-policies.js';

/** An entry nginx refused, as its control socket reports it. */
export type RejectedEntry = DataPlaneRejection['rejected'][number];

/** What is staged for nginx and not yet pushed, with what nginx.conf needs for it. */
export class StagedRoutes {
  #listeners: Listener[];
  /** Profiles the routes of each virtual host use, for the hosts that use more than the default. */
  readonly #profilesByHost = new Map<string, Profile[]>();
  /**
   * What nginx does not have yet, by key (null: remove it): the route-model objects the builder
   * holds anyway, compiled into data entries only when pushed. A full push compiles the whole
   * table instead, which happens only when nginx (re)starts.
   */
  readonly #pending = createPendingDelta();
  /**
   * Entries nginx refused that are not routes (a certificate its OpenSSL cannot load, say), by
   * key, with nginx's reason: left out of every push until the key changes, so one bad entry never
   * holds back the others. A host bound to a refused certificate gets the default certificate.
   */
  readonly #refusedKeys = new Map<string, string>();
  /** The shared policies nginx holds, so that a push deletes those no host names any more. */
  readonly #policies = new PushedPolicies();

  /** Starts with `listeners` and nothing staged. */
  constructor(listeners: Listener[]) {
    this.#listeners = listeners;
  }

  /** How many keys wait to be pushed. */
  get size(): number {
    return pendingSize(this.#pending);
  }

  /** Records what a route table delta changes; a changed key is no longer refused. */
  stage(delta: RouteTableDelta): void {
    if (delta.listeners !== undefined) this.#listeners = delta.listeners;
    for (const virtualHost of delta.virtualHosts.upsert) {
      const profiles = profilesOf(virtualHost);
      if (profiles.length > 0) this.#profilesByHost.set(virtualHost.hostname, profiles);
      else this.#profilesByHost.delete(virtualHost.hostname);
    }
    for (const hostname of delta.virtualHosts.remove) this.#profilesByHost.delete(hostname);
    mergeIntoPending(this.#pending, delta);
    for (const key of changedKeysOf(delta)) this.#refusedKeys.delete(key);
  }

  /** The configuration nginx.conf is rendered from for the staged listeners and profiles. */
  createConfiguration(options: RenderOptions): Configuration {
    return createDesiredConfiguration(this.#listeners, this.#profilesByHost, options);
  }

  /**
   * Hostnames whose routes need a profile the `running` nginx.conf lacks, which wait for the
   * reload to `next`; none when going to `next` takes no reload.
   */
  findHeldHosts(running: Configuration | undefined, next: Configuration): Set<string> {
    return needsReload(running, next)
      ? findHostsNeedingReload(running, this.#profilesByHost)
      : new Set<string>();
  }

  /** How many staged keys a push would carry when the `held` hosts wait. */
  countPushable(held: ReadonlySet<string>): number {
    return this.size - [...held].filter((hostname) => this.#pending.virtualHosts.has(hostname)).length;
  }

  /**
   * The body of a push: the whole `table` when given, else the staged changes but the `held`
   * hosts; the held hosts and the refused entries are left out either way, and the shared
   * policies no host names once it is applied are deleted.
   */
  createUpdate(held: ReadonlySet<string>, table?: RouteTable): string {
    const excludeKeys = [...[...held].map(hostKey), ...this.#refusedKeys.keys()];
    const update = compileDataPlaneUpdate(table ?? pendingDelta(this.#pending, held), { excludeKeys });
    this.#policies.prepare(update, table !== undefined);
    return serializeDataEntry(update);
  }

  /**
   * The body of a push of what cannot wait for room in nginx's memory (see urgentDelta), or
   * undefined when nothing staged is urgent.
   */
  createUrgentUpdate(): string | undefined {
    const delta = urgentDelta(this.#pending);
    if (delta.backends.upsert.length + delta.virtualHosts.remove.length === 0) return undefined;
    const update = compileDataPlaneUpdate(delta, { excludeKeys: this.#refusedKeys.keys() });
    this.#policies.prepare(update, false);
    return serializeDataEntry(update);
  }

  /** Forgets the urgent changes nginx now has (the last urgent update made). */
  clearUrgent(): void {
    clearUrgent(this.#pending);
    this.#policies.commit();
  }

  /** The entries among `rejected` that are not routes and were not refused before. */
  findNewlyRefused(rejected: readonly RejectedEntry[]): RejectedEntry[] {
    return rejected.filter((entry) => entry.routeId === undefined && !this.#refusedKeys.has(entry.key));
  }

  /** Leaves `entries` out of every push until their keys change. */
  refuse(entries: readonly RejectedEntry[]): void {
    for (const entry of entries) this.#refusedKeys.set(entry.key, entry.message);
  }

  /** Forgets the staged changes nginx now has (the last update made): all but those of the `held` hosts. */
  clear(held: ReadonlySet<string>): void {
    clearPending(this.#pending, held);
    this.#policies.commit();
  }

  /** Entries nginx refused that are not routes, by data key, with the reason. */
  refusedEntries(): ReadonlyMap<string, string> {
    return this.#refusedKeys;
  }

  /** The certificates among the refused entries, by certificate id, with the reason. */
  refusedCertificates(): Map<string, string> {
    const prefix = certificateKey('');
    const refused = new Map<string, string>();
    for (const [key, reason] of this.#refusedKeys) {
      if (key.startsWith(prefix)) refused.set(key.slice(prefix.length), reason);
    }
    return refused;
  }
}
