/**
 * Directive profiles: the part of a route nginx cannot take per request (the backend protocol,
 * which decides between proxy_pass and grpc_pass and their schemes, and client_max_body_size).
 * Each profile becomes named locations in nginx.conf; everything else about a route is data.
 */
import type { BackendProtocol, Route } from '@ingresskit/route-model';
import { MAX_SIZE_BYTES } from './settings.js';
import { backendTlsDirectivesOf, backendTlsNameSuffix, type BackendTlsDirectives } from './backend-tls.js';
import { upstreamDirectivesOf, upstreamNameSuffix, type UpstreamDirectives } from './upstream-directives.js';

/**
 * A set of directives a forwarded request needs. `name` is made from validated enums and numbers
 * only (`ik_http_d`, `ik_grpcs_b1048576`), so it is safe in nginx.conf and stable across builds.
 */
export interface Profile {
  name: string;
  protocol: BackendProtocol;
  /** Body limit in bytes (0: none); absent: the `proxyBodySize` setting. */
  maxBodyBytes?: number;
  /** Buffering and retry directives; absent: nginx.conf's defaults. */
  upstream?: UpstreamDirectives;
  /** TLS towards the backend (HTTPS and GRPCS only); absent: nginx.conf's defaults. */
  backendTls?: BackendTlsDirectives;
}

const PROTOCOLS: readonly BackendProtocol[] = ['HTTP', 'HTTPS', 'GRPC', 'GRPCS'];

/** Whether `value` is a protocol the nginx data plane speaks. */
export function isBackendProtocol(value: unknown): value is BackendProtocol {
  return PROTOCOLS.includes(value as BackendProtocol);
}

/** Whether nginx speaks TLS to backends of `protocol`. */
export function isTlsProtocol(protocol: BackendProtocol): boolean {
  return protocol === 'HTTPS' || protocol === 'GRPCS';
}

/** Whether `value` is a body limit nginx can take: an integer number of bytes from 0 to 1 TiB. */
export function isValidMaxBodyBytes(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SIZE_BYTES;
}

/**
 * Profiles made so far, by name: nearly every host uses one of a few, and a data plane keeps the
 * profiles of each of its hosts (10,000 copies of `ik_http_d` otherwise). Bounded, as names carry
 * body limits that Ingresses choose.
 */
const knownProfiles = new Map<string, Profile>();
const KNOWN_PROFILES_LIMIT = 256;

/**
 * The profile of a protocol, body limit (absent: the default limit) and upstream directives.
 * Frozen, and the same object for the same profile while few profiles exist.
 */
export function createProfile(
  protocol: BackendProtocol,
  maxBodyBytes?: number,
  upstream?: UpstreamDirectives,
  backendTls?: BackendTlsDirectives,
): Profile {
  const size = maxBodyBytes === undefined ? 'd' : `b${maxBodyBytes}`;
  const suffix =
    (upstream === undefined ? '' : upstreamNameSuffix(upstream)) +
    (backendTls === undefined ? '' : backendTlsNameSuffix(backendTls));
  const name = `ik_${protocol.toLowerCase()}_${size}${suffix}`;
  const known = knownProfiles.get(name);
  if (known !== undefined) return known;
  const profile: Profile = { name, protocol };
  if (maxBodyBytes !== undefined) profile.maxBodyBytes = maxBodyBytes;
  if (upstream !== undefined) profile.upstream = upstream;
  if (backendTls !== undefined) profile.backendTls = backendTls;
  Object.freeze(profile);
  if (knownProfiles.size < KNOWN_PROFILES_LIMIT) knownProfiles.set(name, profile);
  return profile;
}

/** The profile of routes that set neither a protocol nor a body limit; always rendered. */
export const DEFAULT_PROFILE: Profile = createProfile('HTTP');

/**
 * The profile a route's forwarded requests use; undefined for routes that do not forward
 * (redirects and fixed responses never reach a profile location). An invalid protocol or body
 * limit counts as absent, as the data the route is compiled into does (buildConfiguration
 * reports it).
 */
export function profileOf(route: Route): Profile | undefined {
  if (route.action.type !== 'forward') return undefined;
  const { backendProtocol, maxBodyBytes, upstreamSettings, backendTls } = route.policy;
  const protocol = isBackendProtocol(backendProtocol) ? backendProtocol : 'HTTP';
  // A closed policy makes the route answer 503 (compileRoute): it needs no directives.
  const tls =
    backendTls !== undefined && isTlsProtocol(protocol) ? backendTlsDirectivesOf(backendTls) : undefined;
  return createProfile(
    protocol,
    isValidMaxBodyBytes(maxBodyBytes) ? maxBodyBytes : undefined,
    upstreamDirectivesOf(upstreamSettings).directives,
    tls === 'closed' ? undefined : tls,
  );
}

/** Orders profiles by name, the order nginx.conf lists them in. */
export function compareProfiles(a: Profile, b: Profile): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
