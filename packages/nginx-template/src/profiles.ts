/**
 * Directive profiles: the part of a route nginx cannot take per request (the backend protocol,
 * which decides between proxy_pass and grpc_pass and their schemes, client_max_body_size, the
 * upstream directives and the statuses whose answers are intercepted for custom error pages).
 * Each profile becomes named locations in nginx.conf; everything else about a route is data.
 */
import type { BackendProtocol, Route } from '@ingresskit/route-model';
import { MAX_SIZE_BYTES } from './settings.js';
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
  /** Statuses (400-599, ascending) whose answers go to the custom error location; absent: none. */
  errorStatuses?: number[];
  /**
   * With errorStatuses: the backend's own answers pass through (proxy_intercept_errors off, as
   * disable-proxy-intercept-errors asks); only nginx's own errors go to the error location.
   */
  passBackendErrors?: true;
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

/** Whether `value` lists statuses a profile may intercept: 1 to 200 unique codes from 400 to 599, ascending. */
export function isValidErrorStatuses(value: unknown): value is number[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 200) return false;
  return value.every(
    (status, index) =>
      Number.isInteger(status) &&
      status >= 400 &&
      status <= 599 &&
      (index === 0 || status > value[index - 1]),
  );
}

/**
 * Profiles made so far, by name: nearly every host uses one of a few, and a data plane keeps the
 * profiles of each of its hosts (10,000 copies of `ik_http_d` otherwise). Bounded, as names carry
 * body limits that Ingresses choose.
 */
const knownProfiles = new Map<string, Profile>();
const KNOWN_PROFILES_LIMIT = 256;

/**
 * The profile of a protocol and its directives: body limit (absent: the default limit), upstream
 * directives and intercepted statuses (`_e<status>` each, `_p` when
 * only nginx's own errors are). Frozen, and the same object for the same
 * profile while few profiles exist.
 */
export function createProfile(
  protocol: BackendProtocol,
  directives: {
    maxBodyBytes?: number | undefined;
    upstream?: UpstreamDirectives | undefined;
    errorStatuses?: number[] | undefined;
    passBackendErrors?: boolean | undefined;
  } = {},
): Profile {
  const { maxBodyBytes, upstream, errorStatuses } = directives;
  const passBackendErrors = errorStatuses !== undefined && directives.passBackendErrors === true;
  const size = maxBodyBytes === undefined ? 'd' : `b${maxBodyBytes}`;
  const suffix = upstream === undefined ? '' : upstreamNameSuffix(upstream);
  const errors =
    (errorStatuses === undefined ? '' : errorStatuses.map((status) => `_e${status}`).join('')) +
    (passBackendErrors ? '_p' : '');
  const name = `ik_${protocol.toLowerCase()}_${size}${suffix}${errors}`;
  const known = knownProfiles.get(name);
  if (known !== undefined) return known;
  const profile: Profile = { name, protocol };
  if (maxBodyBytes !== undefined) profile.maxBodyBytes = maxBodyBytes;
  if (upstream !== undefined) profile.upstream = upstream;
  if (errorStatuses !== undefined) profile.errorStatuses = Object.freeze([...errorStatuses]) as number[];
  if (passBackendErrors) profile.passBackendErrors = true;
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
  const { backendProtocol, maxBodyBytes, upstreamSettings, backendTls, customErrors } = route.policy;
  const declared = isBackendProtocol(backendProtocol) ? backendProtocol : 'HTTP';
  // The controller's TLS relay opens TLS with a route's own backend TLS settings (backend-tls.ts):
  // nginx speaks plain text to it.
  const protocol =
    backendTls !== undefined && isTlsProtocol(declared) ? (declared === 'GRPCS' ? 'GRPC' : 'HTTP') : declared;
  // gRPC answers errors in trailers, which nginx cannot intercept.
  const statuses = customErrors?.statuses;
  const intercepts = (protocol === 'HTTP' || protocol === 'HTTPS') && isValidErrorStatuses(statuses);
  return createProfile(protocol, {
    maxBodyBytes: isValidMaxBodyBytes(maxBodyBytes) ? maxBodyBytes : undefined,
    upstream: upstreamDirectivesOf(upstreamSettings).directives,
    errorStatuses: intercepts ? statuses : undefined,
    passBackendErrors: customErrors?.passBackendErrors,
  });
}

/** Orders profiles by name, the order nginx.conf lists them in. */
export function compareProfiles(a: Profile, b: Profile): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
