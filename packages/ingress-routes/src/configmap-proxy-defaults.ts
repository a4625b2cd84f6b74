/**
 * The controller ConfigMap's proxy defaults: keys that set the default of a proxy annotation (read
 * with the annotation's own parser), retry-non-idempotent, http-redirect-code and the location
 * lists. All become annotation defaults: an Ingress without the annotation gets the key's value.
 */
import { createAnnotationDefaults } from './annotation-defaults.js';
import { findAnnotationParser } from './annotation-parsers.js';
import type { ConfigMapProblem, IngressNginxConfigKey } from './configmap-key.js';
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import { parseLocationList } from './location-exemptions.js';
import { checkBusyBuffers, dropBusyBuffers } from './upstream-annotations.js';
import { type AnnotationDefaults } from './annotation-types.js';

/** Keys of a route's upstream settings (UPSTREAM_PARSERS): profile, nginx.conf or route data. */
const PROFILE_KEYS = [
  'client-body-buffer-size',
  'proxy-buffer-size',
  'proxy-buffering',
  'proxy-buffers-number',
  'proxy-busy-buffers-size',
  'proxy-http-version',
  'proxy-max-temp-file-size',
  'proxy-next-upstream',
  'proxy-next-upstream-timeout',
  'proxy-request-buffering',
] as const;

/** Keys served as route data (PROXY_PARSERS): a change re-translates without a reload. */
const ROUTE_DATA_KEYS = [
  'proxy-cookie-domain',
  'proxy-cookie-path',
  'proxy-next-upstream-tries',
  'proxy-redirect-from',
  'proxy-redirect-to',
  'service-upstream',
] as const;

const HTTP_REDIRECT_CODES = [301, 302, 307, 308] as const;

/** How the keys that are not annotation defaults are read into AnnotationDefaults. */
const OWN_KEYS: Readonly<Record<string, (value: string, into: AnnotationDefaults) => string | undefined>> = {
  'retry-non-idempotent': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    into.retryNonIdempotent = on;
    return undefined;
  },
  'http-redirect-code': (value, into) => {
    const code = HTTP_REDIRECT_CODES.find((candidate) => String(candidate) === value);
    if (code === undefined) return `must be one of ${HTTP_REDIRECT_CODES.join(', ')}`;
    into.httpRedirectCode = code;
    return undefined;
  },
  'no-tls-redirect-locations': (value, into) => {
    const locations = parseLocationList(value);
    if (typeof locations === 'string') return locations;
    into.noTlsRedirectLocations = locations;
    return undefined;
  },
  'no-auth-locations': (value, into) => {
    const locations = parseLocationList(value);
    if (typeof locations === 'string') return locations;
    into.noAuthLocations = locations;
    return undefined;
  },
};

/** Every key this module reads. */
export const PROXY_DEFAULT_KEYS: readonly string[] = [
  ...PROFILE_KEYS,
  ...ROUTE_DATA_KEYS,
  ...Object.keys(OWN_KEYS),
];

/** Whether parseControllerConfigMap should read `name` with readProxyDefault. */
export function isProxyDefaultKey(name: string): boolean {
  return PROXY_DEFAULT_KEYS.includes(name);
}

/**
 * Reads one PROXY_DEFAULT_KEYS value into `into`: an annotation's with the annotation's own
 * parser, merged into what the other keys set. Returns why the value is invalid, or undefined.
 */
export function readProxyDefault(name: string, value: string, into: AnnotationDefaults): string | undefined {
  if (Object.hasOwn(OWN_KEYS, name)) return OWN_KEYS[name]!(value, into);
  const parsed = createAnnotationDefaults();
  const reason = findAnnotationParser(name)!(value, parsed);
  if (reason !== undefined) return reason;
  if (parsed.upstreamSettings !== undefined)
    into.upstreamSettings = { ...into.upstreamSettings, ...parsed.upstreamSettings };
  if (parsed.proxy !== undefined) into.proxy = { ...into.proxy, ...parsed.proxy };
  if (parsed.serviceUpstream !== undefined) into.serviceUpstream = parsed.serviceUpstream;
  return undefined;
}

/**
 * Leaves out, with a warning each, proxy-busy-buffers-size when it does not fit the ConfigMap's
 * buffers, and proxy-redirect-from or -to set without the other (an Ingress's annotation of the
 * other one would otherwise be warned about as if it were incomplete).
 */
