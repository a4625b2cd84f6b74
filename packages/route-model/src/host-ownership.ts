/**
 * Host ownership under `hostOwnership: 'oldest-tenant'`: a hostname belongs to the tenant of its
 * oldest contribution, and other tenants' routes and TLS claims for it are left out with a note.
 */
import type { SourcedHostContribution, SourcedTlsClaim } from './assemble.js';
import { compareOrigins } from './precedence.js';
import type { SourcesByHost } from './sources-by-host.js';
import type { AssemblyNote, HostContribution, HostOwner, RouteContribution, RouteOrigin } from './types.js';

/**
 * The tenant of the oldest contribution (route, fallback or TLS claim) to `hostname` whose source
 * has one; undefined when no such source names it.
 */
export function findHostOwner(
  hostname: string,
  contributions: ReadonlyMap<string, RouteContribution>,
  hosts: SourcesByHost<SourcedHostContribution>,
  tls: SourcesByHost<SourcedTlsClaim[]>,
): HostOwner | undefined {
  let oldest: { origin: RouteOrigin; contribution: RouteContribution } | undefined;
  const consider = (key: string, origin: RouteOrigin | undefined) => {
    const contribution = contributions.get(key);
    if (origin === undefined || contribution?.tenant === undefined) return;
    if (oldest === undefined || compareOrigins(origin, oldest.origin) < 0) oldest = { origin, contribution };
  };
  for (const [key, { host }] of hosts.sources(hostname)) consider(key, oldestOriginOf(host));
  for (const [key, claims] of tls.sources(hostname)) {
    for (const { claim } of claims) consider(key, claim.origin);
  }
  if (oldest === undefined) return undefined;
  return { tenant: oldest.contribution.tenant!, source: oldest.contribution.source };
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

/** The oldest origin of a source's routes and fallback for a hostname; undefined when it has none. */
export function oldestOriginOf(host: HostContribution): RouteOrigin | undefined {
  const origins = host.routes.map((route) => route.origin);
  if (host.fallback !== undefined && host.fallback !== 'table-default') origins.push(host.fallback.origin);
  return origins.sort(compareOrigins)[0];
}
