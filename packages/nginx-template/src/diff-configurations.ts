/** What changed between the running configuration and a new one, and how to apply it. */
import { compareText } from './compare.js';
import type { Backend, Configuration, Server } from './types.js';

/** How to go from one configuration to the next. */
export interface ConfigurationDiff {
  /** nginx.conf changes: render, test and reload. */
  reloadRequired: boolean;
  /** The backends payload changes: POST it (after a reload, or alone when no reload is needed). */
  backendsChanged: boolean;
  /** The certificate files change: write the new ones before the reload. */
  certificatesChanged: boolean;
  /** Human-readable reasons, at most `MAX_REASONS` of them plus a count of the rest. */
  reasons: string[];
}

const MAX_REASONS = 20;

function describeSetChanges<T>(
  kind: string,
  previous: readonly T[],
  next: readonly T[],
  keyOf: (item: T) => string,
  isEqual: (a: T, b: T) => boolean,
): string[] {
  const before = new Map(previous.map((item) => [keyOf(item), item]));
  const after = new Map(next.map((item) => [keyOf(item), item]));
  const reasons: string[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort(compareText)) {
    const a = before.get(key);
    const b = after.get(key);
    if (a === undefined) reasons.push(`${kind} ${key} added`);
    else if (b === undefined) reasons.push(`${kind} ${key} removed`);
    else if (!isEqual(a, b)) reasons.push(`${kind} ${key} changed`);
  }
  return reasons;
}

function isSameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isSameRendering(a: Backend, b: Backend): boolean {
  return a.externalName === b.externalName && a.port === b.port;
}

/**
 * Compares the running configuration (undefined before the first one) with the next. Only
 * endpoint changes are dynamic: they set backendsChanged without reloadRequired, so a POST of
 * backendsPayload(next) is enough. Anything rendered into nginx.conf needs a reload.
 */
export function diffConfigurations(
  previous: Configuration | undefined,
  next: Configuration,
): ConfigurationDiff {
  if (previous === undefined) {
    return {
      reloadRequired: true,
      backendsChanged: true,
      certificatesChanged: next.certificates.length > 0,
      reasons: ['no running configuration'],
    };
  }
  const structural = [
    ...(isSameJson(previous.defaultServer, next.defaultServer) ? [] : ['catch-all server changed']),
    ...describeSetChanges<Server>(
      'server',
      previous.servers,
      next.servers,
      (server) => server.host,
      isSameJson,
    ),
    ...describeSetChanges(
      'backend',
      previous.backends,
      next.backends,
      (backend) => backend.name,
      isSameRendering,
    ),
  ];
  const certificates = describeSetChanges(
    'certificate',
    previous.certificates,
    next.certificates,
    (certificate) => certificate.fileName,
    () => true,
  );
  const endpoints = describeSetChanges(
    'endpoints of backend',
    previous.backends,
    next.backends,
    (backend) => backend.name,
    (a, b) => isSameJson(a.endpoints, b.endpoints),
  ).filter((reason) => reason.endsWith(' changed'));
  const addedOrRemoved =
    previous.backends.length !== next.backends.length ||
    previous.backends.some((backend, index) => backend.name !== next.backends[index]?.name);
  const backendsChanged = endpoints.length > 0 || addedOrRemoved;
  // The checksum covers everything rendered; comparing it catches what the lists above do not name.
  const reloadRequired =
    previous.checksum !== next.checksum || structural.length > 0 || certificates.length > 0;
  const all = [...structural, ...certificates, ...endpoints];
  if (reloadRequired && all.length === 0) all.push('rendered configuration changed');
  const reasons =
    all.length > MAX_REASONS ? [...all.slice(0, MAX_REASONS), `and ${all.length - MAX_REASONS} more`] : all;
  return { reloadRequired, backendsChanged, certificatesChanged: certificates.length > 0, reasons };
}
