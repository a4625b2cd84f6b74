/**
 * The Lua modules an ingresskit nginx loads, shipped in this package's `lua/` directory. The
 * controller copies them to `<prefix>/<luaDir>/` (the default luaDir is `lua`), or points
 * `luaDir` at luaDirectory.
 */
import { fileURLToPath } from 'node:url';

/** One shipped Lua module. */
export interface LuaFile {
  /** The module name nginx.conf requires, e.g. `ingresskit.balancer`. */
  module: string;
  /** The path under luaDir, e.g. `ingresskit/balancer.lua`. */
  relativePath: string;
  /** Absolute path of the shipped file. */
  path: string;
}

// src/ and dist/ are both one level below the package root, so the same relative URL works
// whether this runs from source (tests) or from the built bundle.
const root = new URL('../lua/', import.meta.url);

/** Absolute path of the shipped `lua/` directory (usable directly as the luaDir option). */
export const luaDirectory: string = fileURLToPath(root);

/**
 * The shipped Lua modules: the control endpoint and its content digest, the worker-side store of
 * pushed data and its validation, the router with its client networks, limits (global ones through
 * a memcached client) and authentication,
 * the request counts, the balancer and its TLS relay sockets, and the certificate selection.
 */
export const luaFiles: readonly LuaFile[] = [
  'control',
  'digest',
  'store',
  'validate',
  'validate_values',
  'validate_policy',
  'router',
  'networks',
  'limits',
  'global_limits',
  'memcached',
  'canary',
  'canary_affinity',
  'client_certificates',
  'basic_auth',
  'digest_auth',
  'auth_keepalive',
  'external_auth',
  'affinity',
  'response_rewrites',
  'endpoints',
  'request_metrics',
  'balancer',
  'relay',
  'custom_errors',
  'hop',
  'certificates',
].map((name) => ({
  module: `ingresskit.${name}`,
  relativePath: `ingresskit/${name}.lua`,
  path: fileURLToPath(new URL(`ingresskit/${name}.lua`, root)),
}));
