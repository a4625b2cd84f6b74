/**
 * The route model: what a gateway serves, as plain JSON-serialisable data. Translators (Ingress,
 * Gateway API) produce it; data planes (nginx with Lua, or any other proxy) consume it. Nothing
 * here names Kubernetes or nginx. The semantics each field carries are stated on the field and
 * implemented once, as a reference, by `selectRoute` (which route answers a request).
 */

/** A port a data plane listens on, and whether it terminates TLS there. */
export interface Listener {
  /** Unique in a table; routes and TLS bindings refer to listeners by this name. */
  name: string;
  port: number;
  protocol: 'HTTP' | 'HTTPS';
}

/**
 * How a hostname pattern of a virtual host matches a request's host:
 * - `exact`: `shop.example.com` only (also the kind of every name without a leading `*.`);
 * - `one-label`: `*.example.com` matches `a.example.com`, not `a.b.example.com` nor `example.com`
 *   (the Ingress spec);
 * - `suffix`: `*.example.com` matches `a.example.com` and `a.b.example.com`, not `example.com`
 *   (Gateway API);
 * - `any`: the hostname `*`, every host (the catch-all).
 */
export type HostnameMatch = 'exact' | 'one-label' | 'suffix' | 'any';

/**
 * A path condition. Paths are compared with the request path as the data plane decoded and
 * normalised it (`%2F` decoded, `..` resolved), without the query string.
 * - `Exact`: equal, character for character (`/foo` does not match `/foo/`).
 * - `PathPrefix`: element-wise prefix, per the Ingress spec and Gateway API: `/foo` matches
 *   `/foo`, `/foo/` and `/foo/bar`, not `/foobar`. A trailing `/` of the value is ignored, so
 *   `/foo/` is the same condition as `/foo`; `/` matches every path.
 * - `RegularExpression`: a PCRE pattern searched in the path (anchor it with `^` to match from the
 *   start); `ignoreCase` makes it case-insensitive.
 */
export type PathMatch =
  | { type: 'Exact'; value: string }
  | { type: 'PathPrefix'; value: string }
  | { type: 'RegularExpression'; value: string; ignoreCase?: boolean };

/**
 * A request header condition. Names compare case-insensitively. A header sent more than once is
 * matched against its values joined with `,` (as HTTP allows a list to be folded).
 */
export interface HeaderMatch {
  name: string;
  type: 'Exact' | 'RegularExpression';
  value: string;
}

/** A query parameter condition. Names compare case-sensitively; the first value sent counts. */
export interface QueryParamMatch {
  name: string;
  type: 'Exact' | 'RegularExpression';
  value: string;
}

/** Everything a request must satisfy for a route to answer it. */
export interface RouteMatch {
  path: PathMatch;
  /** An HTTP method, upper case; absent: any method. */
  method?: string;
  /** All must match; absent or empty: no header condition. */
  headers?: HeaderMatch[];
  /** All must match; absent or empty: no query condition. */
  queryParams?: QueryParamMatch[];
}

/**
 * One member of a backend group. `backend` names an entry of `RouteTable.backends`; a member
 * without one stands for a reference that cannot be served (a refused or invalid reference) and
 * answers `statusCode` (500 by default) for its share of the traffic, as Gateway API requires.
 * A backend id that is not in the table answers 503, like a backend without endpoints.
 */
export interface WeightedBackend {
  backend?: string;
  /** Relative share of requests; 0 means none. A group whose weights are all 0 answers 500. */
  weight: number;
  statusCode?: number;
}

/** How a path is changed before the request goes upstream, or in a redirect's Location. */
export type PathModifier =
  /** The whole path becomes `value`. */
  | { type: 'ReplaceFullPath'; value: string }
  /**
   * The part matched by the route's PathPrefix condition becomes `value` (Gateway API semantics:
   * `/foo` → `/bar` turns `/foo/x` into `/bar/x`, `/foo` into `/bar`). Only for PathPrefix routes.
   */
  | { type: 'ReplacePrefixMatch'; value: string };

/**
 * A path rewrite: a {@link PathModifier}, or nginx's `rewrite` (ingress-nginx rewrite-target): when
 * `pattern` (PCRE, searched in the path) matches, the whole path becomes `replacement`, in which
 * `$1`–`$9` stand for the capture groups (an unmatched group is empty); when it does not match,
 * the path stays. `ignoreCase` makes `pattern` case-insensitive, as the route's own regular
 * expression may be.
 */
export type PathRewrite =
  PathModifier | { type: 'RegexReplace'; pattern: string; replacement: string; ignoreCase?: boolean };

