/**
 * Directive profiles: what nginx cannot take per request (proxy_pass or grpc_pass, request and
 * response buffering, the HTTP version towards the backend, the size of the response header
 * buffer, the conditions a request is retried on). nginx.conf holds every profile of a catalogue
 * that only the operator's settings decide, whatever the routes are, so no route, and no tenant,
 * ever changes nginx.conf: a route takes the profile of its enumerations, its header buffer
 * rounded up to one of the catalogue's sizes, and the largest of its retry sets within its own;
 * everything else about it (body limit, timeouts, tries, headers, ...) is data.
 */
import {
  RETRY_CONDITIONS,
  type BackendProtocol,
  type RetryCondition,
  type Route,
} from '@ingresskit/route-model';

/** The backend module a profile proxies with: proxy_pass (HTTP, HTTPS) or grpc_pass (GRPC, GRPCS). */
export type ProfileFamily = 'proxy' | 'grpc';

/**
 * One entry of a catalogue. `name` is made from its enumerations and numbers only
 * (`ik_p_q1s1v11_b0_r3`, `ik_g_b131072_r115`), safe in nginx.conf and the same in every build. gRPC
 * profiles stream both ways and speak HTTP/2: their buffering and HTTP version are fixed.
 */
export interface Profile {
  name: string;
  family: ProfileFamily;
  requestBuffering: boolean;
  responseBuffering: boolean;
  httpVersion: '1.0' | '1.1';
  /** The response header buffer in bytes; 0: nginx.conf's default (the operator's, else a memory page). */
  headerBuffer: number;
  /** The retry conditions as a bit mask over RETRY_CONDITIONS. */
  retry: number;
}

/** What a catalogue is made of: the header buffer sizes and retry sets its profiles have. */
export interface ProfileCatalogue {
  /** nginx.conf's default header buffer in bytes: the operator's, else a memory page. */
  defaultHeaderBuffer: number;
  /** Ascending; 0 (nginx.conf's default) first. */
  headerBuffers: readonly number[];
  /** Retry sets as masks, ingress-nginx's default (`error timeout`) first. */
  retrySets: readonly number[];
  /**
   * The profiles of routes that keep the operator's settings, per family: `location /` proxies
   * like the proxy one, and only these have a mirroring location.
   */
  defaults: Readonly<Record<ProfileFamily, Profile>>;
  /** Every profile, sorted by name: what nginx.conf holds. */
  profiles: readonly Profile[];
}

/**
 * The header buffer sizes every catalogue has besides the default: a route asking for more than
 * one gets the next (a larger buffer only takes longer headers, and more memory), the largest for
 * more than them all.
 */
export const HEADER_BUFFER_SIZES: readonly number[] = [16384, 131072, 1048576];

/**
 * The retry sets every catalogue has: ingress-nginx's default, the gateway errors, every 5xx.
 * A route gets the largest set within its own conditions (plus `error` and `timeout`), so it is
 * never retried on an answer it did not list; `off` and the number of tries are data.
 */
export const RETRY_SETS: readonly (readonly RetryCondition[])[] = [
  ['error', 'timeout'],
  ['error', 'timeout', 'http_502', 'http_503', 'http_504'],
  ['error', 'timeout', 'invalid_header', 'http_500', 'http_502', 'http_503', 'http_504'],
];

const PROTOCOLS: readonly BackendProtocol[] = ['HTTP', 'HTTPS', 'GRPC', 'GRPCS'];
// nginx's default header buffer: one memory page.
const PAGE_SIZE = 4096;
const MAX_HEADER_BUFFER = 1024 ** 2;

/** Whether `value` is a protocol the nginx data plane speaks. */
export function isBackendProtocol(value: unknown): value is BackendProtocol {
  return PROTOCOLS.includes(value as BackendProtocol);
}

/** Whether nginx speaks TLS to backends of `protocol`. */
export function isTlsProtocol(protocol: BackendProtocol): boolean {
  return protocol === 'HTTPS' || protocol === 'GRPCS';
}

/** The backend module of `protocol`. */
export function familyOf(protocol: BackendProtocol): ProfileFamily {
  return protocol === 'GRPC' || protocol === 'GRPCS' ? 'grpc' : 'proxy';
}

/** Whether `value` is a header buffer size a profile can have: 1k to 1m. */
export function isValidHeaderBuffer(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1024 && value <= MAX_HEADER_BUFFER;
}

