/**
 * The incremental route table: sources (Ingresses, HTTPRoutes, ...) set and delete their
 * contributions one by one, and `commit()` re-assembles only the hostnames they touched and
 * returns the per-key delta. Work per change is proportional to the hosts it touches, not to the
 * size of the table.
 */
import type { SourcedHostContribution, SourcedTlsClaim } from './assemble.js';
import {
  BackendReferences,
  backendIdsOfContribution,
  backendIdsOfRoute,
  mergeReferenceChanges,
  type BackendReferenceChange,
} from './backend-references.js';
import { createEmptyDelta } from './diff.js';
import { sourceKey } from './ids.js';
import { isDeepEqual } from './equal.js';
import { assembleWithinLimit, type HostLimit } from './host-limit.js';
import { admitOwnedEntries, HostOwnership, type HostClaimant, type OwningClaim } from './host-ownership.js';
import { parentDomainOf } from './names-by-domain.js';
import { SourcesByHost } from './sources-by-host.js';
import { sortDelta, sortValuesByKey } from './table-order.js';
import { TlsBindings } from './tls-bindings.js';
import type {
  AssemblyNote,
  Backend,
  HostContribution,
  HostOwner,
  Listener,
  Route,
  RouteContribution,
  RouteOrigin,
  RouteTable,
  RouteTableDelta,
  TlsBinding,
  VirtualHost,
} from './types.js';

/** Options of {@link createRouteTableBuilder}. */
export interface RouteTableBuilderOptions {
  listeners?: Listener[];
  /** The fallback of hosts whose contributions ask for `'table-default'`; none (404) by default. */
  defaultFallback?: Route;
  /**
   * `shared` (the default): every contribution to a hostname is merged. `oldest-tenant`: a
   * hostname belongs to the tenant (`RouteContribution.tenant`) of the oldest contribution, by
   * route or TLS claim origin, to the hostname or to a wildcard that covers it (by the wildcard's
   * own kind); other tenants' routes and TLS claims for it are left out, with a
   * `host-owned-elsewhere` note, and an exact name is never served the `*.` certificate of
   * another tenant (see `NO_CERTIFICATE`). Contributions without a tenant are always merged.
   */
  hostOwnership?: 'shared' | 'oldest-tenant';
  /**
   * A limit on each assembled virtual host (see HostLimit): the sources of a hostname are admitted
   * oldest first, and one that would take it past the limit is left out of it with a
   * `host-limit-exceeded` note. None by default.
   */
  hostLimit?: HostLimit;
}

/** The route table being built: contributions set and deleted one by one, committed as a delta. */
export interface RouteTableBuilder {
  /** Replaces (or adds) the contribution of `contribution.source`. */
  setContribution(contribution: RouteContribution): BackendReferenceChange;
  /** Removes the contribution of the source with this key; nothing happens for an unknown key. */
  deleteContribution(key: string): BackendReferenceChange;
  /** The contribution a source set, by source key. */
  contribution(key: string): RouteContribution | undefined;
  /** Keys of every source with a contribution. */
  sourceKeys(): IterableIterator<string>;
  setBackend(backend: Backend): void;
  deleteBackend(id: string): void;
  /** Ids of the backends some route refers to, with the number of sources referring to each. */
  backendReferences(): ReadonlyMap<string, number>;
  /** Keys of the sources whose routes refer to backend `id`. */
  sourcesOfBackend(id: string): string[];
  /**
   * Who owns `hostname` under `hostOwnership: 'oldest-tenant'`, as the contributions set so far
   * decide (committed or not), wildcards that cover it included; with `claimant`, as they would
   * if its source named `hostname` with its origin (and its current contribution did not count).
   * Undefined in shared mode or when no source with a tenant names it.
   */
  hostOwner(hostname: string, claimant?: HostClaimant): HostOwner | undefined;
  setListeners(listeners: Listener[]): void;
  setDefaultFallback(route: Route | undefined): BackendReferenceChange;
  /** Re-assembles what changed since the last commit and returns the difference. */
  commit(): RouteTableDelta;
  /** The whole table as of the last commit, sorted; built on demand and cached until the next. */
  table(): RouteTable;
  /** The virtual host of `hostname` as of the last commit. */
  virtualHost(hostname: string): VirtualHost | undefined;
  /** The TLS binding of `hostname` as of the last commit. */
  tlsBinding(hostname: string): TlsBinding | undefined;
  /** What assembly decided against sources (hidden routes, overridden TLS), as of the last commit. */
  notes(): AssemblyNote[];
  /**
   * The `host-limit-exceeded` notes `contribution` would get if it were set now, with the
   * contributions set so far (committed or not); changes nothing. What an admission review asks.
   */
  previewHostLimit(contribution: RouteContribution): AssemblyNote[];
}