/** An HTTP redirect answered by the data plane itself. Absent parts are kept from the request. */
export interface Redirect {
  scheme?: 'http' | 'https';
  hostname?: string;
  /**
   * Absent: when `scheme` is set, the default port of that scheme (and no port in Location);
   * otherwise the port the request came in on, omitted when it is the default of the scheme.
   */
  port?: number;
  path?: PathModifier;
  /**
   * The query of the Location, without `?`; `''`: none. Absent: the request's query is kept
   * (Gateway API). A fixed target URL (ingress-nginx permanent-redirect, app-root) sets it.
   */
  query?: string;
  statusCode: 301 | 302 | 303 | 307 | 308;
}

/**
 * When a request goes to a route's canary instead of its backends (ingress-nginx canary
 * annotations), decided in this order:
 * 1. `header`: with `value`, a request whose header equals it is a canary request; with `pattern`
 *    (PCRE, searched), one whose header matches; with neither, `always` is and `never` is not.
 *    Any other value, or no such header, goes on to the cookie. A header sent more than once
 *    counts as its first value.
 * 2. `cookie`: a cookie of that name `always` is, `never` is not; else on to the weight.
 * 3. `weight` out of `weightTotal` of the remaining requests, at random.
 */
export interface CanaryRule {
  header?: { name: string; value?: string; pattern?: string };
  cookie?: string;
  weight: number;
  /** At least 1 and at least `weight`. */
  weightTotal: number;
  /**
   * How the route's cookie session affinity meets the canary (ingress-nginx
   * affinity-canary-behavior): `sticky` (absent) pins a client the canary served to the canary,
   * `legacy` gives canary requests no affinity. Either way a client pinned to the route's own
   * backends stays there, whatever the rule says.
   */
  affinity?: 'sticky' | 'legacy';
}

/** A route's canary: the rule and where canary requests go (balanced like the route's backends). */
export interface CanarySplit extends CanaryRule {
  backends: WeightedBackend[];
}

/** What a route does with a request it matched. */
export type RouteAction =
  | { type: 'forward'; backends: WeightedBackend[]; canary?: CanarySplit }
  | { type: 'redirect'; redirect: Redirect }
  | { type: 'respond'; statusCode: number; body?: string };

/** Headers to change on a request or a response, applied in the order remove, set, add. */
export interface HeaderModifier {
  /** Replace (or create) these headers. */
  set?: { name: string; value: string }[];
  /** Append these values, keeping values already present. */
  add?: { name: string; value: string }[];
  /** Remove these headers (case-insensitive names). */
  remove?: string[];
}

/** Protocols a data plane speaks to a backend. */
export type BackendProtocol = 'HTTP' | 'HTTPS' | 'GRPC' | 'GRPCS';

/** Upstream time limits in milliseconds; absent ones use the data plane's defaults. */
export interface RouteTimeouts {
  /** Establishing the connection to a backend. */
  connectMs?: number;
  /** Between two successive writes to the backend. */
  sendMs?: number;
  /** Between two successive reads from the backend (also the wait for the response to start). */
  readMs?: number;
  /**
   * The whole exchange with the client, from the request to the end of the response (Gateway API
   * `timeouts.request`); when it passes, the client gets 504. 0: no limit.
   */
  requestMs?: number;
  /**
   * One request to a backend, from sending it to the end of its response (Gateway API
   * `timeouts.backendRequest`); when it passes, the client gets 504. 0: no limit.
   */
  backendRequestMs?: number;
}

/**
 * HTTP Strict Transport Security (RFC 6797): browsers that got it over HTTPS use only HTTPS for
 * the host for `maxAgeSeconds` (and its subdomains with `includeSubdomains`). Sent on responses
 * to HTTPS requests only, as the RFC asks (over plain HTTP it would be ignored, or spoofed).
 */
export interface StrictTransportSecurity {
  maxAgeSeconds: number;
  includeSubdomains: boolean;
  /** Ask to be on browsers' preload lists. */
  preload: boolean;
}

/**
 * Cross-origin resource sharing as ingress-nginx's enable-cors serves it: a request whose Origin is
 * allowed gets the CORS headers on its response, whatever the response; an allowed request with
 * method OPTIONS is a preflight and is answered 204 with them, without reaching the action.
 */
export interface CorsPolicy {
  /**
   * `['*']`: every request counts as allowed, Origin or not, and gets Access-Control-Allow-Origin
   * `*`. Otherwise origins `http(s)://host[:port]`, the host possibly starting with `*.` (one
   * label), compared case-insensitively; an allowed Origin is echoed.
   */
  allowOrigins: string[];
  /** Access-Control-Allow-Methods, as sent (e.g. `GET, PUT, POST`). */
  allowMethods: string;
  /** Access-Control-Allow-Headers, as sent. */
  allowHeaders: string;
  /** Access-Control-Expose-Headers, as sent; empty: not sent. */
  exposeHeaders: string;
  /** Whether Access-Control-Allow-Credentials: true is sent. */
  allowCredentials: boolean;
  /** Access-Control-Max-Age in seconds. */
  maxAgeSeconds: number;
  /**
   * Whose rules the fields follow: ingress-nginx's enable-cors (absent), or Gateway API's CORS
   * filter, which differs in five ways. `*.` in an origin stands for any number of labels, and a
   * host of `*` alone for any host; an origin without a port also matches its scheme's default
   * port. With allowCredentials, a `*` among the origins, methods or headers is answered with the
   * request's own Origin, Access-Control-Request-Method or -Headers (without, with `*`).
   * Access-Control-Allow-Methods and -Headers go only to requests that ask
   * (Access-Control-Request-Method / -Headers). A preflight is answered 200, not 204.
   */
  dialect?: 'gateway-api';
}

