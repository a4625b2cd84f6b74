/**
 * Route table (or delta) → the body of `POST /configuration/data`: every virtual host compiled
 * into lookup maps in TypeScript, so a worker applies a change with a `cjson.decode` per key.
 */
import { isIP } from 'node:net';
import type {
  Backend,
  Listener,
  Route,
  RouteTable,
  RouteTableDelta,
  UpstreamSettings,
  VirtualHost,
} from '@ingresskit/route-model';
import { compileHostClientCertificate } from './compile-client-certificate.js';
import { compileRoute } from './compile-route.js';
import { groupRegexPaths, type RegexPath } from './regex-groups.js';
import { regexPathOfEntry } from './regex-work.js';
import {
  createUpstreamDefaults,
  NO_UPSTREAM_DEFAULTS,
  type UpstreamDefaults,
} from './upstream-directives.js';
import type {
  BackendEntry,
  DataEntry,
  DataPlaneUpdate,
  HostEntry,
  ListenersEntry,
  RouteEntry,
} from './data-entries.js';
import { policyKey, sharePolicyOf, SharedPolicies } from './shared-policies.js';

/** Path of the data endpoint on the control socket: POST a createDataPlaneUpdate body. */
export const DATA_ENDPOINT_PATH = '/configuration/data';

/**
 * Path of the status endpoint on the control socket: GET answers
 * `{ instance, version, configurationLoads, confHash, workerPid, sharedDictCapacity, sharedDictFree }`
 * (see DataPlaneStatus).
 */
export const STATUS_ENDPOINT_PATH = '/configuration/status';

/** What `GET /configuration/status` answers. */
export interface DataPlaneStatus {
  /** Random id made when the shared dict was created: changes when nginx restarts, not on reloads. */
  instance: string;
  /** Number of pushes applied since then; 0 before the first (every request gets 503). */
  version: number;
  /** Starts and reloads of nginx since the shared dict was created. */
  configurationLoads: number;
  /** The hash of the Configuration the running nginx.conf was rendered from. */
  confHash: string;
  /** The worker that answered. */
  workerPid: number;
  /** Size of the shared dict, in bytes (the sharedDictSize option). */
  sharedDictCapacity: number;
  /** Bytes in wholly free pages of the shared dict (a lower bound of what is left). */
  sharedDictFree: number;
}

/**
 * Path of the digest endpoint on the control socket: GET recomputes the content digest of every
 * stored entry (see DataPlaneDigest); 409 while a push is being applied.
 */
export const DIGEST_ENDPOINT_PATH = '/configuration/digest';

/** What `POST /configuration/data` answers with 201. */
export interface DataPlaneAccepted {
  /** The version the push became (workers serve it from their next request). */
  version: number;
  /** Entries written (those equal to what was stored are not counted). */
  stored: number;
  /** Entries deleted. */
  deleted: number;
  /**
   * The content digest after the push: 32 hex digits, the XOR over every entry of
   * MD5(key + "\n" + MD5(value)), kept up to date by each push.
   */
  digest: string;
  /** The version and digest the push started from: those of the push before it. */
  previousVersion: number;
  previousDigest: string;
}

/** What `GET /configuration/digest` answers with 200. */
export interface DataPlaneDigest {
  /** The version of the last push. */
  version: number;
  /** The content digest, recomputed from the stored entries. */
  digest: string;
  /** The content digest the last push stored; differs from `digest` when an entry changed behind it. */
  stored: string;
  /** Entries stored. */
  entries: number;
}

/** What `POST /configuration/data` answers with 422: the entries refused, and nothing was stored. */
export interface DataPlaneRejection {
  rejected: { key: string; routeId?: string; message: string }[];
}

/** Options of createDataPlaneUpdate. */
export interface DataPlaneUpdateOptions {
  /**
   * For a whole table: replace everything the data plane holds (keys not in the table are
   * deleted). Default true; false only upserts. Ignored for a delta.
   */
  full?: boolean;
  /** Route ids to leave out (e.g. those a 422 named), as if their virtual hosts lacked them. */
  excludeRoutes?: Iterable<string>;
  /** Keys to leave out of `set` (e.g. a `cert:<id>` a 422 named). */
  excludeKeys?: Iterable<string>;
  /**
   * The operator's upstream settings of the nginx.conf that serves the update (its
   * `settings.upstreamDefaults`): they decide the profile catalogue routes are compiled against.
   */
  upstreamDefaults?: UpstreamSettings | undefined;
}

/** The data key of a virtual host. */
export function hostKey(hostname: string): string {
  return `host:${hostname}`;
}