class IncrementalRouteTable implements RouteTableBuilder {
  #listeners: Listener[];
  #defaultFallback: Route | undefined;
  readonly #hostLimit: HostLimit | undefined;
  readonly #contributions = new Map<string, RouteContribution>();
  readonly #hostIndex = new SourcesByHost<SourcedHostContribution>();
  readonly #tlsIndex = new SourcesByHost<SourcedTlsClaim[]>();
  /** Under `oldest-tenant` only. */
  readonly #ownership: HostOwnership | undefined;
  /** Which sources refer to which backends ('' is the table's default fallback). */
  readonly #backendRefs = new BackendReferences();
  readonly #backends = new Map<string, Backend>();
  readonly #virtualHosts = new Map<string, VirtualHost>();
  readonly #hostNotes = new Map<string, AssemblyNote[]>();
  readonly #tls = new TlsBindings();
  /** The tenant of the source whose certificate each `*.` hostname is bound to, when it has one. */
  readonly #certificateTenants = new Map<string, string>();
  readonly #dirtyHosts = new Set<string>();
  readonly #dirtyTls = new Set<string>();
  readonly #dirtyBackends = new Set<string>();
  #listenersChanged = true;
  #table: RouteTable | undefined;

  constructor(options: RouteTableBuilderOptions) {
    this.#listeners = options.listeners ?? [];
    this.#defaultFallback = options.defaultFallback;
    if (options.hostOwnership === 'oldest-tenant') {
      this.#ownership = new HostOwnership({
        contributions: this.#contributions,
        hosts: this.#hostIndex,
        tls: this.#tlsIndex,
      });
    }
    this.#hostLimit = options.hostLimit;
    if (this.#defaultFallback !== undefined) {
      this.#backendRefs.refer('', backendIdsOfRoute(this.#defaultFallback));
    }
  }

  setContribution(contribution: RouteContribution): BackendReferenceChange {
    // The key is kept in five maps for as long as the source: one flat string, not the tree of
    // pieces a template literal makes (a JSON round trip is the portable way to flatten).
    const key = JSON.parse(JSON.stringify(sourceKey(contribution.source))) as string;
    const change = this.#unindex(key);
    this.#contributions.set(key, contribution);
    for (const host of contribution.hosts) {
      const existing = this.#hostIndex.get(host.hostname, key);
      // One source naming a hostname twice (two rules for one host) contributes once.
      this.#hostIndex.set(host.hostname, key, {
        source: contribution.source,
        host: existing === undefined ? host : mergeHosts(existing.host, host),
      });
      this.#touch(host.hostname);
    }
    for (const claim of contribution.tls) {
      const claims = this.#tlsIndex.get(claim.hostname, key) ?? [];
      claims.push({ source: contribution.source, claim });
      this.#tlsIndex.set(claim.hostname, key, claims);
      this.#touchTls(claim.hostname);
    }
    const added = this.#backendRefs.refer(key, backendIdsOfContribution(contribution));
    return mergeReferenceChanges(change, added);
  }

  deleteContribution(key: string): BackendReferenceChange {
    return this.#unindex(key);
  }

  contribution(key: string): RouteContribution | undefined {
    return this.#contributions.get(key);
  }

  sourceKeys(): IterableIterator<string> {
    return this.#contributions.keys();
  }

  setBackend(backend: Backend): void {
    const old = this.#backends.get(backend.id);
    if (old !== undefined && isDeepEqual(old, backend)) return;
    this.#backends.set(backend.id, backend);
    this.#dirtyBackends.add(backend.id);
  }

  deleteBackend(id: string): void {
    if (this.#backends.delete(id)) this.#dirtyBackends.add(id);
  }

  backendReferences(): ReadonlyMap<string, number> {
    return new Map(this.#backendRefs.counts());
  }

  sourcesOfBackend(id: string): string[] {
    return this.#backendRefs
      .sourcesOf(id)
      .filter((key) => key !== '')
      .sort();
  }

  setListeners(listeners: Listener[]): void {
    if (isDeepEqual(listeners, this.#listeners)) return;
    this.#listeners = listeners;
    this.#listenersChanged = true;
  }

  setDefaultFallback(route: Route | undefined): BackendReferenceChange {
    if (isDeepEqual(route, this.#defaultFallback)) return { added: [], removed: [] };
    const removed = this.#backendRefs.unrefer('');
    this.#defaultFallback = route;
    const added =
      route === undefined
        ? { added: [], removed: [] }
        : this.#backendRefs.refer('', backendIdsOfRoute(route));
    // Only hosts that ask for the table default change, but which ones is not indexed: the table
    // default changes about never, so re-assembling every host is the simple, correct choice.
    for (const hostname of this.#hostIndex.hostnames()) this.#dirtyHosts.add(hostname);
    return mergeReferenceChanges(removed, added);
  }

  commit(): RouteTableDelta {
    const delta = createEmptyDelta();
    // A wildcard that claims its names differently changes the owner of names no source touched.
    for (const hostname of this.#ownership?.takeCoveredChanges(this.#dirtyHosts) ?? []) {
      this.#dirtyHosts.add(hostname);
      this.#dirtyTls.add(hostname);
    }
    // A hostname's owner decides both its routes and its certificate: found once per commit.
    const owners = new Map<string, OwningClaim | undefined>();
    for (const hostname of this.#dirtyHosts) {
      const claim = this.#owningClaim(hostname);
      owners.set(hostname, claim);
      const owner = claim?.owner;
      const ownership: AssemblyNote[] = [];
      const admitted = this.#admitted(hostname, owner, this.#hostIndex.sources(hostname), ownership);
      const { virtualHost, notes } = assembleWithinLimit(
        hostname,
        admitted.map(([, entry]) => entry),
        this.#defaultFallback,
        this.#hostLimit,
      );
      if (owner !== undefined) {
        // Sources that claim only a certificate for the hostname are told too.
        const noted = new Set(ownership.map((note) => sourceKey(note.source)));
        const claimNotes: AssemblyNote[] = [];
        this.#admitted(hostname, owner, this.#tlsIndex.sources(hostname), claimNotes);
        ownership.push(...claimNotes.filter((note) => !noted.has(sourceKey(note.source))));
      }
      notes.unshift(...ownership);
      if (notes.length === 0) this.#hostNotes.delete(hostname);
      else this.#hostNotes.set(hostname, notes);
      const old = this.#virtualHosts.get(hostname);
      if (virtualHost === undefined) {
        if (old !== undefined) {
          this.#virtualHosts.delete(hostname);
          delta.virtualHosts.remove.push(hostname);
        }
      } else if (old === undefined || !isDeepEqual(old, virtualHost)) {
        this.#virtualHosts.set(hostname, virtualHost);
        delta.virtualHosts.upsert.push(virtualHost);
      }
    }
    const certificatesBefore = this.#tls.certificateIds();
    this.#commitTlsHosts(owners, delta);
    this.#tls.diffCertificates(certificatesBefore, delta);
    for (const id of this.#dirtyBackends) {
      const backend = this.#backends.get(id);
      if (backend === undefined) delta.backends.remove.push(id);
      else delta.backends.upsert.push(backend);
    }
    if (this.#listenersChanged) delta.listeners = this.#listeners;
    this.#dirtyHosts.clear();
    this.#dirtyTls.clear();
    this.#dirtyBackends.clear();
    this.#listenersChanged = false;
    this.#table = undefined;
    sortDelta(delta);
    return delta;
  }

  table(): RouteTable {
    this.#table ??= {
      listeners: this.#listeners,
      virtualHosts: sortValuesByKey(this.#virtualHosts),
      tls: sortValuesByKey(this.#tls.bindings()),
      certificates: sortValuesByKey(this.#tls.certificates()),
      backends: sortValuesByKey(this.#backends),
    };
    return this.#table;
  }

  virtualHost(hostname: string): VirtualHost | undefined {
    return this.#virtualHosts.get(hostname);
  }

  tlsBinding(hostname: string): TlsBinding | undefined {
    return this.#tls.bindings().get(hostname);
  }

  notes(): AssemblyNote[] {
    return [...this.#hostNotes.values(), ...this.#tls.notes()].flat();
  }

  previewHostLimit(contribution: RouteContribution): AssemblyNote[] {
    if (this.#hostLimit === undefined) return [];
    const key = sourceKey(contribution.source);
    const hosts = new Map<string, HostContribution>();
    for (const host of contribution.hosts) {
      const existing = hosts.get(host.hostname);
      hosts.set(host.hostname, existing === undefined ? host : mergeHosts(existing, host));
    }
    const notes: AssemblyNote[] = [];
    for (const [hostname, host] of hosts) {
      const entries = this.#hostIndex.sources(hostname).filter(([other]) => other !== key);
      entries.push([key, { source: contribution.source, host }]);
      // Only the entries' own contributions are looked up, the previewed one among them.
      const contributions = new Map(entries.map(([other]) => [other, this.#contributions.get(other)!]));
      contributions.set(key, contribution);
      const admitted = admitOwnedEntries(
        hostname,
        this.#owningClaim(hostname)?.owner,
        entries,
        contributions,
        [],
      );
      const assembled = assembleWithinLimit(
        hostname,
        admitted.map(([, entry]) => entry),
        this.#defaultFallback,
        this.#hostLimit,
      );
      for (const note of assembled.notes) {
        if (note.type === 'host-limit-exceeded' && sourceKey(note.source) === key) notes.push(note);
      }
    }
    return notes;
  }

  /**
   * Commits the TLS bindings of the dirty hostnames: wildcards first, since an exact name one
   * label under a wildcard whose certificate changed tenant must be looked at again (see
   * `NO_CERTIFICATE`), then exact names.
   */
  #commitTlsHosts(owners: Map<string, OwningClaim | undefined>, delta: RouteTableDelta): void {
    const exact: string[] = [];
    for (const hostname of this.#dirtyTls) {
      if (!hostname.startsWith('*.')) {
        exact.push(hostname);
        continue;
      }
      const winner = this.#commitTls(hostname, this.#ownerOf(owners, hostname), delta);
      if (this.#ownership === undefined) continue;
      const tenant =
        winner === undefined ? undefined : this.#contributions.get(sourceKey(winner.source))?.tenant;
      if (tenant === this.#certificateTenants.get(hostname)) continue;
      if (tenant === undefined) this.#certificateTenants.delete(hostname);
      else this.#certificateTenants.set(hostname, tenant);
      for (const name of this.#ownership.exactNamesUnder(hostname)) {
        if (!this.#dirtyTls.has(name)) exact.push(name);
      }
    }
    for (const hostname of exact) this.#commitTls(hostname, this.#ownerOf(owners, hostname), delta);
  }

  /** The owning claim found for `hostname` at this commit, or found now. */
  #ownerOf(owners: Map<string, OwningClaim | undefined>, hostname: string): OwningClaim | undefined {
    return owners.has(hostname) ? owners.get(hostname) : this.#owningClaim(hostname);
  }

  #commitTls(
    hostname: string,
    owner: OwningClaim | undefined,
    delta: RouteTableDelta,
  ): SourcedTlsClaim | undefined {
    // Ownership notes for the hostname are made once, with its virtual host.
    const claims = this.#admitted(hostname, owner?.owner, this.#tlsIndex.sources(hostname), [])
      .map(([, entries]) => entries)
      .flat();
    return this.#tls.commitHost(hostname, claims, delta, this.#shieldOf(hostname, owner, claims));
  }

  /**
   * The origin to bind an exact `hostname` to `NO_CERTIFICATE` with: when it has no certificate of
   * its own and the `*.` one label up is another tenant's, whose certificate a data plane would
   * otherwise serve for it.
   */
  #shieldOf(
    hostname: string,
    owner: OwningClaim | undefined,
    claims: readonly SourcedTlsClaim[],
  ): RouteOrigin | undefined {
    if (owner === undefined || claims.length > 0 || hostname.startsWith('*.')) return undefined;
    const domain = parentDomainOf(hostname);
    const tenant = domain === undefined ? undefined : this.#certificateTenants.get(`*.${domain}`);
    return tenant === undefined || tenant === owner.owner.tenant ? undefined : owner.origin;
  }

  #touch(hostname: string): void {
    this.#dirtyHosts.add(hostname);
    // Who owns a hostname depends on both its routes and its TLS claims.
    if (this.#ownership !== undefined) {
      this.#dirtyTls.add(hostname);
      this.#ownership.track(hostname);
    }
  }

  #touchTls(hostname: string): void {
    this.#dirtyTls.add(hostname);
    if (this.#ownership !== undefined) {
      this.#dirtyHosts.add(hostname);
      this.#ownership.track(hostname);
    }
  }

  hostOwner(hostname: string, claimant?: HostClaimant): HostOwner | undefined {
    if (claimant === undefined) return this.#ownership?.find(hostname)?.owner;
    return this.#ownership?.find(hostname, { ...claimant, key: sourceKey(claimant.source) })?.owner;
  }

  /** The owning claim on `hostname` (recorded as the one it is committed with); undefined in shared mode. */
  #owningClaim(hostname: string): OwningClaim | undefined {
    const claim = this.#ownership?.find(hostname);
    this.#ownership?.commitOwner(hostname, claim);
    return claim;
  }

  #admitted<T>(
    hostname: string,
    owner: HostOwner | undefined,
    entries: [string, T][],
    notes: AssemblyNote[],
  ): [string, T][] {
    return admitOwnedEntries(hostname, owner, entries, this.#contributions, notes);
  }

  #unindex(key: string): BackendReferenceChange {
    const old = this.#contributions.get(key);
    if (old === undefined) return { added: [], removed: [] };
    this.#contributions.delete(key);
    for (const host of old.hosts) {
      this.#hostIndex.delete(host.hostname, key);
      this.#touch(host.hostname);
    }
    for (const claim of old.tls) {
      this.#tlsIndex.delete(claim.hostname, key);
      this.#touchTls(claim.hostname);
    }
    return this.#backendRefs.unrefer(key);
  }
}

/**
 * Creates an empty incremental route table. Typical use: on each change, `setContribution` or
 * `deleteContribution` for the sources that changed, `setBackend` for backends that are newly
 * referenced or changed, then `commit()` and hand the delta to the data plane.
 */
export function createRouteTableBuilder(options: RouteTableBuilderOptions = {}): RouteTableBuilder {
  return new IncrementalRouteTable(options);
}

function mergeHosts(a: HostContribution, b: HostContribution): HostContribution {
  const merged: HostContribution = { hostname: a.hostname, routes: [...a.routes, ...b.routes] };
  const wildcard = a.wildcard ?? b.wildcard;
  if (wildcard !== undefined) merged.wildcard = wildcard;
  const fallback = a.fallback ?? b.fallback;
  if (fallback !== undefined) merged.fallback = fallback;
  if (a.canaries !== undefined || b.canaries !== undefined) {
    merged.canaries = [...(a.canaries ?? []), ...(b.canaries ?? [])];
  }
  return merged;
}