/**
 * A request rate per client address, as nginx's limit_req with `nodelay` counts it: a client
 * idle long enough may send `burst + 1` requests at once, then one every `1 / rate` of the
 * period; a request over that is refused (and not counted).
 */
export interface ClientRate {
  /** Requests per `per`, at least 1. */
  rate: number;
  per: 'second' | 'minute';
  /** Requests over the rate accepted at once, at least 0. */
  burst: number;
}

/**
 * Limits per client address (ingress-nginx limit-connections, limit-rpm, limit-rps). The counts
 * are shared by every route with the same `scope` (an Ingress: all of its routes) and by every
 * worker of the data plane. Only forwarded requests are limited and counted.
 */
export interface ClientLimits {
  /** Routes with the same scope share their counts, e.g. `Ingress/shop/cart`. */
  scope: string;
  /** Requests of one client being served at once. */
  connections?: number;
  /** All must hold; a request refused by one is counted by none. */
  rates?: ClientRate[];
  /** Clients in these CIDRs are not limited. */
  exemptSources?: string[];
  /** The status of a refused request (ingress-nginx: 503). */
  statusCode: number;
  /** The status of a request refused by `connections`, when it is not `statusCode`. */
  connectionsStatusCode?: number;
}

/**
 * A memcached server that counts for every replica of the data plane (its text protocol: incr,
 * add, get, decr). Connections are kept per worker and reused.
 */
export interface SharedCounterStore {
  /** A host name (resolved by the data plane's resolvers) or an IP address. */
  host: string;
  port: number;
  /** Limit of connecting, sending and reading, in milliseconds. */
  timeoutMs: number;
  /** How long an idle kept connection stays open, in milliseconds. */
  idleTimeoutMs: number;
  /** Idle connections kept per worker. */
  poolSize: number;
}

/**
 * Requests per key and window counted in a store every replica shares (ingress-nginx
 * global-rate-limit). A sliding window: the count of the current window plus the previous
 * window's, weighted by how much of it still overlaps the last `windowSeconds`. A request that
 * would take the count over `limit` is refused with `statusCode` and not counted. When the store
 * cannot be asked, the request is refused with 503: the limit fails closed. Only forwarded
 * requests are limited and counted.
 */
export interface GlobalRateLimit {
  /** Routes with the same scope share their counts, e.g. `Ingress/shop/cart`. */
  scope: string;
  /** Requests per window, at least 1. */
  limit: number;
  /** At least 1. */
  windowSeconds: number;
  /** What a count is kept per: text and parts of the request (e.g. the client address). */
  key: HashKeyPart[];
  /** Clients in these CIDRs are neither limited nor counted. */
  exemptSources?: string[];
  /** The status of a refused request (ingress-nginx: 429). */
  statusCode: number;
  store: SharedCounterStore;
}

/**
 * HTTP Basic authentication (ingress-nginx auth-type basic): a forwarded request needs the
 * credentials of one of `users`, else it gets 401 with `WWW-Authenticate: Basic realm="<realm>"`.
 * A hash is an htpasswd hash: `$apr1$`, `{SHA}`, `{SSHA}`, `{PLAIN}`, or one crypt(3) reads
 * (`$1$`, `$5$`, `$6$`, `$2a$`/`$2b$`/`$2y$`, `$y$`, DES). No users: every request gets 401.
 */
export interface BasicAuthPolicy {
  /** Printable ASCII without `"` and `\`. */
  realm: string;
  users: { name: string; hash: string }[];
}

/**
 * HTTP Digest authentication (ingress-nginx auth-type digest, RFC 7616 with MD5 and qop=auth): a
 * forwarded request needs a Digest response of one of `users` to a nonce the data plane issued,
 * else it gets 401 with a `WWW-Authenticate: Digest` challenge in `realm`. A user's `ha1` is the
 * htdigest hash MD5(name:realm:password), 32 lowercase hex digits. No users: every request gets 401.
 * The Authorization header is not forwarded, as ingress-nginx clears it.
 */
export interface DigestAuthPolicy {
  /** Printable ASCII without `"` and `\`. */
  realm: string;
  users: { name: string; ha1: string }[];
}

/**
 * External authentication (ingress-nginx auth-url): before a forwarded request goes on, a request
 * without a body is sent to `url` with the client's headers and the original URL, method and
 * address. 2xx lets the request through; 401 and 403 are answered to the client (401 redirects to
 * `signin` when set); any other status, or no answer, gives 500: the route never opens on a failure.
 */