/**
 * Whether nginx can intercept `status` for a custom error page: 400 to 599 but 499, which nginx
 * keeps for "client closed the request" and refuses in error_page.
 */
export function isInterceptableStatus(status: unknown): status is number {
  return Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599 && status !== 499;
}

/** Every status nginx can intercept, ascending. */
export const INTERCEPTABLE_STATUSES: readonly number[] = Array.from(
  { length: 200 },
  (_, i) => 400 + i,
).filter(isInterceptableStatus);

/** Whether `value` lists statuses to intercept: 1 to 200 unique interceptable codes, ascending. */
export function isValidErrorStatuses(value: unknown): value is number[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 200) return false;
  return value.every(
    (status, index) => isInterceptableStatus(status) && (index === 0 || status > value[index - 1]),
  );
}

/** The mask of `conditions` over RETRY_CONDITIONS. */
export function retryMaskOf(conditions: readonly RetryCondition[]): number {
  return conditions.reduce((mask, condition) => mask | (1 << RETRY_CONDITIONS.indexOf(condition)), 0);
}

/** The conditions of a retry mask, in nginx's documentation order. */
export function retryConditionsOf(mask: number): RetryCondition[] {
  return RETRY_CONDITIONS.filter((_, index) => (mask & (1 << index)) !== 0);
}

const DEFAULT_RETRY = retryMaskOf(RETRY_SETS[0]!);
const NON_IDEMPOTENT = retryMaskOf(['non_idempotent']);

function nameOf(profile: Omit<Profile, 'name'>): string {
  const classes = `_b${profile.headerBuffer}_r${profile.retry}`;
  if (profile.family === 'grpc') return `ik_g${classes}`;
  const flag = (on: boolean) => (on ? 1 : 0);
  const version = profile.httpVersion === '1.0' ? 10 : 11;
  return `ik_p_q${flag(profile.requestBuffering)}s${flag(profile.responseBuffering)}v${version}${classes}`;
}

function createProfile(directives: Omit<Profile, 'name'>): Profile {
  const { family, requestBuffering, responseBuffering, httpVersion, headerBuffer, retry } = directives;
  return Object.freeze({
    name: nameOf(directives),
    family,
    requestBuffering,
    responseBuffering,
    httpVersion,
    headerBuffer,
    retry,
  });
}

/** The operator's settings a catalogue depends on (ingress-nginx's proxy-buffer-size and proxy-next-upstream keys). */
export interface CatalogueOptions {
  /** The default header buffer of nginx.conf; absent: a memory page. */
  headerBufferBytes?: number | undefined;
  /** The default retry conditions; absent or empty: ingress-nginx's `error timeout`. */
  retryOn?: readonly RetryCondition[] | undefined;
}

const catalogues = new Map<string, ProfileCatalogue>();

/**
 * The catalogue of these operator settings: the fixed header buffer sizes and retry sets, plus the
 * operator's own, so routes that keep the operator's defaults are served exactly. Frozen, and the
 * same object for the same settings.
 */
export function createProfileCatalogue(options: CatalogueOptions = {}): ProfileCatalogue {
  const operatorBuffer = options.headerBufferBytes;
  const operatorRetry =
    options.retryOn === undefined || options.retryOn.length === 0
      ? DEFAULT_RETRY
      : retryMaskOf(options.retryOn);
  const key = `${operatorBuffer ?? 0}/${operatorRetry}`;
  const known = catalogues.get(key);
  if (known !== undefined) return known;
  // Sizes the default already holds need no profile of their own.
  const floor = operatorBuffer ?? PAGE_SIZE;
  const headerBuffers = [0, ...HEADER_BUFFER_SIZES.filter((size) => size > floor)];
  // ingress-nginx's retry-non-idempotent adds non_idempotent to every route's conditions: then every
  // fixed set has it too.
  const nonIdempotent = operatorRetry & NON_IDEMPOTENT;
  const retrySets = [
    ...new Set([DEFAULT_RETRY, ...RETRY_SETS.map((set) => retryMaskOf(set) | nonIdempotent), operatorRetry]),
  ];
  const profiles: Profile[] = [];
  for (const headerBuffer of headerBuffers) {
    for (const retry of retrySets) {
      for (const requestBuffering of [true, false]) {
        for (const responseBuffering of [true, false]) {
          for (const httpVersion of ['1.1', '1.0'] as const) {
            profiles.push(
              createProfile({
                family: 'proxy',
                requestBuffering,
                responseBuffering,
                httpVersion,
                headerBuffer,
                retry,
              }),
            );
          }
        }
      }
      profiles.push(
        createProfile({
          family: 'grpc',
          requestBuffering: false,
          responseBuffering: false,
          httpVersion: '1.1',
          headerBuffer,
          retry,
        }),
      );
    }
  }
  profiles.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const defaultOf = (family: ProfileFamily) =>
    profiles.find(
      (profile) =>
        profile.family === family &&
        profile.headerBuffer === 0 &&
        profile.retry === operatorRetry &&
        (family === 'grpc' ||
          (profile.requestBuffering && profile.responseBuffering && profile.httpVersion === '1.1')),
    )!;
  const catalogue: ProfileCatalogue = Object.freeze({
    defaultHeaderBuffer: floor,
    headerBuffers: Object.freeze(headerBuffers),
    retrySets: Object.freeze(retrySets),
    profiles: Object.freeze(profiles),
    defaults: Object.freeze({ proxy: defaultOf('proxy'), grpc: defaultOf('grpc') }),
  });
  catalogues.set(key, catalogue);
  return catalogue;
}