export function completeProxyDefaults(into: AnnotationDefaults, problems: ConfigMapProblem[]): void {
  const busyBuffers = checkBusyBuffers(into.upstreamSettings);
  if (busyBuffers !== undefined) {
    dropBusyBuffers(into);
    problems.push({
      field: 'data["proxy-busy-buffers-size"]',
      message: `"proxy-busy-buffers-size" ${busyBuffers}; it is not applied`,
      severity: 'warning',
    });
  }
  const proxy = into.proxy;
  if (proxy === undefined) return;
  const { redirectFrom, redirectTo } = proxy;
  if ((redirectFrom === undefined) === (redirectTo === undefined) || redirectFrom === 'off') return;
  const [name, other] =
    redirectFrom === undefined
      ? ['proxy-redirect-to', 'proxy-redirect-from']
      : ['proxy-redirect-from', 'proxy-redirect-to'];
  delete proxy.redirectFrom;
  delete proxy.redirectTo;
  problems.push({
    field: `data[${JSON.stringify(name)}]`,
    message: `"${name}" is not applied without ${other}`,
    severity: 'warning',
  });
}

const PROFILE_DIFFERENCE =
  'the default of routes without the annotation (read as it, see it), which picks one of the profile locations nginx.conf always holds';
// Keys nginx.conf takes as its own: its http-level buffers, or a header buffer and a retry set the
// profile catalogue adds, so routes keeping the key are served exactly. Changing one reloads.
const NGINX_CONF_KEYS: ReadonlySet<string> = new Set([
  'client-body-buffer-size',
  'proxy-buffer-size',
  'proxy-buffers-number',
  'proxy-busy-buffers-size',
  'proxy-max-temp-file-size',
  'proxy-next-upstream',
]);
const NGINX_CONF_DIFFERENCE =
  "the default of routes without the annotation (read as it, see it) and nginx.conf's own value: its profile locations are served exactly, so changing it reloads nginx once";

const LOCATIONS_DIFFERENCE =
  'path prefixes separated by commas (each starting with "/", A-Z a-z 0-9 . _ ~ - /; "" for none), compared with each Ingress path as written, as ingress-nginx does';

/** The catalogue rows of PROXY_DEFAULT_KEYS and proxy-ssl-location-only. */
export const PROXY_DEFAULT_ROWS: readonly IngressNginxConfigKey[] = [
  ...PROFILE_KEYS.map((name): IngressNginxConfigKey =>
    NGINX_CONF_KEYS.has(name)
      ? { name, applied: 'reload', difference: NGINX_CONF_DIFFERENCE }
      : {
          name,
          applied: 'live',
          difference:
            name === 'proxy-buffering'
              ? `${PROFILE_DIFFERENCE}. Without the key responses are buffered (nginx's default), where ingress-nginx's default is off`
              : PROFILE_DIFFERENCE,
        },
  ),
  ...ROUTE_DATA_KEYS.map((name): IngressNginxConfigKey => {
    if (name === 'proxy-next-upstream-tries' || name === 'service-upstream') return { name, applied: 'live' };
    const literal = 'read as the annotation (literal text only, see it)';
    return {
      name,
      applied: 'live',
      difference: name.startsWith('proxy-redirect-')
        ? `${literal}; applied only with both proxy-redirect-from and -to set, else a warning`
        : literal,
    };
  }),
  {
    name: 'retry-non-idempotent',
    applied: 'reload',
    difference:
      'adds non_idempotent to the retry conditions of every Ingress route, those of its proxy-next-upstream annotation too, as ingress-nginx (not to "off"): the fixed profiles of nginx.conf hold the retry sets with it, so nginx reloads once',
  },
  {
    name: 'http-redirect-code',
    applied: 'live',
    difference: `${HTTP_REDIRECT_CODES.join(', ')}: the status of the redirects to HTTPS (ssl-redirect, force-ssl-redirect) and of from-to-www-redirect of Ingress routes; the route of --default-backend-service keeps 308`,
  },
  {
    name: 'no-tls-redirect-locations',
    applied: 'live',
    difference: `${LOCATIONS_DIFFERENCE}: a path starting with one is never redirected to HTTPS; without the key, /.well-known/acme-challenge`,
  },
  {
    name: 'no-auth-locations',
    applied: 'live',
    difference: `${LOCATIONS_DIFFERENCE}: a path starting with one asks for no authentication (auth-url, global-auth-url, basic and digest auth, as ingress-nginx's location skips them; allowlists and client certificates still hold); without the key, /.well-known/acme-challenge`,
  },
  {
    name: 'proxy-ssl-location-only',
    unsupported: {
      severity: 'warning',
      reason: 'proxy-ssl-* always holds for the Ingress\'s own paths only, as with "true"',
    },
    sameAs: ['true'],
  },
  {
    name: 'relative-redirects',
    unsupported: {
      severity: 'warning',
      reason:
        'a Location that proxy-redirect-to makes relative stays relative, as with "true"; the redirects the gateway makes itself are absolute URLs either way, as ingress-nginx\'s',
    },
    sameAs: ['true'],
  },
];
