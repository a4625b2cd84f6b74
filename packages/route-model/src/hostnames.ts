/**
 * Hostname patterns: what kind a pattern is, whether it covers a host, and the order in which a
 * request's host looks for its virtual host (most specific first).
 */
import type { HostnameMatch } from './types.js';

/** The hostname of the catch-all virtual host. */
export const ANY_HOSTNAME = '*';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Whether `hostname` is a valid pattern: a lower-case RFC 1123 DNS name of at most 253
 * characters, the same with a leading `*.` label, or `*`.
 */
export function isValidHostname(hostname: string): boolean {
  if (hostname === ANY_HOSTNAME) return true;
  const name = hostname.startsWith('*.') ? hostname.slice(2) : hostname;
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((label) => LABEL.test(label));
}

/** The kind of a hostname pattern, with `wildcard` deciding what `*.` means. */
export function hostnameMatchOf(
  hostname: string,
  wildcard: 'one-label' | 'suffix' = 'one-label',
): HostnameMatch {
  if (hostname === ANY_HOSTNAME) return 'any';
  return hostname.startsWith('*.') ? wildcard : 'exact';
}

/** Whether a pattern of kind `kind` covers `host` (lower case, without port). */
export function isHostCovered(pattern: string, kind: HostnameMatch, host: string): boolean {
  switch (kind) {
    case 'any':
      return true;
    case 'exact':
      return pattern === host;
    case 'one-label': {
      const suffix = pattern.slice(1);
      if (!host.endsWith(suffix)) return false;
      const label = host.slice(0, host.length - suffix.length);
      return label.length > 0 && !label.includes('.');
    }
    case 'suffix': {
      const suffix = pattern.slice(1);
      return host.length > suffix.length && host.endsWith(suffix);
    }
  }
}

/**
 * The hostname patterns that may cover `host`, most specific first: the host itself, then `*.`
 * with one more label dropped each time, then `*`. A data plane looks them up in this order.
 */
export function hostnameCandidates(host: string): string[] {
  const candidates = [host];
  let dot = host.indexOf('.');
  while (dot !== -1) {
    candidates.push(`*${host.slice(dot)}`);
    dot = host.indexOf('.', dot + 1);
  }
  candidates.push(ANY_HOSTNAME);
  return candidates;
}

/**
 * Orders hostname patterns from most to least specific: exact names, then wildcards with the
 * longest suffix first, then `*`; equal specificity by name, so the order is total.
 */
export function compareHostnames(a: string, b: string): number {
  const rank = (hostname: string) => (hostname === ANY_HOSTNAME ? 2 : hostname.startsWith('*.') ? 1 : 0);
  return rank(a) - rank(b) || b.length - a.length || (a < b ? -1 : a > b ? 1 : 0);
}
