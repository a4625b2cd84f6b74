/**
 * The shapes of the data pushed to the Lua data plane: one JSON entry per key, compiled from the
 * route model so that workers do little more than `cjson.decode` and table lookups. The control
 * endpoint checks every entry against exactly these shapes (lua/ingresskit/validate.lua).
 *
 * Keys: `listeners`, `host:<hostname>`, `tls:<hostname>`, `cert:<certificate id>`,
 * `backend:<backend id>`, `policy:<policy id>`.
 */
import type { BackendProtocol, HostnameMatch } from '@ingresskit/route-model';

/** `listeners`: the listener names of the table by port (routes name listeners). */
export interface ListenersEntry {
  listeners: { name: string; port: number; protocol: 'HTTP' | 'HTTPS' }[];
}

/** `backend:<id>`: endpoints as `[address, port]` (IPv6 without brackets), or an ExternalName. */
export interface BackendEntry {
  endpoints: [string, number][];
  /**
   * An ExternalName `host:port`; when present, `endpoints` is empty. Without `pinned`, nginx
   * resolves the host itself.
   */
  external?: string;
  /** The addresses `external`'s host resolved to, as `[address, port]`: nginx connects only to these. */
  pinned?: [string, number][];
}

/** `cert:<id>`: a certificate chain (leaf first) and its private key, PEM. */
export interface CertificateEntry {
  cert: string;
  key: string;
}

/** `tls:<hostname>`: the certificate id served for a server name (`*.` covers one label). */
export interface TlsEntry {
  cert: string;
}

/** A header or query parameter condition: `[name, 'exact' | 'regex', value]`; header names lower case. */
export type ConditionEntry = [string, 'exact' | 'regex', string];

/** Header changes, applied in the order remove, set, add. */
export interface HeadersEntry {
  remove?: string[];
  set?: [string, string][];
  add?: [string, string][];
}

/**
 * A path change: the whole path becomes `value` (`full`), or the first `strip` characters of
 * the path (the matched prefix) are replaced by `value` (`prefix`; an empty result becomes `/`),
 * or the first match of `pattern` is substituted by `replacement` (`regex`, an ngx.re.sub
 * template where `${1}`…`${9}` are captures and `$$` a dollar sign).
 */
export type PathChangeEntry =
  | { type: 'full'; value: string }
  | { type: 'prefix'; strip: number; value: string }
  | { type: 'regex'; pattern: string; replacement: string };

/** One member of a forward: a backend id or a status, and the cumulative weight up to it. */
export interface MemberEntry {
  backend?: string;
  status?: number;
  upto: number;
}

/**
 * A route's canary (route-model CanaryRule): `header` is `[nginx variable, mode, value]` with mode
 * `value` (equal), `pattern` (regex found) or `switch` (always / never); `cookie` the nginx
 * variable of the cookie; then `weight` out of `weightTotal`. Canary requests go to `members`.
 */
export interface CanaryEntry {
  members: MemberEntry[];
  total: number;
  header?: [string, 'value' | 'pattern' | 'switch', string?];
  cookie?: string;
  weight: number;
  weightTotal: number;
  /** affinity-canary-behavior legacy: canary requests get no session affinity. */
  legacyAffinity?: true;
}

/** What a route does. */
export type ActionEntry =
  /** `members` without zero weights; `total` 0 means the group answers 500. */
  | { type: 'forward'; members: MemberEntry[]; total: number; canary?: CanaryEntry }
  | {
      type: 'redirect';
      status: number;
      scheme?: 'http' | 'https';
      hostname?: string;
      port?: number;
      path?: Extract<PathChangeEntry, { type: 'full' | 'prefix' }>;
      /** Replaces the request's query; `''`: none. */
      query?: string;
    }
  | { type: 'respond'; status: number; body?: string };

/**
 * Limits per client address, counted per `scope` across workers: concurrent requests (`conn`)
 * and rates as `[requests per second, burst]`; clients in `exempt` networks are not limited;
 * a refused request gets `status`.
 */
export interface LimitsEntry {
  scope: string;
  status: number;
  /** The status of a refusal by `conn`, when it is not `status`. */
  cstatus?: number;
  conn?: number;
  rates?: [number, number][];
  exempt?: [string, number][];
}

/**
 * A global rate limit: `limit` requests per `window` seconds per `key` (text and nginx variables)
 * within `scope`, counted in the memcached `store` ([host, port, timeout ms, idle ms, pool size]);
 * refused with `status`, clients in `exempt` left alone.
 */
export interface GlobalLimitEntry {
  scope: string;
  limit: number;
  window: number;
  key: ['text' | 'var', string][];
  status: number;
  store: [string, number, number, number, number];
  exempt?: [string, number][];
}

