/**
 * How much of nginx's shared dict the data entries of routes and certificates take, known before
 * anything is pushed: what a budget of the dict counts. The sizes are those of the pushed JSON plus
 * what the dict spends on each entry (its node and key, and the slab allocator's rounding), close
 * enough for a budget that keeps headroom.
 */
import type { Certificate, Route, UpstreamSettings } from '@ingresskit/route-model';
import { backendKey, certificateKey, compileHostRoute, hostKey, tlsKey } from './data-plane-update.js';
import { policyKey, SharedPolicies } from './shared-policies.js';
import { createUpstreamDefaults } from './upstream-directives.js';

// nginx's slab allocator serves small sizes in powers of two and larger ones in whole pages.
const PAGE_BYTES = 4096;
// ngx_rbtree_node_t and ngx_http_lua_shdict_node_t before the key, rounded up.
const NODE_BYTES = 96;
// One endpoint of a backend: `["<IPv6 address>",<port>],` at most.
const ENDPOINT_BYTES = 52;
// A route's place in its host's path index besides its path: its index and the JSON around them.
const INDEX_BYTES_PER_ROUTE = 16;
// A regex route's place in its host's regex groups besides its path: the lazy any-run, group and
// marker capture around its alternative (as JSON), its index and its marker.
const REGEX_INDEX_BYTES_PER_ROUTE = 36;

/** Bytes one dict entry of `key` with a value of `valueBytes` takes in nginx's shared memory. */
export function measureDictEntry(key: string, valueBytes: number): number {
  // `d:` is the prefix every data key is stored under.
  const bytes = NODE_BYTES + 2 + Buffer.byteLength(key) + valueBytes;
  if (bytes >= PAGE_BYTES / 2) return Math.ceil(bytes / PAGE_BYTES) * PAGE_BYTES;
  return 2 ** Math.ceil(Math.log2(bytes));
}

/** What the data entries of some routes take in the shared dict. */
export interface RouteDataSize {
  /** Bytes of the routes' own entries, inside their hosts' entries. */
  routes: number;
  /** Bytes of each shared policy the routes name, by data key: one entry whoever names it. */
  policies: Map<string, number>;
}

/** Routes of one virtual host, as measureRoutes takes them. */
export interface HostRoutes {
  hostname: string;
  routes: Iterable<Route>;
}

/**
 * Measures the data entries the routes of `hosts` make, compiled as a push compiles them
 * (compileVirtualHost: on their host, against the operator's `upstreamDefaults`, see
 * DataPlaneUpdateOptions).
 */
export function measureRoutes(
  hosts: Iterable<HostRoutes>,
  upstreamDefaults?: UpstreamSettings,
): RouteDataSize {
  const defaults = createUpstreamDefaults(upstreamDefaults);
  const policies = new SharedPolicies();
  let bytes = 0;
  for (const { hostname, routes } of hosts) {
    for (const route of routes) {
      const entry = compileHostRoute(route, hostname, defaults, policies);
      // The path again: a key of the exact or prefix index, or in its regex group's pattern.
      bytes +=
        Buffer.byteLength(JSON.stringify(entry)) +
        Buffer.byteLength(JSON.stringify(entry.path)) +
        (entry.kind === 'regex' ? REGEX_INDEX_BYTES_PER_ROUTE : INDEX_BYTES_PER_ROUTE);
    }
  }
  const sizes = new Map<string, number>();
  for (const [id, policy] of policies.entries()) {
    const key = policyKey(id);
    sizes.set(key, measureDictEntry(key, Buffer.byteLength(JSON.stringify(policy))));
  }
  return { routes: bytes, policies: sizes };
}

/** Bytes the entry of a virtual host takes besides its routes (see measureRoutes). */
export function measureHostEntry(hostname: string): number {
  return measureDictEntry(hostKey(hostname), 128);
}

/** Bytes the TLS binding of `hostname` takes. */
export function measureTlsBinding(hostname: string, certificateId: string): number {
  return measureDictEntry(tlsKey(hostname), certificateId.length + 16);
}

/** Bytes the entry of `certificate` takes: its chain and key. */
export function measureCertificate(certificate: Certificate): number {
  const value = JSON.stringify({ cert: certificate.certificatePem, key: certificate.privateKeyPem });
  return measureDictEntry(certificateKey(certificate.id), Buffer.byteLength(value));
}

/** Bytes the entry of the backend `id` takes with `endpoints` endpoints (an upper bound). */
export function measureBackend(id: string, endpoints: number): number {
  return measureDictEntry(backendKey(id), 32 + endpoints * ENDPOINT_BYTES);
}