export interface ExternalAuthPolicy {
  /** An absolute http or https URL, without credentials or fragment. */
  url: string;
  /** The method of the check (ingress-nginx's list: GET, HEAD, POST, ...); absent: GET. */
  method?: string;
  /** Where a 401 sends the client (302), and the query parameter the original URL is added in. */
  signin?: {
    /** An http(s) URL; may hold `$host`, `$scheme`, `$request_uri` and `$escaped_request_uri`. */
    url: string;
    /** Absent: `url` already carries the original URL and is used as it is. */
    redirectParam?: string;
  };
  /** Headers of the 2xx answer set on the request to the backend (a header it lacks is removed). */
  responseHeaders?: string[];
  /** The X-Auth-Request-Redirect header sent to the service; absent: the request URI. */
  requestRedirect?: string;
  /**
   * Headers set on the check (ingress-nginx auth-proxy-set-headers), replacing the client's of
   * the same name; literal values.
   */
  requestHeaders?: { name: string; value: string }[];
  /** Pass the check's Set-Cookie to the client on 401 and 403 too, not only when it lets through. */
  alwaysSetCookie?: boolean;
  /** Answers kept and reused per route and key; see {@link ExternalAuthCache}. */
  cache?: ExternalAuthCache;
  /** Connections to the service kept open between checks; see {@link ExternalAuthKeepalive}. */
  keepalive?: ExternalAuthKeepalive;
}

/**
 * Keep-alive connections to an external auth service (ingress-nginx auth-keepalive*): per route
 * and data plane worker, at most `connections` idle ones are kept, each for `timeoutSeconds` idle
 * and `requests` checks at most.
 */
export interface ExternalAuthKeepalive {
  /** 1 to 1024. */
  connections: number;
  /** 1 to 100000. */
  requests: number;
  /** 1 to 3600. */
  timeoutSeconds: number;
  /** The check carries the X-Request-ID the backend gets (ingress-nginx auth-keepalive-share-vars). */
  shareRequestId?: boolean;
}

/**
 * Client certificate authentication (ingress-nginx auth-tls), a policy of the whole hostname: the
 * data plane applies the policy of the host's first route carrying one, in origin order (oldest
 * object first), to every request for the host, whichever route answers it. Over TLS the client
 * is asked for a certificate, which must chain to `caCertificatesPem` within `depth`
 * intermediates. `on`: a request without a verified certificate gets 400; `optional`: one with a
 * certificate that fails verification gets 400; `optional_no_ca`: only failures other than an
 * unknown issuer get 400. `errorPage` turns those 400s into a 302 to it. `subjectPattern`: the
 * certificate's subject (RFC 2253, as `CN=a,O=b`) must match it, else 403. The backend receives
 * `ssl-client-verify`, `ssl-client-subject-dn`, `ssl-client-issuer-dn` and with
 * `passCertificate` `ssl-client-cert` (the URL-encoded PEM). A request whose TLS server name
 * (SNI) is not its host gets 421, one over plain HTTP 403. Empty `caCertificatesPem`: closed,
 * every request gets 403.
 */
export interface ClientCertificatePolicy {
  /** PEM CA certificates; empty: nothing can be verified and the host answers 403. */
  caCertificatesPem: string;
  verify: 'on' | 'optional' | 'optional_no_ca';
  /** Longest chain from the client certificate to a CA, 1 to 10. */
  depth: number;
  /** An absolute http(s) URL or a path starting with `/`. */
  errorPage?: string;
  passCertificate?: boolean;
  /** A PCRE pattern searched in the subject DN. */
  subjectPattern?: string;
}

/**
 * TLS towards an HTTPS or gRPCS backend (ingress-nginx proxy-ssl-*); no effect on other protocols.
 * With `verify`, the backend's certificate must chain to `caCertificatesPem` within `depth`
 * intermediates and name `serverName` (else the route's upstreamHost, else its virtual host's
 * exact hostname), or the request gets 502. `clientCertificate` is presented to the backend. That
 * name is also sent as SNI when `sendServerName`. Empty `caCertificatesPem` with `verify`, or
 * `verify` with no name (a wildcard or catch-all host): closed, every forwarded request gets 503.
 */
export interface BackendTlsPolicy {
  caCertificatesPem: string;
  verify: boolean;
  /** 1 to 100. */
  depth: number;
  /** A chain (leaf first) and its PKCS#8 key, PEM. */
  clientCertificate?: { certificatePem: string; privateKeyPem: string };
  /** At least one. */
  protocols: ('TLSv1.2' | 'TLSv1.3')[];
  /** An OpenSSL cipher list: letters, digits and `+:_-!`. */
  ciphers: string;
  serverName?: string;
  sendServerName: boolean;
}