/** The catalogue of an operator who set none of its settings. */
export const DEFAULT_CATALOGUE: ProfileCatalogue = createProfileCatalogue();

/** The profiles of routes that set no directive when the operator set none either, per family. */
export const DEFAULT_PROFILES: Readonly<Record<ProfileFamily, Profile>> = DEFAULT_CATALOGUE.defaults;

/** The profile of plain HTTP routes that set no directive. */
export const DEFAULT_PROFILE: Profile = DEFAULT_PROFILES.proxy;

/** The header buffer of `catalogue` that holds `bytes` (undefined: the default): the smallest, else the largest. */
export function headerBufferOf(catalogue: ProfileCatalogue, bytes: number | undefined): number {
  if (bytes === undefined || bytes <= catalogue.defaultHeaderBuffer) return 0;
  return catalogue.headerBuffers.find((size) => size >= bytes) ?? catalogue.headerBuffers.at(-1)!;
}

/** The largest retry set of `catalogue` within `conditions` and `error`/`timeout` (undefined: the default). */
export function retrySetOf(
  catalogue: ProfileCatalogue,
  conditions: readonly RetryCondition[] | undefined,
): number {
  if (conditions === undefined || conditions.length === 0) return DEFAULT_RETRY;
  const asked = retryMaskOf(conditions) | DEFAULT_RETRY;
  let best = DEFAULT_RETRY;
  for (const mask of catalogue.retrySets) {
    if ((mask & asked) === mask && popCount(mask) > popCount(best)) best = mask;
  }
  return best;
}

function popCount(mask: number): number {
  let count = 0;
  for (let rest = mask; rest !== 0; rest &= rest - 1) count++;
  return count;
}

/**
 * The profile a route's forwarded requests use in `catalogue`; undefined for routes that do not
 * forward (redirects and fixed responses never reach a profile location). Values out of range
 * count as absent, as the route's data does (compileRoute reports them).
 */
export function profileOf(
  route: Route,
  catalogue: ProfileCatalogue = DEFAULT_CATALOGUE,
): Profile | undefined {
  if (route.action.type !== 'forward') return undefined;
  const { backendProtocol, upstreamSettings: settings } = route.policy;
  const family = familyOf(isBackendProtocol(backendProtocol) ? backendProtocol : 'HTTP');
  const bufferSize = isValidHeaderBuffer(settings?.bufferSizeBytes) ? settings.bufferSizeBytes : undefined;
  const retryOn =
    Array.isArray(settings?.retryOn) &&
    settings.retryOn.every((condition) => RETRY_CONDITIONS.includes(condition))
      ? settings.retryOn
      : undefined;
  const classes = {
    headerBuffer: headerBufferOf(catalogue, bufferSize),
    retry: retrySetOf(catalogue, retryOn),
  };
  if (family === 'grpc') {
    return createProfile({
      family,
      requestBuffering: false,
      responseBuffering: false,
      httpVersion: '1.1',
      ...classes,
    });
  }
  return createProfile({
    family,
    requestBuffering: typeof settings?.requestBuffering === 'boolean' ? settings.requestBuffering : true,
    responseBuffering: typeof settings?.responseBuffering === 'boolean' ? settings.responseBuffering : true,
    httpVersion: settings?.httpVersion === '1.0' ? '1.0' : '1.1',
    ...classes,
  });
}