/** Basic authentication: the realm and each user's htpasswd hash, by user name. */
export interface AuthEntry {
  realm: string;
  users: Record<string, string>;
}

/** Digest authentication: the realm and each user's htdigest hash (MD5 of user:realm:password, hex), by user name. */
export interface DigestAuthEntry {
  realm: string;
  users: Record<string, string>;
}

/**
 * External authentication: the service's `url` and the `host` its Host header and TLS name
 * carry, the `method` of the check, X-Auth-Request-Redirect (`redirect`, absent: the request
 * URI), the sign-in URL a 401 redirects to (`signin`, its variables filled in per request) with
 * the original URL added in `param`, the answer's headers set on the request (`headers`), headers
 * set on the check (`set`), and its Set-Cookie passed on 401 and 403 too (`alwaysCookie`). `cache`: answers reused per route
 * for the same `key` (text and nginx variables) for `ttl` seconds by status (decimal keys).
 */
export interface ExternalAuthEntry {
  url: string;
  host: string;
  method: string;
  redirect?: string;
  signin?: string;
  param?: string;
  headers?: string[];
  /** Headers set on the check, replacing the client's of the same name. */
  set?: [string, string][];
  alwaysCookie?: true;
  cache?: { key: ['text' | 'var', string][]; ttl: Record<string, number> };
  /**
   * Checks go straight to the service over connections kept per route and worker (`size` idle
   * ones, `requests` checks and `timeout` idle seconds each), at `address` (absent: the one nginx
   * last resolved for the host) and `port`, asking for `path`, over TLS with `tls`.
   * `shareRequestId`: X-Request-ID is the backend's.
   */
  keepalive?: {
    size: number;
    requests: number;
    timeout: number;
    address?: string;
    port: number;
    path: string;
    tls?: true;
    shareRequestId?: true;
  };
}

/**
 * Cookie session affinity: the cookie `name`, its fixed `attributes` (`; Path=...; HttpOnly...`),
 * `expires` seconds from now, Secure on plain HTTP too (`secure`), persistent rather than balanced
 * mode, and `change` of endpoint (and cookie) on a failure.
 */
export interface AffinityEntry {
  name: string;
  attributes: string;
  /** SameSite=None, added in Lua unless the client is known to reject it. */
  sameSiteNone?: true;
  expires?: number;
  secure?: true;
  persistent?: true;
  change?: true;
}

/** A route's policy; every field optional, absent when the route has none. */
export interface PolicyEntry {
  https?: { status: number; tlsOnly?: true; strip?: true };
  /** Allowed client networks as `[hex bytes, prefix length]`; present and empty: nobody. */
  allow?: [string, number][];
  /**
   * CORS: `origin`, a case-insensitive regex an allowed Origin matches (absent: every request,
   * with Access-Control-Allow-Origin `*`, or the request's own Origin with `echoOrigin`), and the
   * other CORS headers to send. `methods` and `allowHeaders` go only to requests carrying
   * Access-Control-Request-Method / -Headers (`true`: that header's own value). A preflight is
   * answered `preflight`, 204 when absent.
   */
  cors?: {
    origin?: string;
    headers: [string, string][];
    echoOrigin?: true;
    methods?: string | true;
    allowHeaders?: string | true;
    preflight?: 200;
  };
  /** Strict-Transport-Security value sent on responses to HTTPS requests. */
  hsts?: string;
  /** The backend id each forwarded request is also copied to (its answer is thrown away). */
  mirror?: string;
  /** The backend id a request goes to when the route's backend has no endpoints. */
  emptyBackend?: string;
  /**
   * Custom error pages: answers with one of `statuses` go to the first of `backends` with
   * endpoints, with `headers` added; none: 404. With `own`, only nginx's own answers of those
   * statuses (the backend's pass through: disable-proxy-intercept-errors).
   */
  errors?: { statuses: number[]; backends: string[]; headers?: [string, string][]; own?: true };
  /** Denied client networks, the same form; checked before `allow`. */
  deny?: [string, number][];
  maxBody?: number;
  rewrite?: PathChangeEntry;
  /** Host header sent upstream. */
  host?: string;
  request?: HeadersEntry;
  response?: HeadersEntry;
  /** Connect, send, read timeouts in seconds; 0 keeps the default. */
  timeouts?: [number, number, number];
  limits?: LimitsEntry;
  glimit?: GlobalLimitEntry;
  auth?: AuthEntry;
  digest?: DigestAuthEntry;
  extAuth?: ExternalAuthEntry;
  affinity?: AffinityEntry;
  /** Consistent-hash key: text and nginx variables (`request_uri`, `http_x`, ...), concatenated. */
  hash?: ['text' | 'var', string][];
  /** With `hash`: the size of the endpoint subsets the key picks among. */
  subset?: number;
  /** `ewma`: endpoints by moving average of response time (absent: round robin). */
  balance?: 'ewma';
  /** The Connection header sent upstream. */
  connection?: string;
  /** Left out of the access log. */
  noLog?: true;
  /**
   * A backend TLS policy: the id of the controller's TLS relay that opens TLS to the route's
   * endpoints with it, over the unix socket `<prefix>/relay/<id>_<address>_<port>` of each.
   */
  relay?: string;
  /** Source lists or authentication (basic or external), either suffices. */
  satisfyAny?: true;
  /** Endpoints one request may be tried on; 0: all. */
  tries?: number;
  /** Seconds after the first try within which a request may be tried again; absent: no limit. */
  retryTimeout?: number;
  /** Response header rewrites `[from, to]`: Location/Refresh prefix, Set-Cookie Domain, Set-Cookie Path prefix. */
  location?: [string, string];
  cookieDomain?: [string, string];
  cookiePath?: [string, string];
}

