/**
 * What the controller staged for nginx: the route table changes nginx does not have yet, the
 * listeners nginx.conf needs for them, the entries nginx refused, and the TLS relay's sockets the
 * data nginx has and the staged data name.
 */
import {
  certificateKey,
  compileDataPlaneUpdate,
  serializeDataEntry,
  type Configuration,
  type DataPlaneRejection,
  type RenderOptions,
} from '@ingresskit/nginx-template';
import type { Listener, RouteTable, RouteTableDelta } from '@ingresskit/route-model';
import { RelayPlan, type RelaySocket } from '@ingresskit/tcp-proxy';
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
import { createDesiredConfiguration } from './data-plane-configuration.js';
import { PushedPolicies } from './pushed-policies.js';

/** An entry nginx refused, as its control socket reports it. */
export type RejectedEntry = DataPlaneRejection['rejected'][number];

/** What is staged for nginx and not yet pushed, with what nginx.conf needs for it. */
export class StagedRoutes {
  #listeners: Listener[];
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
  /** The TLS relay's sockets, following the same pushes. */
  readonly #relayPlan = new RelayPlan();

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
    mergeIntoPending(this.#pending, delta);
    this.#relayPlan.stage(delta);
    for (const key of changedKeysOf(delta)) this.#refusedKeys.delete(key);
  }

  /**
   * The TLS relay's sockets nginx's data names now or may name once it has what is staged, whole
   * or only its urgent part: to open before a push, and to keep once nginx has one (when nothing
   * is staged, exactly those nginx names).
   */
  relaySockets(): Map<string, RelaySocket> {
    return this.#relayPlan.sockets();
  }

  /** The configuration nginx.conf is rendered from for the staged listeners. */
  createConfiguration(options: RenderOptions): Configuration {
    return createDesiredConfiguration(this.#listeners, options);
  }

  /**
   * The body of a push for nginx running `running`: the whole `table` when given, else the staged
   * changes; refused entries left out, and the shared policies no host names once it is applied
   * deleted. Routes take profiles of the running nginx.conf's catalogue.
   */
  createUpdate(running: Configuration | undefined, table?: RouteTable): string {
    return this.#compile(running, table ?? pendingDelta(this.#pending), table !== undefined);
  }

  /**
   * The body of a push of what cannot wait for room in nginx's memory (see urgentDelta) for nginx
   * running `running`, or undefined when nothing staged is urgent.
   */
  createUrgentUpdate(running: Configuration | undefined): string | undefined {
    const delta = urgentDelta(this.#pending);
    if (delta.backends.upsert.length + delta.virtualHosts.remove.length === 0) return undefined;
    return this.#compile(running, delta, false);
  }

  #compile(running: Configuration | undefined, change: RouteTable | RouteTableDelta, full: boolean): string {
    const update = compileDataPlaneUpdate(change, {
      excludeKeys: this.#refusedKeys.keys(),
      upstreamDefaults: running?.settings.upstreamDefaults,
    });
    this.#policies.prepare(update, full);
    return serializeDataEntry(update);
  }

  /** Forgets the urgent changes nginx now has (the last urgent update made). */
  clearUrgent(): void {
    clearUrgent(this.#pending);
    this.#policies.commit();
    this.#relayPlan.commitUrgent();
  }

  /** The entries among `rejected` that are not routes and were not refused before. */
  findNewlyRefused(rejected: readonly RejectedEntry[]): RejectedEntry[] {
    return rejected.filter((entry) => entry.routeId === undefined && !this.#refusedKeys.has(entry.key));
  }

  /** Leaves `entries` out of every push until their keys change. */
  refuse(entries: readonly RejectedEntry[]): void {
    for (const entry of entries) this.#refusedKeys.set(entry.key, entry.message);
  }

  /** Forgets the staged changes: nginx now has them (the last update made). */
  clear(): void {
    clearPending(this.#pending);
    this.#policies.commit();
    // nginx kept what it had for the entries it refused.
    this.#relayPlan.commit((key) => this.#refusedKeys.has(key));
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
