/**
 * The hostnames of a table by their parent domain, so that a change to a wildcard finds the names
 * it covers without a scan of the table: `a.shop.test` and `*.shop.test` are kept under
 * `shop.test`, and `shop.test` as a subdomain of `test`. Nearly every domain holds one name or one
 * subdomain, so a lone entry is kept as a string and a Set is made only for a second one.
 */

type Entries = string | Set<string>;

/** The domain a hostname (exact or `*.`) is one label under; undefined for a single label or `*`. */
export function parentDomainOf(hostname: string): string | undefined {
  const dot = hostname.indexOf('.');
  return dot < 0 ? undefined : hostname.slice(dot + 1);
}

/** Hostnames indexed by parent domain, with the tree of domains above them. */
export class NamesByDomain {
  /** Names one label under each domain. */
  readonly #names = new Map<string, Entries>();
  /** Domains one label under each domain that hold names, directly or below. */
  readonly #subdomains = new Map<string, Entries>();

  /** Adds `hostname`; nothing happens when it is there already or has no parent domain. */
  add(hostname: string): void {
    const domain = parentDomainOf(hostname);
    if (domain === undefined) return;
    if (!addEntry(this.#names, domain, hostname)) return;
    // Link the domain into the tree up to the first domain already linked.
    let child = domain;
    for (let parent = parentDomainOf(child); parent !== undefined; parent = parentDomainOf(child)) {
      if (!addEntry(this.#subdomains, parent, child)) return;
      child = parent;
    }
  }

  /** Removes `hostname`, and every domain left without names below it. */
  delete(hostname: string): void {
    const domain = parentDomainOf(hostname);
    if (domain === undefined || !deleteEntry(this.#names, domain, hostname)) return;
    let child = domain;
    for (let parent = parentDomainOf(child); parent !== undefined; parent = parentDomainOf(child)) {
      if (this.#names.has(child) || this.#subdomains.has(child)) return;
      deleteEntry(this.#subdomains, parent, child);
      child = parent;
    }
  }

  /** The names one label under `domain` (`a.shop.test` and `*.shop.test` for `shop.test`). */
  childrenOf(domain: string): string[] {
    return listEntries(this.#names.get(domain));
  }

  /** Every name under `domain`, at any depth. */
  descendantsOf(domain: string): string[] {
    const names: string[] = [];
    const domains = [domain];
    for (let next = domains.pop(); next !== undefined; next = domains.pop()) {
      const children = this.#names.get(next);
      if (typeof children === 'string') names.push(children);
      else if (children !== undefined) names.push(...children);
      const subdomains = this.#subdomains.get(next);
      if (typeof subdomains === 'string') domains.push(subdomains);
      else if (subdomains !== undefined) domains.push(...subdomains);
    }
    return names;
  }
}

/** Adds `value` under `key`; false when it was there. */
function addEntry(map: Map<string, Entries>, key: string, value: string): boolean {
  const entries = map.get(key);
  if (entries === undefined) {
    map.set(key, value);
    return true;
  }
  if (typeof entries === 'string') {
    if (entries === value) return false;
    map.set(key, new Set([entries, value]));
    return true;
  }
  if (entries.has(value)) return false;
  entries.add(value);
  return true;
}

/** Removes `value` from under `key`; false when it was not there. */
function deleteEntry(map: Map<string, Entries>, key: string, value: string): boolean {
  const entries = map.get(key);
  if (entries === undefined) return false;
  if (typeof entries === 'string') {
    if (entries !== value) return false;
    map.delete(key);
    return true;
  }
  if (!entries.delete(value)) return false;
  if (entries.size === 1) map.set(key, [...entries][0]!);
  return true;
}

function listEntries(entries: Entries | undefined): string[] {
  if (entries === undefined) return [];
  return typeof entries === 'string' ? [entries] : [...entries];
}