/**
 * The id of a shared policy (`policy:<id>`): a digest of its content, so that equal policies are
 * one entry whichever routes, hosts or objects have them. Made by sharedPolicyIdOf only.
 */
export type SharedPolicyId = string & { readonly __sharedPolicyId: true };

/** A compiled route. */
export interface RouteEntry {
  id: string;
  kind: 'exact' | 'prefix' | 'regex';
  /** The exact path, the normalised prefix, or the pattern. */
  path: string;
  ignoreCase?: true;
  method?: string;
  headers?: ConditionEntry[];
  query?: ConditionEntry[];
  listeners?: string[];
  action: ActionEntry;
  /**
   * The policy fields that depend on the route itself (its rewrite, its affinity cookie's path);
   * the rest is in the `policy:<sharedPolicy>` entry, pushed once for every route that has it.
   */
  policy?: PolicyEntry;
  /** The `policy:<id>` entry whose fields the route has too. */
  sharedPolicy?: SharedPolicyId;
  /**
   * Forwarding routes: the catalogue profile whose location (`@<profile>`) proxies them, and the
   * protocol it speaks to the backend.
   */
  profile?: string;
  protocol?: BackendProtocol;
  /**
   * Where the route comes from, for the access log: `[namespace, name, service, port, path]` of
   * its origin, `''` for what the origin does not say; absent for origins without a namespace.
   */
  origin?: [string, string, string, string, string];
}

/**
 * Client certificates a host requires (route-model ClientCertificatePolicy): the CA certificates
 * (`ca`, PEM; empty: closed, every request 403), the `verify` mode, the chain `depth`, the 302
 * target of a failed verification (`errorPage`), `pass` the certificate upstream, the `subject`
 * pattern, and `id`, a digest of all of it that TLS sessions are bound to.
 */
export interface ClientCertEntry {
  id: string;
  ca: string;
  verify: 'on' | 'optional' | 'optional_no_ca';
  depth: number;
  errorPage?: string;
  pass?: true;
  subject?: string;
}

/**
 * Regex routes a worker matches with one PCRE match (see regex-groups.ts): `pattern` joins their
 * paths in route order, and `routes[k]` (a 1-based index) is the route whose marker is capture
 * `markers[k]`.
 */
export interface RegexGroupEntry {
  pattern: string;
  routes: number[];
  markers: number[];
}

/**
 * `host:<hostname>`: a virtual host. `exact` and `prefix` map a path (a normalised prefix) to the
 * 1-based indexes of the routes with that condition, `regex` holds every regex route in groups
 * matched together; each list is in route order, so a worker finds the first matching route
 * without scanning.
 */
export interface HostEntry {
  match: HostnameMatch;
  routes: RouteEntry[];
  fallback?: RouteEntry;
  exact: Record<string, number[]>;
  prefix: Record<string, number[]>;
  regex: RegexGroupEntry[];
  clientCert?: ClientCertEntry;
}

/** Any entry (`policy:<id>` holds a PolicyEntry). */
export type DataEntry = ListenersEntry | BackendEntry | CertificateEntry | TlsEntry | HostEntry | PolicyEntry;

/**
 * The body of `POST /configuration/data`. `full`: the entries in `set` are everything; keys not
 * in it are deleted. Otherwise `set` upserts and `delete` removes keys.
 */
export interface DataPlaneUpdate {
  full?: true;
  set: Record<string, DataEntry>;
  delete: string[];
}
