/**
 * The local API server: an HTTP server over the registry that answers kubectl and client-node as
 * kube-apiserver would, with manifests, kubeconfigs and faults for tests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { ManifestError, ServerStateError } from './errors.js';
import { RequestFaults, type ApiServerFaults, type FailureOptions } from './faults.js';
import { handleRequest, type HandlerContext } from './handlers.js';
import { createKubeConfig, writeKubeconfigFile, type KubeconfigOptions } from './kubeconfig.js';
import { orderManifests, parseManifests, type ManifestInput } from './manifests.js';
import type { KubeObject } from './objects.js';
import { viewEntry, type Entry } from './entries.js';
import { Registry } from './registry.js';

/** Options of `startLocalApiServer`. */
export interface LocalApiServerOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
  /** Events kept per resource for watches resuming from a resourceVersion (default 10,000). */
  historyLimit?: number;
  /** Interval of BOOKMARK events for watches that allow them (default 60 s, as kube-apiserver). */
  bookmarkIntervalMs?: number;
  /**
   * Lifetime of a watch without `timeoutSeconds`; default: kube-apiserver's 1800 s × a random
   * factor in [1, 2). A fixed number makes tests deterministic.
   */
  watchTimeoutSeconds?: number;
  /** Manifests applied before the server starts answering (objects or YAML). */
  manifests?: ManifestInput;
  /** Clock for timestamps (creationTimestamp, deletionTimestamp, managedFields). */
  now?: () => Date;
}

/** Counters for tests that wait on the server rather than on time. */
export interface LocalApiServerStats {
  requests: number;
  /** TCP connections accepted since start (how many connections clients opened, pooled or not). */
  connections: number;
  /** TCP connections open now (a client's idle pooled ones included). */
  openConnections: number;
  activeWatches: number;
  resourceVersion: string;
}

/** A running local API server. */
export interface LocalApiServer {
  /** `http://host:port`; stays the same across `faults.pause()` / `resume()`. */
  readonly url: string;
  readonly port: number;
  /** A fresh client-node KubeConfig pointing at this server (plain HTTP, token user). */
  kubeConfig(options?: KubeconfigOptions): KubeConfig;
  /** Writes a kubeconfig YAML for kubectl (default: into a new temp directory) and returns its path. */
  writeKubeconfig(path?: string, options?: KubeconfigOptions): Promise<string>;
  /**
   * Creates or replaces objects (YAML text, one object or a list), Namespaces and CRDs first.
   * `status` is written too, through the status subresource. Resolves to the stored objects.
   */
  apply(objectsOrYaml: ManifestInput): Promise<KubeObject[]>;
  /** Fault injection: drop watches, expire history, fail requests, add latency, pause and resume. */
  readonly faults: ApiServerFaults;
  stats(): LocalApiServerStats;
  /** Ends watches, closes connections and stops listening. */
  stop(): Promise<void>;
}

/**
 * Starts an in-process Kubernetes API server speaking the real REST and watch protocol over plain
 * HTTP, for tests, demos and benchmarks.
 */
export async function startLocalApiServer(options: LocalApiServerOptions = {}): Promise<LocalApiServer> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? (() => new Date());
  const registry = new Registry({ historyLimit: options.historyLimit ?? 10_000, now });
  const requestFaults = new RequestFaults();
  const sockets = new Set<Socket>();
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let requests = 0;
  let connections = 0;
  let port = options.port ?? 0;
  let paused = false;
  let stopped = false;

  const context: HandlerContext = {
    registry,
    faults: requestFaults,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    pickWatchTimeoutSeconds: () => options.watchTimeoutSeconds ?? Math.floor(1800 * (1 + Math.random())),
    serverAddress: () => `${host}:${port}`,
    delay: (ms) =>
      new Promise<void>((resolve) => {
        const handle = {
          timer: setTimeout(() => {
            timers.delete(handle);
            resolve();
          }, ms),
          resolve,
        };
        timers.add(handle);
      }),
    now,
  };

  const server: Server = createServer((request, response) => {
    requests += 1;
    void handleRequest(context, request, response);
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  if (options.manifests !== undefined) applyManifests(registry, options.manifests);
  await listen(server, port, host);
  port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const cutConnections = (): void => {
    registry.dropWatches();
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    for (const handle of timers) {
      clearTimeout(handle.timer);
      handle.resolve();
    }
    timers.clear();
  };

  const faults: ApiServerFaults = {
    dropWatches: () => registry.dropWatches(),
    expireHistory: () => registry.expireHistory(),
    failNext: (count: number, code = 500, failure?: FailureOptions) =>
      requestFaults.addFailures(count, code, failure),
    setLatency: (ms: number) => {
      requestFaults.latencyMs = Math.max(0, ms);
    },
    pause: async () => {
      if (stopped) throw new ServerStateError('the server is stopped');
      if (paused) return;
      paused = true;
      const closed = close(server);
      cutConnections();
      await closed;
      // Lets in-process clients see their pooled connections die before the caller's next step,
      // so a request right after resume() is not sent down a socket that is already gone.
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
    resume: async () => {
      if (stopped) throw new ServerStateError('the server is stopped');
      if (!paused) return;
      await listen(server, port, host);
      paused = false;
    },
    isPaused: () => paused,
    reset: () => requestFaults.clear(),
  };

  return {
    url,
    port,
    kubeConfig: (kubeconfigOptions) => createKubeConfig(url, kubeconfigOptions),
    writeKubeconfig: (path, kubeconfigOptions) => writeKubeconfigFile(url, path, kubeconfigOptions),
    apply: (input) => Promise.resolve().then(() => applyManifests(registry, input)),
    faults,
    stats: () => ({
      requests,
      connections,
      openConnections: sockets.size,
      activeWatches: registry.countWatches(),
      resourceVersion: String(registry.currentResourceVersion()),
    }),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const closed = paused ? Promise.resolve() : close(server);
      cutConnections();
      await closed;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      server.off('listening', onListening);
      reject(new ServerStateError(`cannot listen on ${host}:${port}: ${error.message}`, { cause: error }));
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
  });
}

/** Creates or replaces each manifest; status is written through the status subresource. */
function applyManifests(registry: Registry, input: ManifestInput): KubeObject[] {
  const results: KubeObject[] = [];
  for (const manifest of orderManifests(parseManifests(input))) {
    const definition = registry.findResourceByKind(manifest.apiVersion, manifest.kind);
    if (!definition) {
      throw new ManifestError(`no resource serves ${manifest.kind} in ${manifest.apiVersion}`);
    }
    const name = manifest.metadata.name;
    const namespace = definition.namespaced ? (manifest.metadata.namespace ?? 'default') : undefined;
    const body: KubeObject = { ...manifest, metadata: { ...manifest.metadata } };
    delete body.metadata.resourceVersion;
    if (namespace !== undefined) body.metadata.namespace = namespace;
    let entry: Entry;
    const existing = name ? registry.find(definition, namespace, name) : undefined;
    if (existing && name) {
      entry = registry.update(definition, namespace, name, body, { allowUnconditional: true });
    } else {
      entry = registry.create(definition, namespace, body);
    }
    const entryName = entry.object.metadata.name ?? '';
    if (definition.hasStatus && manifest.status !== undefined) {
      entry = registry.update(
        definition,
        namespace,
        entryName,
        { ...viewEntry(entry, definition), status: manifest.status },
        { subresource: 'status', allowUnconditional: true },
      );
    }
    results.push(JSON.parse(JSON.stringify(viewEntry(entry, definition))) as KubeObject);
  }
  return results;
}