/**
 * Answers of an auth service reused, per route, for requests with the same `key` (parts of the
 * request, at least one not text): an answer with one of `statuses` for `seconds`. Answers that
 * set a cookie or say `Cache-Control: no-store`, `no-cache` or `private` are never kept.
 */
export interface ExternalAuthCache {
  key: HashKeyPart[];
  durations: { statuses: number[]; seconds: number }[];
}

/**
 * Cookie session affinity (ingress-nginx affinity: cookie): a request without a valid cookie is
 * balanced as usual and its answer sets the cookie (HttpOnly) naming the endpoint chosen; a
 * request with one goes to that endpoint. `persistent`: the cookie names the endpoint itself, and
 * is replaced only when that endpoint is gone; `balanced`: the cookie holds a key spread over the
 * current endpoints by rendezvous hashing, so a change of endpoints moves only some sessions. When
 * the endpoint fails, the retry goes to it again unless `changeOnFailure`, which moves the
 * session (and its cookie) to another endpoint.
 */
export interface SessionAffinity {
  mode: 'balanced' | 'persistent';
  cookie: {
    name: string;
    /** Absent: the route's path (a PathPrefix or Exact value; `/` for a regular expression). */
    path?: string;
    domain?: string;
    sameSite?: 'None' | 'Lax' | 'Strict';
    /**
     * SameSite=None is left out for clients known to reject it (Chromium's list: iOS 12,
     * macOS 10.14, Chrome 51-66, UC Browser before 12.13.2).
     */
    conditionalSameSiteNone?: boolean;
    /** Secure is set on HTTPS listeners anyway; this sets it on plain HTTP too. */
    secure?: boolean;
    maxAgeSeconds?: number;
    /** Expires: this many seconds after the cookie is set. */
    expiresSeconds?: number;
  };
  changeOnFailure?: boolean;
}

/**
 * One part of a consistent-hash key (ingress-nginx upstream-hash-by): fixed text, or a part of
 * the request (the URI as sent with its query, the path, the Host, the client address, or the
 * first value of a header, cookie or query parameter; absent ones count as empty).
 */
export type HashKeyPart =
  | { type: 'text'; value: string }
  | { type: 'requestUri' | 'path' | 'host' | 'clientAddress' }
  | { type: 'header' | 'cookie' | 'query'; name: string };

/** A prefix of a response header value replaced by another (nginx proxy_redirect, proxy_cookie_*). */
export interface ResponseRewrite {
  from: string;
  to: string;
}

/** When a failed request is tried on the next endpoint (nginx proxy_next_upstream conditions). */
export type RetryCondition = (typeof RETRY_CONDITIONS)[number];

/** Every {@link RetryCondition}, in nginx's documentation order. */
export const RETRY_CONDITIONS = [
  'error',
  'timeout',
  'invalid_header',
  'http_500',
  'http_502',
  'http_503',
  'http_504',
  'http_403',
  'http_404',
  'http_429',
  'non_idempotent',
] as const;

/**
 * How requests are buffered and retried on their way to a backend (ingress-nginx's proxy-*
 * annotations). Absent fields keep the data plane's defaults. Applies to HTTP and HTTPS backends.
 */
export interface UpstreamSettings {
  /** Read the whole request body before sending it on (default true). */
  requestBuffering?: boolean;
  /** Read the response into buffers rather than pass it on as it comes. */
  responseBuffering?: boolean;
  httpVersion?: '1.0' | '1.1';
  /** The buffer for the first part of the response (its headers), in bytes. */
  bufferSizeBytes?: number;
  /** How many buffers of `bufferSizeBytes` a response may use. */
  buffersNumber?: number;
  /**
   * How much of those buffers may be busy sending the response to the client while the rest is
   * still read, in bytes: at least one buffer, less than all of them but one.
   */
  busyBuffersBytes?: number;
  /** The buffer for a request body before it is written to a file, in bytes. */
  requestBodyBufferBytes?: number;
  /** Most of a response written to a temporary file, in bytes; 0: none. */
  maxTempFileBytes?: number;
  /** When a request is tried on the next endpoint; empty: never. Default: error and timeout. */
  retryOn?: RetryCondition[];
  /** How long a request may go on being retried, in seconds; 0: no limit. */
  retryTimeoutSeconds?: number;
}