/** The data key of the TLS binding of a hostname. */
export function tlsKey(hostname: string): string {
  return `tls:${hostname}`;
}

/** The data key of a certificate. */
export function certificateKey(id: string): string {
  return `cert:${id}`;
}

/** The data key of a backend. */
export function backendKey(id: string): string {
  return `backend:${id}`;
}

function isTable(change: RouteTable | RouteTableDelta): change is RouteTable {
  return Array.isArray(change.virtualHosts);
}

function pushAll(target: Map<string, number[]>, key: string, index: number): void {
  const list = target.get(key);
  if (list === undefined) target.set(key, [index]);
  else list.push(index);
}

/**
 * Compiles `route` as the entry of the virtual host `hostname` holds it: against the profiles of
 * the operator's `defaults`, the shared part of its policy moved into `policies` (see
 * sharePolicyOf). What the push and the data budget's measure (entry-sizes.ts) both compile.
 */
export function compileHostRoute(
  route: Route,
  hostname: string,
  defaults: UpstreamDefaults,
  policies: SharedPolicies,
): RouteEntry {
  const entry = compileRoute(route, hostname, defaults).entry;
  sharePolicyOf(entry, policies);
  return entry;
}

/**
 * Compiles a virtual host into the entry workers install for `host:<hostname>`, against the
 * profiles of the operator's `defaults`. The shared part of each route's policy goes into
 * `policies` (see sharePolicyOf): push those entries with it.
 */
export function compileVirtualHost(
  virtualHost: VirtualHost,
  excludeRoutes: ReadonlySet<string> = new Set(),
  defaults: UpstreamDefaults = NO_UPSTREAM_DEFAULTS,
  policies: SharedPolicies = new SharedPolicies(),
): HostEntry {
  const routes: RouteEntry[] = [];
  // Maps, then Object.fromEntries: a path such as `__proto__` must stay an ordinary key.
  const exact = new Map<string, number[]>();
  const prefix = new Map<string, number[]>();
  const regex: RegexPath[] = [];
  for (const route of virtualHost.routes) {
    if (excludeRoutes.has(route.id)) continue;
    const entry = compileHostRoute(route, virtualHost.hostname, defaults, policies);
    routes.push(entry);
    const index = routes.length;
    if (entry.kind === 'exact') pushAll(exact, entry.path, index);
    else if (entry.kind === 'prefix') pushAll(prefix, entry.path, index);
    else regex.push(regexPathOfEntry(entry, index));
  }
  const host: HostEntry = {
    match: virtualHost.hostnameMatch,
    routes,
    exact: Object.fromEntries(exact),
    prefix: Object.fromEntries(prefix),
    regex: groupRegexPaths(regex),
  };
  const fallback = virtualHost.fallbackRoute;
  if (fallback !== undefined && !excludeRoutes.has(fallback.id))
    host.fallback = compileHostRoute(fallback, virtualHost.hostname, defaults, policies);
  const clientCert = compileHostClientCertificate(virtualHost);
  if (clientCert !== undefined) host.clientCert = clientCert;
  return host;
}

const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/**
 * The `host:port` nginx proxies an ExternalName backend to, or undefined when it is not valid; a
 * host named `unix` is not, as nginx would read `unix:<port>` as a unix socket path.
 */
export function externalTargetOf(backend: Backend): string | undefined {
  const target = backend.externalName;
  if (target === undefined || !isPort(target.port) || typeof target.hostname !== 'string') return undefined;
  if (target.hostname.toLowerCase() === 'unix') return undefined;
  if (isIP(target.hostname) === 6) return `[${target.hostname}]:${target.port}`;
  if (isIP(target.hostname) === 4 || DNS_NAME.test(target.hostname))
    return `${target.hostname}:${target.port}`;
  return undefined;
}

/** Whether an endpoint can be balanced to: an IP address and a port. */
export function isValidEndpoint(endpoint: { address: unknown; port: unknown }): boolean {
  return typeof endpoint.address === 'string' && isIP(endpoint.address) !== 0 && isPort(endpoint.port);
}

function compileBackend(backend: Backend): BackendEntry {
  const endpoints = (backend.endpoints ?? [])
    .filter(isValidEndpoint)
    .map(({ address, port }): [string, number] => [address, port]);
  const external = externalTargetOf(backend);
  if (external === undefined) return { endpoints };
  return endpoints.length === 0
    ? { endpoints: [], external }
    : { endpoints: [], external, pinned: endpoints };
}

