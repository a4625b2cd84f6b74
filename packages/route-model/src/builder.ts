/**
 * The incremental route table: sources (Ingresses, HTTPRoutes, ...) set and delete their
 * contributions one by one, and `commit()` re-assembles only the hostnames they touched and
 * returns the per-key delta. Work per change is proportional to the hosts it touches, not to the
 * size of the table.
 */
import {
  assembleTlsBinding,
  assembleVirtualHost,
  type SourcedHostContribution,
  type SourcedTlsClaim,
} from './assemble.js';
import { createEmptyDelta } from './diff.js';
import { isDeepEqual } from './equal.js';
import { MemberIndex } from './member-index.js';
import { compareOrigins } from './precedence.js';
import { SourcesByHost } from './sources-by-host.js';
import type {
  AssemblyNote,
  Backend,
  Certificate,
  HostContribution,
  HostOwner,
  Listener,
  Route,
  RouteContribution,
  RouteOrigin,
  RouteTable,
  RouteTableDelta,
  SourceRef,
  TlsBinding,
  VirtualHost,
} from './types.js';

/** The key of a source: `kind/namespace/name`. */
export function sourceKey(source: SourceRef): string {
  return `${source.kind}/${source.namespace}/${source.name}`;
}

/** Backend ids a route may send traffic to (its group and its mirror). */
export function backendIdsOfRoute(route: Route): string[] {
  const ids: string[] = [];
  if (route.action.type === 'forward') {
    for (const member of route.action.backends) if (member.backend !== undefined) ids.push(member.backend);
    for (const member of route.action.canary?.backends ?? []) {
      if (member.backend !== undefined) ids.push(member.backend);
    }
  }
  if (route.policy.mirror !== undefined) ids.push(route.policy.mirror.backend);
  return ids;
}

function backendIdsOfContribution(contribution: RouteContribution): Set<string> {
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

/** How the set of backends sources refer to changed with one call. */
export interface BackendReferenceChange {
  /** Ids no source referred to before. */
  added: string[];
  /** Ids no source refers to any more. */
  removed: string[];
}

/** Options of {@link createRouteTableBuilder}. */
export interface RouteTableBuilderOptions {
  listeners?: Listener[];
  /** The fallback of hosts whose contributions ask for `'table-default'`; none (404) by default. */
  defaultFallback?: Route;
  /**
   * `shared` (the default): every contribution to a hostname is merged. `oldest-tenant`: a
   * hostname belongs to the tenant (`RouteContribution.tenant`) of its oldest contribution, by
   * route or TLS claim origin; other tenants' routes and TLS claims for it are left out, with a
   * `host-owned-elsewhere` note. Contributions without a tenant are always merged.
   */
  hostOwnership?: 'shared' | 'oldest-tenant';
}

/** See the module comment. */
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
   * decide (committed or not); undefined in shared mode or when no source with a tenant names it.
   */
  hostOwner(hostname: string): HostOwner | undefined;
  setListeners(listeners: Listener[]): void;
  setDefaultFallback(route: Route | undefined): BackendReferenceChange;
  /** Re-assembles what changed since the last commit and returns the difference. */
  commit(): RouteTableDelta;
  /** The whole table as of the last commit, sorted; built on demand and cached until the next. */
  table(): RouteTable;
  /** The virtual host of `hostname` as of the last commit. */
  virtualHost(hostname: string): VirtualHost | undefined;
  /** What assembly decided against sources (hidden routes, overridden TLS), as of the last commit. */
  notes(): AssemblyNote[];
}

interface CertificateEntry {
  certificate: Certificate;
  bindings: number;
}

class IncrementalRouteTable implements RouteTableBuilder {
  #listeners: Listener[];
  #defaultFallback: Route | undefined;
  readonly #ownedHosts: boolean;
  readonly #contributions = new Map<string, RouteContribution>();
  readonly #hostIndex = new SourcesByHost<SourcedHostContribution>();
  readonly #tlsIndex = new SourcesByHost<SourcedTlsClaim[]>();
  /** Sources referring to each backend id ('' is the default fallback). */
  readonly #backendRefs = new MemberIndex();
  /** Backend ids each source refers to. */
  readonly #refsBySource = new Map<string, readonly string[]>();
  readonly #backends = new Map<string, Backend>();
  readonly #virtualHosts = new Map<string, VirtualHost>();
  readonly #hostNotes = new Map<string, AssemblyNote[]>();
  readonly #bindings = new Map<string, TlsBinding>();
  readonly #tlsNotes = new Map<string, AssemblyNote[]>();
  readonly #certificates = new Map<string, CertificateEntry>();
  readonly #dirtyHosts = new Set<string>();
  readonly #dirtyTls = new Set<string>();
  readonly #dirtyBackends = new Set<string>();
  #listenersChanged = true;
  #table: RouteTable | undefined;

