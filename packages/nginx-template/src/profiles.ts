/**
 * Directive profiles: what nginx cannot take per request (proxy_pass or grpc_pass, request and
 * response buffering, the HTTP version towards the backend, the size of the response header
 * buffer, the conditions a request is retried on). nginx.conf holds every profile of a fixed
 * catalogue, whatever the routes are, so no route, and no tenant, ever changes nginx.conf: a
 * route takes the profile of its enumerations and of its numbers rounded to the catalogue's
 * classes, and everything else about it (body limit, timeouts, tries, headers, ...) is data.
 */
import type { BackendProtocol, RetryCondition, Route } from '@ingresskit/route-model';
import { MAX_SIZE_BYTES } from './settings.js';

/** The backend module a profile proxies with: proxy_pass (HTTP, HTTPS) or grpc_pass (GRPC, GRPCS). */
export type ProfileFamily = 'proxy' | 'grpc';

/**
 * One entry of the catalogue. `name` is made from its enumerations only (`ik_p_q1s1v11_b0_r0`,
 * `ik_g_b1_r2`), safe in nginx.conf and the same in every build. gRPC profiles stream both ways
 * and speak HTTP/2: their buffering and HTTP version are fixed.
 */
export interface Profile {
  name: string;
  family: ProfileFamily;
  requestBuffering: boolean;
  responseBuffering: boolean;
  httpVersion: '1.0' | '1.1';
  /** Index into {@link HEADER_BUFFER_CLASSES}. */
  headerBuffer: number;
  /** Index into {@link RETRY_CLASSES}. */
  retry: number;
}

/**
 * The response header buffer sizes profiles have (proxy_buffer_size, with four buffers of that
 * size for the body): nginx's default (a memory page), then 16k, 128k and 1m. A route asking for
 * more than a class gets the next: a larger buffer only takes longer headers and more memory.
 */
export const HEADER_BUFFER_CLASSES: readonly (number | undefined)[] = [undefined, 16384, 131072, 1048576];

/**
 * The retry condition sets profiles have (proxy_next_upstream), ingress-nginx's default first.
 * A route gets the largest set within its own conditions (plus `error` and `timeout`): it is never
 * retried on an answer it did not list, and `off` or one try is data (the balancer's tries).
 */
export const RETRY_CLASSES: readonly (readonly RetryCondition[])[] = [
  ['error', 'timeout'],
  ['error', 'timeout', 'http_502', 'http_503', 'http_504'],
  ['error', 'timeout', 'invalid_header', 'http_500', 'http_502', 'http_503', 'http_504'],
];

const PROTOCOLS: readonly BackendProtocol[] = ['HTTP', 'HTTPS', 'GRPC', 'GRPCS'];

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

