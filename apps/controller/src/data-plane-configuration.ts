/**
 * Which nginx.conf the data plane needs and when it takes a reload: nginx.conf depends only on the
 * listeners and the settings (the directive profiles are a fixed catalogue nginx.conf always
 * holds), so no route, and no tenant, ever reloads nginx.
 */
import { createConfiguration, type Configuration, type RenderOptions } from '@ingresskit/nginx-template';
import type { Listener } from '@ingresskit/route-model';

/** The configuration nginx.conf is rendered from for `listeners`. */
export function createDesiredConfiguration(listeners: Listener[], options: RenderOptions): Configuration {
  return createConfiguration({ listeners }, options).configuration;
}

/** Whether going from `running` (undefined: none) to `next` takes a reload: new settings or listeners. */
export function needsReload(running: Configuration | undefined, next: Configuration): boolean {
  return running === undefined || running.configHash !== next.configHash;
}