  constructor(options: RouteTableBuilderOptions) {
    this.#listeners = options.listeners ?? [];
    this.#defaultFallback = options.defaultFallback;
    this.#ownedHosts = options.hostOwnership === 'oldest-tenant';
    if (this.#defaultFallback !== undefined) this.#refer('', backendIdsOfRoute(this.#defaultFallback));
  }

  setContribution(contribution: RouteContribution): BackendReferenceChange {
    const key = sourceKey(contribution.source);
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
    const added = this.#refer(key, backendIdsOfContribution(contribution));
    return mergeChanges(change, added);
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
      .members(id)
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
    const removed = this.#unrefer('');
    this.#defaultFallback = route;
    const added =
      route === undefined ? { added: [], removed: [] } : this.#refer('', backendIdsOfRoute(route));
    // Only hosts that ask for the table default change, but which ones is not indexed: the table
    // default changes about never, so re-assembling every host is the simple, correct choice.
    for (const hostname of this.#hostIndex.hostnames()) this.#dirtyHosts.add(hostname);
    return mergeChanges(removed, added);
  }

  commit(): RouteTableDelta {
    const delta = createEmptyDelta();
    // A hostname's owner decides both its routes and its certificate: found once per commit.
    const owners = new Map<string, HostOwner | undefined>();
    for (const hostname of this.#dirtyHosts) {
      const owner = this.#ownerOf(hostname);
      owners.set(hostname, owner);
      const ownership: AssemblyNote[] = [];
      const admitted = this.#admitted(hostname, owner, this.#hostIndex.sources(hostname), ownership);
      const { virtualHost, notes } = assembleVirtualHost(
        hostname,
        admitted.map(([, entry]) => entry),
        this.#defaultFallback,
      );
      if (owner !== undefined) {
        // Sources that claim only a certificate for the hostname are told too.
        const noted = new Set(ownership.map((note) => sourceKey(note.source)));
        const claimNotes: AssemblyNote[] = [];
        this.#admitted(hostname, owner, this.#tlsIndex.sources(hostname), claimNotes);
        ownership.push(...claimNotes.filter((note) => !noted.has(sourceKey(note.source))));
      }
      notes.unshift(...ownership);
      setOrDelete(this.#hostNotes, hostname, notes.length === 0 ? undefined : notes);
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
    const certificatesBefore = new Set(this.#certificates.keys());
    for (const hostname of this.#dirtyTls) {
      this.#commitTls(hostname, owners.has(hostname) ? owners.get(hostname) : this.#ownerOf(hostname), delta);
    }
    for (const [id, entry] of this.#certificates) {
      if (!certificatesBefore.has(id)) delta.certificates.upsert.push(entry.certificate);
    }
    for (const id of certificatesBefore) if (!this.#certificates.has(id)) delta.certificates.remove.push(id);
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
      virtualHosts: sortedValues(this.#virtualHosts),
      tls: sortedValues(this.#bindings),
      certificates: sortedValues(
        new Map([...this.#certificates].map(([id, entry]) => [id, entry.certificate])),
      ),
      backends: sortedValues(this.#backends),
    };
    return this.#table;
  }

  virtualHost(hostname: string): VirtualHost | undefined {
    return this.#virtualHosts.get(hostname);
  }

  notes(): AssemblyNote[] {
    return [...this.#hostNotes.values(), ...this.#tlsNotes.values()].flat();
  }

  #commitTls(hostname: string, owner: HostOwner | undefined, delta: RouteTableDelta): void {
    // Ownership notes for the hostname are made once, with its virtual host.
    const claims = this.#admitted(hostname, owner, this.#tlsIndex.sources(hostname), [])
      .map(([, entries]) => entries)
      .flat();
    const { binding, notes } = assembleTlsBinding(hostname, claims);
    setOrDelete(this.#tlsNotes, hostname, notes.length === 0 ? undefined : notes);
    const old = this.#bindings.get(hostname);
    if (old !== undefined && binding !== undefined && isDeepEqual(old, binding)) return;
    if (old !== undefined) this.#releaseCertificate(old.certificate);
    if (binding === undefined) {
      if (old !== undefined) {
        this.#bindings.delete(hostname);
        delta.tls.remove.push(hostname);
      }
      return;
    }
    const certificate = claims.find((entry) => entry.claim.certificate.id === binding.certificate)!.claim
      .certificate;
    const entry = this.#certificates.get(certificate.id);
    if (entry === undefined) this.#certificates.set(certificate.id, { certificate, bindings: 1 });
    else entry.bindings += 1;
    this.#bindings.set(hostname, binding);
    delta.tls.upsert.push(binding);
  }

  #touch(hostname: string): void {
    this.#dirtyHosts.add(hostname);
    // Who owns a hostname depends on both its routes and its TLS claims.
    if (this.#ownedHosts) this.#dirtyTls.add(hostname);
  }

  #touchTls(hostname: string): void {
    this.#dirtyTls.add(hostname);
    if (this.#ownedHosts) this.#dirtyHosts.add(hostname);
  }

  hostOwner(hostname: string): HostOwner | undefined {
    return this.#ownerOf(hostname);
  }

  /** The tenant of the oldest contribution (route or TLS claim) to `hostname` that has one. */
  #ownerOf(hostname: string): HostOwner | undefined {
    if (!this.#ownedHosts) return undefined;
    let oldest: { origin: RouteOrigin; contribution: RouteContribution } | undefined;
    const consider = (key: string, origin: RouteOrigin | undefined) => {
      const contribution = this.#contributions.get(key);
      if (origin === undefined || contribution?.tenant === undefined) return;
      if (oldest === undefined || compareOrigins(origin, oldest.origin) < 0)
        oldest = { origin, contribution };
    };
    for (const [key, { host }] of this.#hostIndex.sources(hostname)) consider(key, oldestOriginOf(host));
    for (const [key, claims] of this.#tlsIndex.sources(hostname)) {
      for (const { claim } of claims) consider(key, claim.origin);
    }
    if (oldest === undefined) return undefined;
    return { tenant: oldest.contribution.tenant!, source: oldest.contribution.source };
  }

  /** The entries of sources `owner` lets contribute to `hostname`; a note for each other one. */
  #admitted<T>(
    hostname: string,
    owner: HostOwner | undefined,
    entries: [string, T][],
    notes: AssemblyNote[],
  ): [string, T][] {
    if (owner === undefined) return entries;
    return entries.filter(([key]) => {
      const contribution = this.#contributions.get(key)!;
      if (contribution.tenant === undefined || contribution.tenant === owner.tenant) return true;
      notes.push({ type: 'host-owned-elsewhere', source: contribution.source, hostname, owner });
      return false;
    });
  }

  #releaseCertificate(id: string): void {
    const entry = this.#certificates.get(id);
    if (entry === undefined) return;
    entry.bindings -= 1;
    if (entry.bindings === 0) this.#certificates.delete(id);
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
    return this.#unrefer(key);
  }

  #refer(key: string, ids: Iterable<string>): BackendReferenceChange {
    const own = [...new Set(ids)];
    if (own.length === 0) return { added: [], removed: [] };
    this.#refsBySource.set(key, own);
    return { added: own.filter((id) => this.#backendRefs.add(id, key)), removed: [] };
  }

  #unrefer(key: string): BackendReferenceChange {
    const removed = (this.#refsBySource.get(key) ?? []).filter((id) => this.#backendRefs.delete(id, key));
    this.#refsBySource.delete(key);
    return { added: [], removed };
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

function oldestOriginOf(host: HostContribution): RouteOrigin | undefined {
  const origins = host.routes.map((route) => route.origin);
  if (host.fallback !== undefined && host.fallback !== 'table-default') origins.push(host.fallback.origin);
  return origins.sort(compareOrigins)[0];
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

// A reference dropped and taken again within one call is neither added nor removed.
function mergeChanges(first: BackendReferenceChange, second: BackendReferenceChange): BackendReferenceChange {
  const readded = new Set(second.added.filter((id) => first.removed.includes(id)));
  return {
    added: [...first.added, ...second.added.filter((id) => !readded.has(id))],
    removed: [...first.removed.filter((id) => !readded.has(id)), ...second.removed],
  };
}

function setOrDelete<K, V>(map: Map<K, V>, key: K, value: V | undefined): void {
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedValues<T>(map: ReadonlyMap<string, T>): T[] {
  return [...map.keys()].sort(compareKeys).map((key) => map.get(key)!);
}

function sortDelta(delta: RouteTableDelta): void {
  delta.virtualHosts.upsert.sort((a, b) => compareKeys(a.hostname, b.hostname));
  delta.tls.upsert.sort((a, b) => compareKeys(a.hostname, b.hostname));
  delta.certificates.upsert.sort((a, b) => compareKeys(a.id, b.id));
  delta.backends.upsert.sort((a, b) => compareKeys(a.id, b.id));
  for (const part of [delta.virtualHosts, delta.tls, delta.certificates, delta.backends])
    part.remove.sort(compareKeys);
}
