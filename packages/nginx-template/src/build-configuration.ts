/**
 * Route table + options → Configuration: everything nginx.conf is rendered from, and nothing
 * else. Hosts, paths, backends, certificates and policies are data (see createDataPlaneUpdate);
 * only the listeners and the settings reach the Configuration, so only they can require a
 * reload. The directive profiles are a fixed catalogue (profiles.ts), the same for every table.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { Backend, Listener, Problem, Route, RouteTable } from '@ingresskit/route-model';
import { compileRoute } from './compile-route.js';
import { createUpstreamDefaults } from './upstream-directives.js';
import { externalTargetOf, isValidEndpoint, isValidListener } from './data-plane-update.js';
import { backendProblem, listenerProblem, routeProblem } from './problems.js';
import { resolveSettings, type RenderOptions, type Settings } from './settings.js';

/** A listener as nginx.conf needs it: no name (names are data), the port clients use and the port bound. */
export interface ConfiguredListener {
  /** The listener's port in the route table (what redirects and routes see). */
  port: number;
  protocol: 'HTTP' | 'HTTPS';
  /** The port nginx binds (differs only through the `listenPorts` option). */
  bindPort: number;
}

/** Everything nginx.conf is rendered from. Plain JSON; equal hashes mean equal nginx.conf. */
export interface Configuration {
  /** SHA-256 (hex) of settings and listeners; also reported by the status endpoint as `confHash`. */
  configHash: string;
  settings: Settings;
  /** Sorted by port. */
  listeners: ConfiguredListener[];
}

/** What buildConfiguration returns. */
export interface BuildResult {
  configuration: Configuration;
  /** What the data plane serves differently from the table (see compileRoute), and listeners left out. */
  problems: Problem[];
}

/** SHA-256 (hex) of what nginx.conf is rendered from. */
export function computeConfigurationHash(configuration: Omit<Configuration, 'configHash'>): string {
  const { settings, listeners } = configuration;
  return createHash('sha256').update(JSON.stringify({ settings, listeners })).digest('hex');
}

function configureListeners(
  listeners: readonly Listener[],
  settings: Settings,
  problems: Problem[],
): ConfiguredListener[] {
  const byPort = new Map<number, ConfiguredListener>();
  const bound = new Set<number>();
  const sorted = [...listeners].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const listener of sorted) {
    if (!isValidListener(listener)) {
      problems.push(
        listenerProblem(
          String(listener.name),
          'needs a name, a port from 1 to 65535 and the protocol HTTP or HTTPS; left out',
        ),
      );
      continue;
    }
    const bindPort = settings.listenPorts[String(listener.port)] ?? listener.port;
    if (byPort.has(listener.port) || bound.has(bindPort)) {
      // One server per port: two listeners there could not be told apart by a request.
      problems.push(
        listenerProblem(listener.name, `shares port ${bindPort} with another listener; left out`),
      );
      continue;
    }
    byPort.set(listener.port, { port: listener.port, protocol: listener.protocol, bindPort });
    bound.add(bindPort);
  }
  if (byPort.size === 0) {
    problems.push(listenerProblem('', 'the table has no listener; nginx serves nothing'));
  }
  return [...byPort.values()].sort((a, b) => a.port - b.port);
}

function checkBackend(backend: Backend, settings: Settings, problems: Problem[]): void {
  if (backend.externalName !== undefined) {
    const target = externalTargetOf(backend);
    if (target === undefined) {
      problems.push(
        backendProblem(
          backend,
          'externalName must be a DNS name or IP address with a port from 1 to 65535; answers 503',
        ),
      );
    } else if (
      isIP(backend.externalName.hostname) === 0 &&
      backend.endpoints.length === 0 &&
      settings.resolvers.length === 0
    ) {
      // Pinned to the addresses it resolved to (endpoints), it needs no resolving by nginx.
      problems.push(
        backendProblem(
          backend,
          'externalName needs the resolvers option to be resolved (or endpoints: the addresses it resolved to); requests fail with 502',
        ),
      );
    }
    return;
  }
  const invalid = (backend.endpoints ?? []).filter((endpoint) => !isValidEndpoint(endpoint));
  if (invalid.length > 0) {
    problems.push(
      backendProblem(
        backend,
        `${invalid.length} endpoint(s) without an IP address and port 1-65535 left out`,
      ),
    );
  }
}

/**
 * The Configuration of these listeners: what an incremental controller renders nginx.conf from,
 * without walking a whole table per change. Throws InvalidRenderOptionsError for bad options;
 * listeners that cannot be rendered come back as problems.
 */
export function createConfiguration(
  parts: { listeners: readonly Listener[] },
  options: RenderOptions,
): BuildResult {
  const settings = resolveSettings(options);
  const problems: Problem[] = [];
  const listeners = configureListeners(parts.listeners, settings, problems);
  const unchecked = { settings, listeners };
  return { configuration: { configHash: computeConfigurationHash(unchecked), ...unchecked }, problems };
}

/**
 * Builds the Configuration for a route table. Pure and deterministic. Throws
 * InvalidRenderOptionsError for bad options; never throws for the table, whose problems come back
 * as `problems` (the same ones for every build of the same table).
 */
export function buildConfiguration(table: RouteTable, options: RenderOptions): BuildResult {
  const problems: Problem[] = [];
  const defaults = createUpstreamDefaults(resolveSettings(options).upstreamDefaults);
  const visit = (route: Route, hostname: string) => {
    for (const issue of compileRoute(route, hostname, defaults).issues)
      problems.push(routeProblem(route, hostname, issue));
  };
  for (const virtualHost of table.virtualHosts ?? []) {
    for (const route of virtualHost.routes) visit(route, virtualHost.hostname);
    if (virtualHost.fallbackRoute !== undefined) visit(virtualHost.fallbackRoute, virtualHost.hostname);
  }
  const built = createConfiguration({ listeners: table.listeners ?? [] }, options);
  for (const backend of table.backends ?? []) checkBackend(backend, built.configuration.settings, problems);
  return { configuration: built.configuration, problems: [...built.problems, ...problems] };
}
