/**
 * Host ownership under `hostOwnership: 'oldest-tenant'`: a hostname belongs to the tenant of the
 * oldest contribution among those to the hostname itself and to every wildcard that covers it
 * (each with its own kind: an Ingress's `*.` covers one label, a Gateway API `*.` any number), and
 * other tenants' routes and TLS claims for it are left out with a note. So a wildcard owns the
 * names it covers from the moment it is the oldest claim on them, and a younger wildcard takes no
 * name an older contribution holds. `*` (every host) covers nothing here: it is its own name.
 */
import type { SourcedHostContribution, SourcedTlsClaim } from './assemble.js';
import { NamesByDomain, parentDomainOf } from './names-by-domain.js';
import { compareOrigins } from './precedence.js';
import type { SourcesByHost } from './sources-by-host.js';
import type {
  AssemblyNote,
  HostContribution,
  HostOwner,
  RouteContribution,
  RouteOrigin,
  SourceRef,
} from './types.js';

/** What ownership reads of the builder: contributions by source key, and who names each hostname. */
export interface OwnershipSources {
  contributions: ReadonlyMap<string, RouteContribution>;
  hosts: SourcesByHost<SourcedHostContribution>;
  tls: SourcesByHost<SourcedTlsClaim[]>;
}

/**
 * A source that is not in the table as it will be (an object being admitted): ownership is
 * decided as if its contribution named the hostname with this origin, and its own contribution in
 * the table, if any, is not counted.
 */
export interface HostClaimant {
  source: SourceRef;
  tenant: string;
  origin: RouteOrigin;
}

/** The owning claim on a hostname: the owner, its source key and the origin that made it the owner. */
export interface OwningClaim {
  owner: HostOwner;
  key: string;
  origin: RouteOrigin;
}

/** A tenant's claim: its source key, its oldest origin for a name, and the wildcard it named, if one. */
interface Claim {
  key: string;
  origin: RouteOrigin;
  via: string | undefined;
}

/**
 * The oldest tenant claims on a wildcard pattern: over all its contributions (they cover the exact
 * names one label under it) and over its `suffix` ones (they also cover every name further down).
 */
interface CoverageClaims {
  near: Claim | undefined;
  deep: Claim | undefined;
}

type ClaimVisitor = (key: string, origin: RouteOrigin | undefined, via: string | undefined) => void;

/**
 * Ownership of every hostname of a table, kept as contributions change: which names exist under
 * which domain (so a wildcard finds the names it covers without a scan), and the owner each
 * hostname and the claims each wildcard were last committed with (so only names whose owner
 * really changed are assembled again).
 */
export class HostOwnership {
  readonly #sources: OwnershipSources;
  readonly #names = new NamesByDomain();
  /** Committed coverage claims of the wildcards that have one. */
  readonly #coverage = new Map<string, CoverageClaims>();
  /** The origin of the owning claim each hostname was committed with, when it has an owner. */
  readonly #owners = new Map<string, RouteOrigin>();

  constructor(sources: OwnershipSources) {
    this.#sources = sources;
  }