/** How a matched request is treated besides where it goes. Every field is optional. */
export interface RoutePolicy {
  /**
   * On a plain-HTTP listener, answer with a redirect to the same URL on the HTTPS listener instead
   * of applying the action (ingress-nginx ssl-redirect). With `onlyIfHostHasTls`, only when the
   * table binds a certificate (not `NO_CERTIFICATE`) to exactly the virtual host's hostname. With `stripTrailingSlash`, a
   * request URI (path and query as sent) ending in `/` loses that `/` in the Location, as
   * ingress-nginx does unless preserve-trailing-slash is set.
   */
  redirectToHttps?: {
    statusCode: 301 | 302 | 307 | 308;
    onlyIfHostHasTls?: boolean;
    stripTrailingSlash?: boolean;
  };
  /** Only clients whose address is in one of these CIDRs are served; others get 403. */
  allowSources?: string[];
  /** Client certificates the hostname requires; see {@link ClientCertificatePolicy}. */
  clientCertificate?: ClientCertificatePolicy;
  /** TLS settings towards HTTPS and gRPCS backends; see {@link BackendTlsPolicy}. */
  backendTls?: BackendTlsPolicy;
  /**
   * Clients whose address is in one of these CIDRs get 403, whatever `allowSources` says
   * (ingress-nginx denylist-source-range: its `deny` lines come before the allowlist's).
   */
  denySources?: string[];
  /** Largest request body accepted, in bytes; 0 means no limit. Larger bodies get 413. */
  maxBodyBytes?: number;
  /** Path sent upstream. */
  rewrite?: PathRewrite;
  /** Host header sent upstream instead of the client's. */
  upstreamHost?: string;
  requestHeaders?: HeaderModifier;
  responseHeaders?: HeaderModifier;
  /** CORS headers and preflight answers; see {@link CorsPolicy}. */
  cors?: CorsPolicy;
  /** Strict-Transport-Security on every response to an HTTPS request; see {@link StrictTransportSecurity}. */
  hsts?: StrictTransportSecurity;
  timeouts?: RouteTimeouts;
  /** HTTP by default. */
  backendProtocol?: BackendProtocol;
  /**
   * The endpoint of a request is chosen by a hash of this key over the backend's endpoints
   * (rendezvous hashing), so requests with the same key go to the same endpoint while it lasts.
   */
  hashKey?: HashKeyPart[];
  /**
   * With `hashKey`: the key picks a subset of this many endpoints (endpoints in a stable order,
   * cut into groups), and each request goes to one of them at random.
   */
  hashSubsetSize?: number;
  /**
   * How a backend's endpoints share requests without a hash key or affinity: `round-robin` (the
   * default), or `ewma`: of two endpoints taken at random, the one with the lower moving average
   * of response time, weighted by its requests in flight.
   */
  loadBalancing?: 'round-robin' | 'ewma';
  /**
   * How many endpoints one request may be tried on (a failed connection or a timeout moves to
   * the next); 0: every endpoint. Absent: the data plane's default (3).
   */
  upstreamTries?: number;
  /**
   * The Connection header sent upstream instead of the data plane's own (which passes upgrades
   * on and otherwise keeps connections alive), e.g. `close`.
   */
  upstreamConnectionHeader?: string;
  /** false: the data plane's access log leaves this route's requests out. */
  accessLog?: boolean;
  /**
   * `any`: a request that passes either the source lists (`allowSources`, `denySources`) or
   * `basicAuth` (or `digestAuth`) is served, as nginx's `satisfy any`; one that passes neither gets 401. Absent:
   * both must pass.
   */
  satisfy?: 'any';
  /** Buffering and retries on the way to the backend; see {@link UpstreamSettings}. */
  upstreamSettings?: UpstreamSettings;
  /** A Location or Refresh header of the response starting with `from` starts with `to` instead. */
  locationRewrite?: ResponseRewrite;
  /** A Domain attribute of a Set-Cookie equal to `from` (ignoring case and a leading dot) becomes `to`. */
  cookieDomainRewrite?: ResponseRewrite;
  /** A Path attribute of a Set-Cookie starting with `from` starts with `to` instead. */
  cookiePathRewrite?: ResponseRewrite;
  /** Which endpoint of its backend a client keeps; see {@link SessionAffinity}. */
  sessionAffinity?: SessionAffinity;
  /** Credentials a forwarded request needs; see {@link BasicAuthPolicy}. */
  basicAuth?: BasicAuthPolicy;
  /** Digest credentials a forwarded request needs; see {@link DigestAuthPolicy}. */
  digestAuth?: DigestAuthPolicy;
  /** A service that must let each forwarded request through; see {@link ExternalAuthPolicy}. */
  externalAuth?: ExternalAuthPolicy;
  /** Limits per client address; see {@link ClientLimits}. */
  clientLimits?: ClientLimits;
  /** Requests per key and window, counted for every replica; see {@link GlobalRateLimit}. */
  globalRateLimit?: GlobalRateLimit;
  /** A copy of each request goes to this backend too; its answer is ignored. */
  mirror?: { backend: string };
  /** Answers of the backend replaced by an error backend's; see {@link CustomErrors}. */
  customErrors?: CustomErrors;
  /**
   * When the backend a request would go to has no endpoints, it goes to this backend instead
   * (ingress-nginx's default-backend annotation), if that one has endpoints; else 503 as usual.
   */
  noEndpointsBackend?: string;
}

