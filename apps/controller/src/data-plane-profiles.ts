/**
 * Which nginx.conf the staged routes need and when it takes a reload: nginx.conf depends only on
 * the listeners, the settings and the set of directive profiles the routes use.
 */
import {
  createConfiguration,
  profileOf,
  type Configuration,
  type Profile,
  type RenderOptions,
} from '@ingresskit/nginx-template';
import type { Listener, VirtualHost } from '@ingresskit/route-model';

/** The directive profiles the routes of `virtualHost` use, each once. */
export function profilesOf(virtualHost: VirtualHost): Profile[] {
  const profiles = new Map<string, Profile>();
  for (const route of [
    ...virtualHost.routes,
    ...(virtualHost.fallbackRoute === undefined ? [] : [virtualHost.fallbackRoute]),
  ]) {
    const profile = profileOf(route);
    if (profile !== undefined) profiles.set(profile.name, profile);
  }
  return [...profiles.values()];
}

/** The configuration nginx.conf is rendered from for `listeners` and the profiles the hosts use. */
export function createDesiredConfiguration(
  listeners: Listener[],
  profilesByHost: ReadonlyMap<string, Profile[]>,
  options: RenderOptions,
): Configuration {
  const profiles = new Map<string, Profile>();
  for (const list of profilesByHost.values()) for (const profile of list) profiles.set(profile.name, profile);
  return createConfiguration({ listeners, profiles: profiles.values() }, options).configuration;
}

/**
 * Whether going from `running` (undefined: none) to `next` takes a reload: new settings, new
 * listeners or a profile nginx.conf lacks.
 */
export function needsReload(running: Configuration | undefined, next: Configuration): boolean {
  // Profiles only ever grow between reloads: a route that goes away leaves its profile's
  // locations in nginx.conf (unused and harmless) until the next reload needed anyway.
  if (running === undefined) return true;
  if (JSON.stringify(running.settings) !== JSON.stringify(next.settings)) return true;
  if (JSON.stringify(running.listeners) !== JSON.stringify(next.listeners)) return true;
  const loaded = new Set(running.profiles.map((profile) => profile.name));
  return next.profiles.some((profile) => !loaded.has(profile.name));
}

/** Hostnames whose routes use a profile that `running` (undefined: none) lacks. */
export function findHostsNeedingReload(
  running: Configuration | undefined,
  profilesByHost: ReadonlyMap<string, Profile[]>,
): Set<string> {
  const loaded = new Set(running?.profiles.map((profile) => profile.name));
  const held = new Set<string>();
  for (const [hostname, profiles] of profilesByHost) {
    if (profiles.some((profile) => !loaded.has(profile.name))) held.add(hostname);
  }
  return held;
}