/** Whether `value` is a body limit nginx can take: an integer number of bytes from 0 to 1 TiB. */
export function isValidMaxBodyBytes(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SIZE_BYTES;
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

function nameOf(profile: Omit<Profile, 'name'>): string {
  const classes = `_b${profile.headerBuffer}_r${profile.retry}`;
  if (profile.family === 'grpc') return `ik_g${classes}`;
  const flag = (on: boolean) => (on ? 1 : 0);
  const version = profile.httpVersion === '1.0' ? 10 : 11;
  return `ik_p_q${flag(profile.requestBuffering)}s${flag(profile.responseBuffering)}v${version}${classes}`;
}

function createProfile(directives: Omit<Profile, 'name'>): Profile {
  return Object.freeze({ name: nameOf(directives), ...directives });
}

function listCatalogue(): Profile[] {
  const profiles: Profile[] = [];
  for (let headerBuffer = 0; headerBuffer < HEADER_BUFFER_CLASSES.length; headerBuffer++) {
    for (let retry = 0; retry < RETRY_CLASSES.length; retry++) {
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
  return profiles.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every profile, sorted by name: what nginx.conf always holds. */
export const PROFILES: readonly Profile[] = Object.freeze(listCatalogue());

const BY_NAME = new Map(PROFILES.map((profile) => [profile.name, profile]));

/** The profile of routes that set no directive, per family: what `location /` proxies like. */
export const DEFAULT_PROFILES: Readonly<Record<ProfileFamily, Profile>> = {
  proxy: BY_NAME.get('ik_p_q1s1v11_b0_r0')!,
  grpc: BY_NAME.get('ik_g_b0_r0')!,
};

/** The profile of plain HTTP routes that set no directive. */
export const DEFAULT_PROFILE: Profile = DEFAULT_PROFILES.proxy;

/** The profile named `name`, if the catalogue has it. */
export function findProfile(name: string): Profile | undefined {
  return BY_NAME.get(name);
}

// nginx's default header buffer: one memory page.
const PAGE_SIZE = 4096;

/** The smallest header buffer class that holds `bytes` (undefined: the default); the largest for more. */
export function headerBufferClassOf(bytes: number | undefined): number {
  if (bytes === undefined || bytes <= PAGE_SIZE) return 0;
  const index = HEADER_BUFFER_CLASSES.findIndex((size, i) => i > 0 && size! >= bytes);
  return index === -1 ? HEADER_BUFFER_CLASSES.length - 1 : index;
}

/** The largest retry class within `conditions` and `error`/`timeout` (undefined: the default). */
export function retryClassOf(conditions: readonly RetryCondition[] | undefined): number {
  if (conditions === undefined || conditions.length === 0) return 0;
  const asked = new Set<RetryCondition>([...conditions, 'error', 'timeout']);
  for (let index = RETRY_CLASSES.length - 1; index > 0; index--) {
    if (RETRY_CLASSES[index]!.every((condition) => asked.has(condition))) return index;
  }
  return 0;
}

/** The catalogue profile of these directives. */
export function selectProfile(
  protocol: BackendProtocol,
  directives: { [Key in keyof Omit<Profile, 'name' | 'family'>]?: Profile[Key] | undefined },
): Profile {
  const family = familyOf(protocol);
  const headerBuffer = directives.headerBuffer ?? 0;
  const retry = directives.retry ?? 0;
  if (family === 'grpc') return BY_NAME.get(nameOf({ ...DEFAULT_PROFILES.grpc, headerBuffer, retry }))!;
  return BY_NAME.get(
    nameOf({
      family,
      requestBuffering: directives.requestBuffering ?? true,
      responseBuffering: directives.responseBuffering ?? true,
      httpVersion: directives.httpVersion ?? '1.1',
      headerBuffer,
      retry,
    }),
  )!;
}

/**
 * The profile a route's forwarded requests use; undefined for routes that do not forward
 * (redirects and fixed responses never reach a profile location). Values outside their range
 * count as absent, as the route's data does (compileRoute reports them).
 */
export function profileOf(route: Route): Profile | undefined {
  if (route.action.type !== 'forward') return undefined;
  const { backendProtocol, upstreamSettings: settings } = route.policy;
  const protocol = isBackendProtocol(backendProtocol) ? backendProtocol : 'HTTP';
  const flag = (value: unknown) => (typeof value === 'boolean' ? value : undefined);
  const bufferSize = settings?.bufferSizeBytes;
  return selectProfile(protocol, {
    requestBuffering: flag(settings?.requestBuffering),
    responseBuffering: flag(settings?.responseBuffering),
    httpVersion:
      settings?.httpVersion === '1.0' || settings?.httpVersion === '1.1' ? settings.httpVersion : undefined,
    headerBuffer: headerBufferClassOf(
      // Out of range counts as absent, as compileUpstreamSettings reports it.
      typeof bufferSize === 'number' &&
        Number.isInteger(bufferSize) &&
        bufferSize >= 1024 &&
        bufferSize <= 1048576
        ? bufferSize
        : undefined,
    ),
    retry: retryClassOf(Array.isArray(settings?.retryOn) ? settings.retryOn : undefined),
  });
}