/**
 * Custom error pages (ingress-nginx custom-http-errors): an answer of the route's backend (or the
 * data plane's own 502/503/504 for it) whose status is in `statuses` is replaced by the answer of
 * the first of `backends` that has endpoints, or by a plain 404 when none has (ingress-nginx's
 * built-in default backend). The error backend is asked for `/` with the request's method and
 * headers, plus `X-Code` (the status), `X-Format` (the Accept header), `X-Original-URI`,
 * `X-Request-ID` and `headers`; its answer, status included, goes to the client as it is.
 */
export interface CustomErrors {
  /** Status codes from 400 to 599, ascending, unique. */
  statuses: number[];
  backends: string[];
  /** More request headers for the error backend (X-Namespace, X-Service-Name, ...). */
  headers?: { name: string; value: string }[];
  /**
   * The backend's own answers pass through whatever their status (ingress-nginx's
   * disable-proxy-intercept-errors); only the data plane's own 502/503/504 are replaced.
   */
  passBackendErrors?: boolean;
}

/**
 * Who contributed a route and its rank among equals. Precedence ties are broken by age
 * (`createdAt`, older first), then `namespace`, `name`, then `index` (the position of the rule,
 * path or match inside its object), so the oldest object wins a conflict.
 */
export interface RouteOrigin {
  /** The kind of the object, e.g. `Ingress`, `HTTPRoute`. */
  kind: string;
  namespace: string;
  name: string;
  /** Creation time in milliseconds since the epoch; unknown times sort last. */
  createdAt: number;
  index: number[];
  /** Where in the object the route comes from, e.g. `spec.rules[0].http.paths[1]`. */
  field?: string;
  /**
   * The path the object wrote for the route, before any normalising (an Ingress path: `/api/`, a
   * regular expression), for data planes to log (ingress-nginx's `$location_path`).
   */
  path?: string;
  /**
   * The service the object sends the route to, and its port as written (a number or a port
   * name), for data planes to log (ingress-nginx's `$service_name`, `$service_port`).
   */
  service?: string;
  servicePort?: string;
}

/** One route: a match, an action, a policy, and where it came from. */
export interface Route {
  /** Unique in a table and stable across rebuilds, e.g. `Ingress/shop/cart/r0/p1`. */
  id: string;
  origin: RouteOrigin;
  match: RouteMatch;
  action: RouteAction;
  policy: RoutePolicy;
  /** Listener names this route is served on; absent: every listener of the table. */
  listeners?: string[];
}

/**
 * The routes of one hostname pattern, in precedence order (see `compareRoutes`). A request goes to
 * the first route whose match (and listeners) it satisfies; if none does, to `fallbackRoute`; a
 * virtual host without one passes the request on to the next less specific hostname that covers
 * it (`a.example.com` → `*.example.com` → `*`), and a request nothing answers gets 404.
 */
export interface VirtualHost {
  /** Lower case: `shop.example.com`, `*.example.com`, or `*` for every host. */
  hostname: string;
  hostnameMatch: HostnameMatch;
  routes: Route[];
  /** Answers what no route matched; its `match` is not consulted. */
  fallbackRoute?: Route;
}

/** A place a backend's traffic can go. */
export interface Endpoint {
  /** An IPv4 or IPv6 address (without brackets). */
  address: string;
  port: number;
}

/**
 * A set of interchangeable endpoints (a Kubernetes Service port, say). Requests are balanced over
 * `endpoints`; none means 503. `externalName` instead sends requests to a DNS name: with no
 * `endpoints` the data plane resolves it itself; with `endpoints`, those are the addresses the
 * name resolved to, and the data plane connects only to them (a DNS answer cannot then point it
 * anywhere else), naming the host (TLS server name) as `externalName.hostname`.
 */
export interface Backend {
  /** Unique in a table, e.g. `shop/cart:80`. */
  id: string;
  endpoints: Endpoint[];
  externalName?: { hostname: string; port: number };
}

/**
 * A certificate chain and its private key, PEM. The id derives from the content, so a new
 * certificate is a new id and a data plane can cache parsed certificates by id forever.
 */
export interface Certificate {
  id: string;
  /** Leaf first, then intermediates. */
  certificatePem: string;
  privateKeyPem: string;
  /** The leaf's notAfter, ISO 8601, when known. */
  notAfter?: string;
}

/**
 * Which certificate a TLS handshake gets for a server name (SNI). A data plane looks the name up
 * exactly, then as `*.` with its first label dropped, then as `*` (the default certificate); a
 * name bound nowhere gets the data plane's own default certificate.
 */
export interface TlsBinding {
  hostname: string;
  /**
   * The id of the certificate; `NO_CERTIFICATE` (`''`) for an exact name that has none of its own
   * and must not get the `*.` binding one label up, which another tenant owns (host ownership):
   * the data plane serves it the `*` binding, or its own default certificate.
   */
  certificate: string;
  /** The object that asked for this binding (the oldest one, when several did). */
  origin: RouteOrigin;
}