  /** Keeps `hostname` in the index of names exactly while some source names it; call after each change. */
  track(hostname: string): void {
    if (this.#sources.hosts.has(hostname) || this.#sources.tls.has(hostname)) this.#names.add(hostname);
    else this.#names.delete(hostname);
  }

  /**
   * The owning claim on `hostname` as the contributions set so far decide, or as they would with
   * `claimant` (whose source key is `claimant.key`); undefined when no tenant names it.
   */
  find(hostname: string, claimant?: HostClaimant & { key: string }): OwningClaim | undefined {
    const { contributions } = this.#sources;
    const oldest: { claim?: Claim } = {};
    this.#visitClaims(hostname, (key, origin, via) => {
      if (origin === undefined || key === claimant?.key || contributions.get(key)?.tenant === undefined)
        return;
      if (oldest.claim === undefined || compareOrigins(origin, oldest.claim.origin) < 0)
        oldest.claim = { key, origin, via };
    });
    const found = oldest.claim;
    if (
      claimant !== undefined &&
      (found === undefined || compareOrigins(claimant.origin, found.origin) < 0)
    ) {
      const owner = { tenant: claimant.tenant, source: claimant.source };
      return { owner, key: claimant.key, origin: claimant.origin };
    }
    if (found === undefined) return undefined;
    const contribution = contributions.get(found.key)!;
    const owner: HostOwner = { tenant: contribution.tenant!, source: contribution.source };
    if (found.via !== undefined) owner.via = found.via;
    return { owner, key: found.key, origin: found.origin };
  }

  /**
   * The hostnames outside `dirty` whose owner is no longer the one they were committed with,
   * because a wildcard in `dirty` claims its names differently now (a new, older or removed
   * claim). Only the names under such a wildcard are looked at, and only when its oldest claims
   * changed, so editing a wildcard's routes costs nothing here. Call at a commit, before `dirty`.
   */
  takeCoveredChanges(dirty: ReadonlySet<string>): string[] {
    const suspects = new Set<string>();
    for (const pattern of dirty) {
      if (!pattern.startsWith('*.')) continue;
      const before = this.#coverage.get(pattern);
      const after = this.#coverageOf(pattern);
      if (after.near === undefined && after.deep === undefined) this.#coverage.delete(pattern);
      else this.#coverage.set(pattern, after);
      const domain = pattern.slice(2);
      let covered: string[];
      if (!isSameClaim(before?.deep, after.deep)) covered = this.#names.descendantsOf(domain);
      else if (!isSameClaim(before?.near, after.near)) covered = this.#names.childrenOf(domain);
      else continue;
      for (const hostname of covered) {
        if (dirty.has(hostname) || hostname === pattern) continue;
        // An exact name one label under the wildcard (its first dot is where `domain` starts).
        const isNear =
          !hostname.startsWith('*.') && hostname.indexOf('.') === hostname.length - domain.length - 1;
        const was = isNear ? before?.near : before?.deep;
        const now = isNear ? after.near : after.deep;
        if (isSameClaim(was, now)) continue;
        // The owner changes only if the wildcard's claim was the owning one, or now comes first.
        const owner = this.#owners.get(hostname);
        if (
          owner !== undefined &&
          (was === undefined || compareOrigins(was.origin, owner) !== 0) &&
          (now === undefined || compareOrigins(now.origin, owner) >= 0)
        )
          continue;
        suspects.add(hostname);
      }
    }
    const changed: string[] = [];
    for (const hostname of suspects) {
      if (this.find(hostname)?.origin !== this.#owners.get(hostname)) changed.push(hostname);
    }
    return changed;
  }

  /** Records the owning claim `hostname` was assembled with. */
  commitOwner(hostname: string, claim: OwningClaim | undefined): void {
    if (claim === undefined) this.#owners.delete(hostname);
    else this.#owners.set(hostname, claim.origin);
  }

  /** The exact names one label under the wildcard `pattern` (those its certificate is served for). */
  exactNamesUnder(pattern: string): string[] {
    return this.#names.childrenOf(pattern.slice(2)).filter((hostname) => !hostname.startsWith('*.'));
  }

  /**
   * Visits every claim that counts for `hostname`: its own contributions (routes, fallback, TLS),
   * then those of each wildcard that covers it, from the nearest up.
   */
  #visitClaims(hostname: string, visit: ClaimVisitor): void {
    const { hosts, tls } = this.#sources;
    for (const [key, { host }] of hosts.sources(hostname)) visit(key, oldestOriginOf(host), undefined);
    for (const [key, claims] of tls.sources(hostname))
      for (const { claim } of claims) visit(key, claim.origin, undefined);
    // An exact name is covered by the wildcard one label up whatever its kind, and by those
    // further up only when they are `suffix`; a wildcard only by `suffix` wildcards above it.
    let near = !hostname.startsWith('*.');
    let domain = parentDomainOf(hostname);
    if (!near && domain !== undefined) domain = parentDomainOf(domain);
    for (; domain !== undefined; domain = parentDomainOf(domain), near = false) {
      const pattern = `*.${domain}`;
      for (const [key, { host }] of hosts.sources(pattern)) {
        if (near || host.wildcard === 'suffix') visit(key, oldestOriginOf(host), pattern);
      }
      // A certificate for `*.` is served one label down only (as data planes look it up).
      if (!near) continue;
      for (const [key, claims] of tls.sources(pattern))
        for (const { claim } of claims) visit(key, claim.origin, pattern);
    }
  }

  #coverageOf(pattern: string): CoverageClaims {
    const { contributions, hosts, tls } = this.#sources;
    const coverage: CoverageClaims = { near: undefined, deep: undefined };
    const consider = (key: string, origin: RouteOrigin | undefined, deep: boolean) => {
      if (origin === undefined || contributions.get(key)?.tenant === undefined) return;
      if (coverage.near === undefined || compareOrigins(origin, coverage.near.origin) < 0)
        coverage.near = { key, origin, via: pattern };
      if (deep && (coverage.deep === undefined || compareOrigins(origin, coverage.deep.origin) < 0))
        coverage.deep = { key, origin, via: pattern };
    };
    for (const [key, { host }] of hosts.sources(pattern))
      consider(key, oldestOriginOf(host), host.wildcard === 'suffix');
    for (const [key, claims] of tls.sources(pattern))
      for (const { claim } of claims) consider(key, claim.origin, false);
    return coverage;
  }
}

/**
 * The entries (by source key) `owner` lets contribute to `hostname`: all of them without an owner,
 * else those of sources without a tenant or of the owner's. Pushes a `host-owned-elsewhere` note
 * onto `notes` for each one left out. Every key must be in `contributions`.
 */
export function admitOwnedEntries<T>(
  hostname: string,
  owner: HostOwner | undefined,
  entries: [string, T][],
  contributions: ReadonlyMap<string, RouteContribution>,
  notes: AssemblyNote[],
): [string, T][] {
  if (owner === undefined) return entries;
  return entries.filter(([key]) => {
    const contribution = contributions.get(key)!;
    if (contribution.tenant === undefined || contribution.tenant === owner.tenant) return true;
    notes.push({ type: 'host-owned-elsewhere', source: contribution.source, hostname, owner });
    return false;
  });
}

function isSameClaim(a: Claim | undefined, b: Claim | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.key === b.key && compareOrigins(a.origin, b.origin) === 0;
}

/** The oldest origin of a source's routes and fallback for a hostname; undefined when it has none. */
export function oldestOriginOf(host: HostContribution): RouteOrigin | undefined {
  let oldest: RouteOrigin | undefined;
  for (const route of host.routes) {
    if (oldest === undefined || compareOrigins(route.origin, oldest) < 0) oldest = route.origin;
  }
  const fallback = host.fallback;
  if (fallback !== undefined && fallback !== 'table-default') {
    if (oldest === undefined || compareOrigins(fallback.origin, oldest) < 0) oldest = fallback.origin;
  }
  return oldest;
}