/** Whether a listener can be rendered: a name, a port and a protocol. */
export function isValidListener(listener: Listener): boolean {
  return (
    typeof listener.name === 'string' &&
    isPort(listener.port) &&
    (listener.protocol === 'HTTP' || listener.protocol === 'HTTPS')
  );
}

function compileListeners(listeners: readonly Listener[]): ListenersEntry {
  return {
    listeners: listeners
      .filter(isValidListener)
      .map(({ name, port, protocol }) => ({ name, port, protocol })),
  };
}

// JSON.stringify writes a lone surrogate as a \ud8xx escape, which cjson refuses; a string from
// the model may hold one, so it becomes U+FFFD (an escaped backslash before it is left alone).
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\u(d[89a-f][0-9a-f]{2})/g;

/**
 * The update for `POST /configuration/data` as data (see {@link createDataPlaneUpdate}): for a
 * RouteTable, every listener, virtual host, TLS binding, certificate and backend, replacing all
 * the data plane holds unless `full: false`; for a RouteTableDelta (route-model's
 * `diffRouteTables` or a builder's `commit()`), what it upserts and removes. Either way with the
 * shared policies its virtual hosts name (`policy:<id>`); a delta removes none of them, since
 * hosts it does not carry may name them too: a caller that keeps nginx's data over many deltas
 * deletes the ones no host names any more (see sharedPolicyIdsOf). Keys are sorted.
 */
export function compileDataPlaneUpdate(
  change: RouteTable | RouteTableDelta,
  options: DataPlaneUpdateOptions = {},
): DataPlaneUpdate {
  const excludeRoutes = new Set(options.excludeRoutes ?? []);
  const excludeKeys = new Set(options.excludeKeys ?? []);
  const defaults = createUpstreamDefaults(options.upstreamDefaults);
  const set = new Map<string, DataEntry>();
  const remove: string[] = [];
  const put = (key: string, entry: () => DataEntry) => {
    if (!excludeKeys.has(key)) set.set(key, entry());
  };
  const table = isTable(change);
  const upserts = table
    ? {
        virtualHosts: change.virtualHosts,
        tls: change.tls,
        certificates: change.certificates,
        backends: change.backends,
      }
    : {
        virtualHosts: change.virtualHosts.upsert,
        tls: change.tls.upsert,
        certificates: change.certificates.upsert,
        backends: change.backends.upsert,
      };
  const listeners = change.listeners;
  if (listeners !== undefined) put('listeners', () => compileListeners(listeners));
  const policies = new SharedPolicies();
  for (const virtualHost of upserts.virtualHosts) {
    put(hostKey(virtualHost.hostname), () =>
      compileVirtualHost(virtualHost, excludeRoutes, defaults, policies),
    );
  }
  for (const [id, policy] of policies.entries()) put(policyKey(id), () => policy);
  for (const binding of upserts.tls) put(tlsKey(binding.hostname), () => ({ cert: binding.certificate }));
  for (const certificate of upserts.certificates) {
    put(certificateKey(certificate.id), () => ({
      cert: certificate.certificatePem,
      key: certificate.privateKeyPem,
    }));
  }
  for (const backend of upserts.backends) put(backendKey(backend.id), () => compileBackend(backend));
  if (!table) {
    remove.push(
      ...change.virtualHosts.remove.map(hostKey),
      ...change.tls.remove.map(tlsKey),
      ...change.certificates.remove.map(certificateKey),
      ...change.backends.remove.map(backendKey),
    );
  }
  const keys = [...set.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const update: DataPlaneUpdate = {
    set: Object.fromEntries(keys.map((key) => [key, set.get(key)!])),
    delete: remove.sort(),
  };
  if (table && options.full !== false) return { full: true, ...update };
  return update;
}

/**
 * One data entry as JSON the Lua side can decode. cjson refuses the `\ud8xx` escape
 * JSON.stringify writes for a lone surrogate, which a string of the model may hold; it becomes
 * U+FFFD (an escaped backslash before it is left alone).
 */
export function serializeDataEntry(entry: DataEntry | DataPlaneUpdate): string {
  return JSON.stringify(entry).replace(LONE_SURROGATE, '$1\\ufffd');
}

/**
 * The JSON body for `POST /configuration/data` (DATA_ENDPOINT_PATH on the control socket); see
 * {@link compileDataPlaneUpdate}. Equal input gives byte-identical bodies.
 */
export function createDataPlaneUpdate(
  change: RouteTable | RouteTableDelta,
  options: DataPlaneUpdateOptions = {},
): string {
  return serializeDataEntry(compileDataPlaneUpdate(change, options));
}