/** Everything a data plane serves. Collections are sorted by their key. */
export interface RouteTable {
  listeners: Listener[];
  virtualHosts: VirtualHost[];
  tls: TlsBinding[];
  certificates: Certificate[];
  backends: Backend[];
}

/**
 * The difference between two route tables, per key: virtual hosts by hostname, TLS bindings by
 * hostname, certificates and backends by id. `listeners` is present only when they changed.
 * Applying it to the first table gives the second.
 */
export interface RouteTableDelta {
  virtualHosts: { upsert: VirtualHost[]; remove: string[] };
  tls: { upsert: TlsBinding[]; remove: string[] };
  certificates: { upsert: Certificate[]; remove: string[] };
  backends: { upsert: Backend[]; remove: string[] };
  listeners?: Listener[];
}

/** The object a contribution comes from. */
export interface SourceRef {
  kind: string;
  namespace: string;
  name: string;
}

/**
 * What one hostname gets from one source object. `fallback`: a route answering what no route of
 * the host matches, `'table-default'` for the builder's default fallback (the controller's default
 * backend, or 404), or absent (the host passes unmatched requests on; see {@link VirtualHost}).
 */
export interface HostContribution {
  hostname: string;
  /** How a `*.` hostname matches; `one-label` when absent. Ignored for other hostnames. */
  wildcard?: 'one-label' | 'suffix';
  routes: Route[];
  fallback?: Route | 'table-default';
  /** Canaries for other sources' routes of this hostname; see {@link CanaryContribution}. */
  canaries?: CanaryContribution[];
}

/**
 * What a canary source (an Ingress with ingress-nginx's `canary`) adds to a hostname: it answers
 * no request itself, it becomes the canary of the forwarding route of *another source of the same
 * namespace* with the same match. `route` holds the match, the canary backends (a forward action)
 * and the origin; of several canaries for one route the oldest wins.
 */
export interface CanaryContribution {
  route: Route;
  rule: CanaryRule;
}

/** A certificate one source asks a hostname to be served with. */
export interface TlsClaim {
  hostname: string;
  certificate: Certificate;
  origin: RouteOrigin;
}

/** The tenant a hostname belongs to, and the source whose contribution made it the owner. */
export interface HostOwner {
  tenant: string;
  source: SourceRef;
  /** The wildcard covering the hostname that the source named, when it owns the hostname through one. */
  via?: string;
}

/** Everything one source object (an Ingress, an HTTPRoute, ...) adds to a table. */
export interface RouteContribution {
  source: SourceRef;
  /**
   * The isolation domain of the source (an Ingress: its namespace). When the builder runs with
   * `hostOwnership: 'oldest-tenant'`, a hostname belongs to the tenant of its oldest contribution,
   * and other tenants' routes and TLS claims for it are left out. Sources without a tenant (Gateway
   * API routes, whose hostnames the Gateway's listeners govern) neither own nor lose hostnames.
   */
  tenant?: string;
  hosts: HostContribution[];
  tls: TlsClaim[];
}

/**
 * Something assembling a table decided against a source: a route that an older one with the same
 * match hides, a fallback an older source's fallback replaces, a TLS claim that an older claim
 * for the same hostname won, or a hostname another tenant owns (all of the source's routes and
 * TLS claims for it are left out).
 */
export type AssemblyNote =
  | { type: 'host-owned-elsewhere'; source: SourceRef; hostname: string; owner: HostOwner }
  | { type: 'route-shadowed'; source: SourceRef; route: Route; by: Route; hostname: string }
  | { type: 'fallback-overridden'; source: SourceRef; route: Route; by: Route; hostname: string }
  | { type: 'tls-overridden'; source: SourceRef; hostname: string; claim: TlsClaim; by: TlsBinding }
  /**
   * A canary that applies to no route: no forwarding route of another source of its namespace has
   * its match (`by` absent), or an older canary took that route (`by`).
   */
  | { type: 'canary-unmatched'; source: SourceRef; route: Route; hostname: string; by?: Route }
  /**
   * The source's routes would take the host past the builder's `hostLimit`, whose `reason` says
   * how; older sources of the host keep theirs, and this one is left out of it.
   */
  | { type: 'host-limit-exceeded'; source: SourceRef; hostname: string; reason: string };

/**
 * Something in a source object that could not be served as written. `error`: that part (the
 * object, a rule, a path, a TLS entry) was left out or answers with an error status; `warning`:
 * it is served, but not exactly as written.
 */
export interface Problem {
  object: SourceRef;
  /** Where in the object, as a JSON-path-like string, e.g. `spec.rules[0].http.paths[1].path`. */
  field: string;
  message: string;
  severity: 'error' | 'warning';
  /** The offending value, when there is one (shown as data, never interpreted). */
  value?: string;
  /**
   * What kind of problem it is, for programs that act on it (kebab-case, e.g. `service-not-found`,
   * `route-shadowed`): stable, while the message is for people and may be reworded.
   */
  code?: string;
}
