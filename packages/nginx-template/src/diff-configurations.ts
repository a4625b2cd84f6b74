/** Whether going from the running Configuration to the next needs a reload, and why. */
import type { Configuration } from './build-configuration.js';

/** The outcome of diffConfigurations. */
export interface ConfigurationDiff {
  /** nginx.conf changes: render, `nginx -t`, reload, and push the data after the new workers run. */
  reloadRequired: boolean;
  /** Human-readable reasons, at most 20 plus a count of the rest. Empty when nothing changed. */
  reasons: string[];
}

const MAX_REASONS = 20;

function describe<T>(
  kind: string,
  previous: readonly T[],
  next: readonly T[],
  keyOf: (item: T) => string,
): string[] {
  const before = new Map(previous.map((item) => [keyOf(item), JSON.stringify(item)]));
  const after = new Map(next.map((item) => [keyOf(item), JSON.stringify(item)]));
  const reasons: string[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const a = before.get(key);
    const b = after.get(key);
    if (a === undefined) reasons.push(`${kind} ${key} added`);
    else if (b === undefined) reasons.push(`${kind} ${key} removed`);
    else if (a !== b) reasons.push(`${kind} ${key} changed`);
  }
  return reasons;
}

/**
 * Compares the running configuration (undefined before nginx runs) with the next. Hosts, paths,
 * backends, certificates and policies never appear here: they are pushed as data. A reload is
 * needed exactly when the configuration hashes differ: a listener or a setting changed.
 */
export function diffConfigurations(
  previous: Configuration | undefined,
  next: Configuration,
): ConfigurationDiff {
  if (previous === undefined) return { reloadRequired: true, reasons: ['no running configuration'] };
  if (previous.configHash === next.configHash) return { reloadRequired: false, reasons: [] };
  const settings = Object.keys({ ...previous.settings, ...next.settings })
    .sort()
    .filter((key) => {
      const name = key as keyof Configuration['settings'];
      return JSON.stringify(previous.settings[name]) !== JSON.stringify(next.settings[name]);
    })
    .map((key) => `setting ${key} changed`);
  const all = [
    ...describe('listener on port', previous.listeners, next.listeners, (listener) => String(listener.port)),
    ...settings,
  ];
  if (all.length === 0) all.push('rendered configuration changed');
  const reasons =
    all.length > MAX_REASONS ? [...all.slice(0, MAX_REASONS), `and ${all.length - MAX_REASONS} more`] : all;
  return { reloadRequired: true, reasons };
}
