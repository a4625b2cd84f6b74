/**
 * Every annotation ingress-nginx (v1.15) documents or parses, and what we do with the ones we do
 * not support. The list is data, not prose, so docs/annotations.md is generated from it and from
 * the parsers and cannot drift. Names are without the prefix.
 *
 * An unsupported annotation is *refused* (the Ingress is not served) when serving without it could
 * expose a backend: it authenticates, limits, filters, inspects or verifies something, changes who
 * gets traffic, or is raw nginx configuration. Any other unsupported annotation is ignored with a
 * warning. A refusal may name an `offValue`: a value that turns the protection off, with which
 * ignoring the annotation is exactly what ingress-nginx does.
 */
import { saysValue } from './grammar.js';

/** What an unsupported ingress-nginx annotation protects, which we cannot honour. */
export interface AnnotationRefusal {
  /** Why serving without it would be unsafe, a short phrase ("it authenticates clients"). */
  reason: string;
  /** A value (compared as saysValue does) that disables the protection; then it is only ignored. */
  offValue?: string;
}

/** One annotation of ingress-nginx, by name without prefix. */
export interface IngressNginxAnnotation {
  name: string;
  /** The section of ingress-nginx's documentation it belongs to. */
  group: string;
  /** Present when an unsupported annotation leaves the Ingress out. */
  refusal?: AnnotationRefusal;
  /** Present when we support it but serve it differently from ingress-nginx: how. */
  difference?: string;
}

const AUTH: AnnotationRefusal = { reason: 'it authenticates clients' };
const CANARY: AnnotationRefusal = { reason: 'it decides which backend gets the traffic' };
const RATE_LIMIT: AnnotationRefusal = { reason: 'it limits what a client may send' };
const BACKEND_TLS: AnnotationRefusal = { reason: 'it authenticates the backend or the gateway over TLS' };
const WAF: AnnotationRefusal = { reason: 'it filters requests through a web application firewall' };
const SNIPPET: AnnotationRefusal = { reason: 'it is raw nginx configuration, which is never accepted' };
const CONFIGURATION_SNIPPET: AnnotationRefusal = {
  reason:
    "it is raw nginx configuration, accepted only when the controller's --allow-snippet-directives allows every directive it holds",
};

function entries(
  group: string,
  names: readonly string[],
  refusal?: AnnotationRefusal,
): IngressNginxAnnotation[] {
  return names.map((name) => (refusal === undefined ? { name, group } : { name, group, refusal }));
}

/** The ingress-nginx annotations, grouped as its documentation groups them. */
const LISTED: readonly IngressNginxAnnotation[] = [
  ...entries('Authentication', ['auth-type', 'auth-secret', 'auth-secret-type', 'auth-realm']),
  ...entries('External authentication', [
    'auth-url',
    'auth-method',
    'auth-signin',
    'auth-signin-redirect-param',
    'auth-response-headers',
  ]),
  ...entries('External authentication', ['auth-proxy-set-headers']),
  ...entries('External authentication', ['auth-request-redirect']),
  ...entries('External authentication', ['auth-cache-key', 'auth-cache-duration']),
  // Connection reuse towards the auth service only saves time: ignored with a warning.
  ...entries('External authentication', [
    'auth-keepalive',
    'auth-keepalive-share-vars',
    'auth-keepalive-requests',
    'auth-keepalive-timeout',
  ]),
  ...entries('External authentication', ['auth-always-set-cookie']),
  ...entries('External authentication', ['enable-global-auth']),
  {
    name: 'auth-tls-secret',
    group: 'Client certificate authentication',
    difference:
      "a CA Secret of the Ingress's own namespace; one that is missing, has no valid ca.crt or holds a ca.crl (revocation lists are not checked) answers 403 on the hosts. A request whose TLS server name is not its Host gets 421 (also without SNI), one over plain HTTP 403 unless it is redirected to HTTPS. The host's oldest Ingress with auth-tls sets it for every path of the host",
  },
  {
    name: 'auth-tls-verify-client',
    group: 'Client certificate authentication',
    difference:
      'off asks for no certificate and sends no ssl-client-* headers (ingress-nginx sends ssl-client-verify NONE)',
  },
  ...entries('Client certificate authentication', ['auth-tls-verify-depth']),
  {
    name: 'auth-tls-error-page',
    group: 'Client certificate authentication',
    difference: 'an http(s) URL or a path, answered with a 302 to it (a path is not an internal redirect)',
  },
  {
    name: 'auth-tls-pass-certificate-to-upstream',
    group: 'Client certificate authentication',
    difference: 'without it, an ssl-client-cert header the client sent is removed',
  },
  {
    name: 'auth-tls-match-cn',
    group: 'Client certificate authentication',
    difference: "the regex is compiled by nginx's PCRE when pushed; one it refuses leaves out the host",
  },
  { name: 'satisfy', group: 'Satisfy' },
  {
    name: 'proxy-ssl-secret',
    group: 'Backend certificate authentication',
    difference:
      "a Secret of the Ingress's own namespace whose ca.crt is required (ingress-nginx then silently leaves backend TLS as it was); one that is missing or cannot be used answers 503. It holds for the Ingress's own paths (ingress-nginx's proxy-ssl-location-only). nginx reaches these backends through the controller's TLS relay, which opens TLS with the Ingress's settings, so a new CA, client certificate or cipher list takes no reload; while the controller is down these paths answer 502, and a POST whose TLS connection fails is not tried on another endpoint (nginx had handed it to the relay)",
  },
  {
    name: 'proxy-ssl-verify',
    group: 'Backend certificate authentication',
    difference:
      'without proxy-ssl-name the name verified is upstream-vhost, else the rule\'s host; a rule without a host or with a wildcard host has none, so its requests get 503, with an error on the Ingress (ingress-nginx verifies the name "upstream_balancer", which no certificate holds)',
  },
  ...entries('Backend certificate authentication', ['proxy-ssl-verify-depth', 'proxy-ssl-name']),
  {
    name: 'proxy-ssl-ciphers',
    group: 'Backend certificate authentication',
    difference:
      "the TLSv1.2 cipher list, as nginx's proxy_ssl_ciphers reads it (TLSv1.3 keeps OpenSSL's suites); one that names no TLSv1.2 cipher the controller's OpenSSL knows is an error (ingress-nginx's nginx -t fails on it)",
  },
  {
    name: 'proxy-ssl-server-name',
    group: 'Backend certificate authentication',
    difference:
      'the name sent is proxy-ssl-name, else upstream-vhost or the rule\'s host (ingress-nginx sends "upstream_balancer" without proxy-ssl-name); an IP address or a wildcard host sends none',
  },
  {
    name: 'proxy-ssl-protocols',
    group: 'Backend certificate authentication',
    difference: 'TLSv1.2 and TLSv1.3 only; another value is an error (ingress-nginx falls back to TLSv1.2)',
  },
  ...entries('Backend certificate authentication', ['secure-verify-ca-secret'], BACKEND_TLS),
  ...entries('Canary', [
    'canary',
    'canary-by-header',
    'canary-by-header-value',
    'canary-by-header-pattern',
    'canary-by-cookie',
    'canary-weight',
    'canary-weight-total',
  ]),
  ...entries('Rate limiting', ['limit-connections', 'limit-rps', 'limit-rpm']),
  // limit-rate 0 is ingress-nginx's own "no limit".
  ...entries('Rate limiting', ['limit-rate', 'limit-rate-after'], {
    reason: 'it limits the bandwidth of a response',
    offValue: '0',
  }),
  ...entries('Rate limiting', ['limit-burst-multiplier', 'limit-allowlist', 'limit-whitelist']),
  ...entries('Global rate limiting', [
    'global-rate-limit',
    'global-rate-limit-window',
    'global-rate-limit-key',
    'global-rate-limit-ignored-cidrs',
  ]),
  ...entries('Source ranges', [
    'allowlist-source-range',
    'whitelist-source-range',
    'denylist-source-range',
    'blacklist-source-range',
  ]),
  ...entries('ModSecurity', ['enable-modsecurity', 'enable-owasp-core-rules'], { ...WAF, offValue: 'false' }),
  ...entries('ModSecurity', ['modsecurity-transaction-id'], WAF),
  ...entries('SSL passthrough', ['ssl-passthrough']),
  {
    name: 'ssl-ciphers',
    group: 'SSL ciphers',
    refusal: { reason: 'it restricts the TLS ciphers a host accepts' },
  },
  ...entries('SSL ciphers', ['ssl-prefer-server-ciphers']),
  ...entries('Custom headers', ['custom-headers']),
  ...entries('Snippets', ['configuration-snippet'], CONFIGURATION_SNIPPET),
  // A host-wide header policy the route model does not have: refused even with the flag.
  ...entries(
    'Snippets',
    ['server-snippet', 'stream-snippet', 'auth-snippet', 'modsecurity-snippet'],
    SNIPPET,
  ),
  ...entries('Rewrite', ['rewrite-target', 'app-root', 'use-regex', 'enable-rewrite-log']),
  ...entries('Redirects', [
    'permanent-redirect',
    'permanent-redirect-code',
    'temporal-redirect',
    'temporal-redirect-code',
    'from-to-www-redirect',
    'ssl-redirect',
    'force-ssl-redirect',
    'preserve-trailing-slash',
  ]),
  ...entries('Server', ['server-alias', 'x-forwarded-prefix', 'upstream-vhost', 'connection-proxy-header']),
  ...entries('CORS', [
    'enable-cors',
    'cors-allow-origin',
    'cors-allow-methods',
    'cors-allow-headers',
    'cors-expose-headers',
    'cors-allow-credentials',
    'cors-max-age',
  ]),
  ...entries('Session affinity', [
    'affinity',
    'affinity-mode',
    'affinity-canary-behavior',
    'session-cookie-name',
    'session-cookie-path',
    'session-cookie-domain',
    'session-cookie-secure',
    'session-cookie-samesite',
    'session-cookie-conditional-samesite-none',
    'session-cookie-max-age',
    'session-cookie-expires',
    'session-cookie-change-on-failure',
  ]),
  ...entries('Load balancing', [
    'load-balance',
    'upstream-hash-by',
    'upstream-hash-by-subset',
    'upstream-hash-by-subset-size',
    'service-upstream',
  ]),
  ...entries('Backend', [
    'backend-protocol',
    'default-backend',
    'custom-http-errors',
    'disable-proxy-intercept-errors',
    'fastcgi-index',
    'fastcgi-params-configmap',
  ]),
  ...entries('Proxy', [
    'proxy-body-size',
    'proxy-connect-timeout',
    'proxy-send-timeout',
    'proxy-read-timeout',
    'proxy-next-upstream',
    'proxy-next-upstream-timeout',
    'proxy-next-upstream-tries',
    'proxy-request-buffering',
    'proxy-buffering',
    'proxy-buffers-number',
    'proxy-buffer-size',
    'proxy-busy-buffers-size',
    'proxy-max-temp-file-size',
    'proxy-http-version',
    'proxy-cookie-domain',
    'proxy-cookie-path',
    'proxy-redirect-from',
    'proxy-redirect-to',
    'client-body-buffer-size',
  ]),
  ...entries('Mirror', ['mirror-target', 'mirror-host', 'mirror-request-body']),
  ...entries('Observability', [
    'enable-access-log',
    'enable-opentracing',
    'opentracing-trust-incoming-span',
    'enable-opentelemetry',
    'opentelemetry-trust-incoming-span',
    'enable-influxdb',
    'influxdb-measurement',
    'influxdb-port',
    'influxdb-host',
    'influxdb-server-name',
  ]),
  ...entries('HTTP/2', ['http2-push-preload']),
];

// These pick one of the profile locations nginx.conf always holds (nginx-template's catalogue).
const PROFILE_NOTE =
  'picks one of the profile locations nginx.conf always holds, so no value reloads nginx; not applied to gRPC backends';
// Per-route buffer settings nginx cannot take per request; the ConfigMap key sets them for all.
const BUFFERS_NOTE =
  "not applied per route (a warning): nginx.conf's value, the ConfigMap key's, is used, since a route's own value would need a location of its own in nginx.conf";

// ingress-nginx limits in nginx's preaccess phase, before its allow/deny lines (access phase).
const LIMIT_DIFFERENCE =
  "a request refused by the source allow- or deny-list is not counted (ingress-nginx counts it); refusals are 503 unless the ConfigMap's limit-req-status-code (rates) or limit-conn-status-code (connections) say otherwise";

/**
 * How the annotations we support differ from ingress-nginx, besides what holds for all of them
 * (values outside our grammar leave the Ingress out instead of falling back to a default).
 */
const DIFFERENCES: Readonly<Record<string, string>> = {
  'configuration-snippet':
    'The flag takes a comma-separated list of directives; a snippet holding only those is served, translated into header changes of its routes and never written to nginx.conf: more_set_headers and more_clear_headers (response), more_set_input_headers and more_clear_input_headers (request), add_header NAME VALUE [always], proxy_set_header NAME VALUE and proxy_hide_header NAME. Names are literal (no wildcards), values literal text ("$" is refused: no nginx variables), the -s, -t and -r options are refused; a block, include, Lua or any other directive leaves the Ingress out with an error naming the line and the directive. Directives apply in the order written; as in ingress-nginx\'s location, the response headers go over the ConfigMap\'s add-headers and under custom-headers, the request headers over proxy-set-headers and x-forwarded-prefix. Differences: add_header applies to every status even without always (nginx: 200, 201, 204, 206, 301, 302, 303, 304, 307 and 308 only); more_set_input_headers and more_clear_input_headers change only the request sent to the backend, after authentication (ingress-nginx changes it before, so authentication sees the change); proxy_set_header replaces a header the ConfigMap sets (ingress-nginx sends both); the headers the gateway sets itself (Host, X-Real-IP, X-Request-ID, X-Forwarded-For, -Host, -Port, -Proto and -Scheme, and those that frame a message) cannot be changed',
  'server-snippet':
    'Refused even with --allow-snippet-directives: its headers would hold for every path of the host, which has no header policy of its own here',
  'ssl-passthrough':
    "needs --enable-ssl-passthrough (else it is reported and the host's TLS ends in nginx, as in ingress-nginx); TLS goes to the ready endpoints of the backend of path / (ingress-nginx: the Service cluster IP); other paths, spec.tls and the other annotations of that Ingress are reported as ignored for TLS, while plain HTTP is served by its routes",
  'use-regex':
    'only the ImplementationSpecific paths of its own Ingress become regular expressions; ingress-nginx makes every path of the host, in every Ingress, a case-insensitive regex',
  'rewrite-target':
    'on a literal path the matched prefix (Prefix) or the whole path (Exact) is replaced and the rest kept; ingress-nginx sends every request as exactly the target. Capture references ($1-$9) need use-regex',
  'permanent-redirect':
    '$request_uri (at the end) is the only nginx variable accepted; the source allowlist still applies to the redirect',
  'temporal-redirect':
    '$request_uri (at the end) is the only nginx variable accepted; the source allowlist still applies to the redirect',
  'permanent-redirect-code':
    '301, 302, 303, 307 or 308; other codes are refused where ingress-nginx falls back to 301',
  'temporal-redirect-code':
    '301, 302, 303, 307 or 308; other codes are refused where ingress-nginx falls back to 302',
  'app-root':
    "an Exact / route of the Ingress's hosts, so an older Ingress's own Exact / on the host wins over it",
  'enable-cors':
    'a preflight is answered after the HTTPS redirect and the source allow- and deny-lists; ingress-nginx answers it before them',
  'cors-allow-origin':
    '"*" cannot be mixed with origins (ingress-nginx turns it into a one-label pattern), and an origin must match from its start (ingress-nginx anchors only the end)',
  'from-to-www-redirect':
    "the redirect keeps a trailing slash and the port the request came in on (ingress-nginx drops the slash and names the HTTPS port); it is the other name's fallback, so an Ingress naming that host serves its own paths there rather than disabling the redirect; HTTPS on the other name needs a certificate bound to it",
  'server-alias':
    'an alias another Ingress names as a host is merged with it (paths conflicting with the other Ingress go to the older one) instead of being ignored; HTTPS on an alias needs spec.tls to name it',
  'proxy-connect-timeout': 'whole seconds from 1 to 3600',
  'proxy-read-timeout': 'whole seconds from 1 to 86400',
  'proxy-send-timeout': 'whole seconds from 1 to 86400',
  'backend-protocol': 'AJP and FCGI are refused (the Ingress is not served)',
  'auth-type':
    'digest is RFC 7616 Digest with MD5 and qop=auth (no SHA-256, as htdigest files hold MD5 only), checked in Lua: a nonce is valid 60s until first used, then 10s and nc 1 to 20 (each once) before the client gets stale=true and answers a fresh nonce without asking the user; nonces are signed with a key of the nginx instance, so a restart makes clients answer again',
  'auth-secret':
    "only a Secret of the Ingress's own namespace, where ingress-nginx reads namespace/name of any; a missing Secret, one without users, or a hash outside $apr1$, {SHA}, {SSHA}, {PLAIN} and crypt(3) ($1$, $5$ and $6$ up to 100000 rounds, bcrypt $2a$/$2b$/$2y$ up to cost 12, yescrypt $y$j9T$, DES) gives 401 to every request, with an error on the Ingress. For digest, an htdigest file (user:realm:MD5 lines; auth-map: realm:MD5 per user key) whose users of auth-realm sign in; a malformed line or no user of the realm closes it the same way",
  'auth-url':
    "a literal http or https URL: nginx variables are refused. Like a backend, it may not name loopback, link-local, cloud metadata or the gateway's own addresses, in any spelling (with --allow-local-backend-addresses, loopback and own addresses except on the gateway's own ports), and since a host name can resolve anywhere, an answer from such an address gives 500. Host names are resolved by nginx with the nameservers of the controller's /etc/resolv.conf, without search domains (write them fully qualified). X-Original-URI and X-Scheme are sent without auth-method too, and the answer's Set-Cookie reaches the client whatever the backend answers",
  'auth-keepalive':
    "0 to 1024 connections (a negative count is refused, where ingress-nginx takes it as 0); applied live, without a reload. The checks of the route then go from Lua straight to the service over HTTP/1.1 on connections kept per route and nginx worker, as ingress-nginx's upstream keepalive is per location and worker, and unlike it this works with HTTP/2 clients too. A host name is first resolved by nginx with a check through it, then its checked address is used for 30 seconds (the resolver's valid=); an https service is asked with its host as TLS name, its certificate not verified, as without keep-alive. Connect timeout 5s, send and read 60s",
  'auth-keepalive-requests':
    'up to 1000000; 0 or less turns keep-alive off with a warning, as ingress-nginx does (without a warning). Set without auth-keepalive above 0, a warning',
  'auth-keepalive-timeout':
    '1 to 3600 seconds; 0 or less turns keep-alive off with a warning, as ingress-nginx does (without a warning). Set without auth-keepalive above 0, a warning',
  'auth-keepalive-share-vars':
    "no nginx variables are shared between a request and its check here; what ingress-nginx documents it for holds: with true the check's X-Request-ID is the backend's (the client's X-Request-ID, else nginx's id of the request), with false nginx's id of the request. As in ingress-nginx, only with auth-keepalive above 0 (else a warning)",
  'auth-proxy-set-headers':
    'a ConfigMap of the Ingress\'s own namespace; header names are A-Z a-z 0-9 - (not the ones the check sets itself) and values literal text ("$" is refused: nginx variables are not expanded). A missing ConfigMap or an entry that is no such header gives 503 to every request, with an error on the Ingress',
  'custom-headers':
    'a ConfigMap of the Ingress\'s own namespace (as ingress-nginx); every header name must be in the controller ConfigMap\'s global-allowed-response-headers (compared without case), names are A-Z a-z 0-9 - _ (not Connection, Content-Length, Transfer-Encoding or other framing headers) and values literal text ("$" is refused: nginx variables are not expanded). A missing ConfigMap, a header not allowed or an entry that is no such header gives 503 to every request, with an error on the Ingress; a change of either ConfigMap applies without a reload',
  'auth-signin':
    'may hold only the variables $host, $http_host, $scheme, $request_uri and $escaped_request_uri',
  'auth-request-redirect': 'literal text only: nginx variables are refused',
  'auth-cache-key':
    'the grammar of upstream-hash-by ($request_uri, $uri, $host, $remote_addr, $http_*, $cookie_*, $arg_* and text; at least one variable, so $remote_user is refused: use $http_authorization). Answers are kept in the memory of the nginx node per route, and never when they set a cookie or say Cache-Control no-store, no-cache or private; Expires and max-age do not lengthen or shorten auth-cache-duration',
  'auth-cache-duration': 'status codes then a time in s, m, h or d (at most 7d) per entry; "any" is refused',
  affinity:
    'the cookie pins an endpoint of the backend the route chose; with a canary, see affinity-canary-behavior',
  'affinity-canary-behavior':
    'read on the canary Ingress, as ingress-nginx does. As its balancer: a client whose cookie pins it to the main backends stays there whatever the canary rule says (in both modes); with sticky a client the canary served stays on the canary, its cookie value marked ".c" (ingress-nginx adds a backend key), with legacy canary requests get no cookie and are balanced as without affinity, the rule deciding each one. The canary\'s own session-cookie-* annotations are not read: the main route\'s cookie serves both sides',
  'affinity-mode':
    "balanced spreads the cookie's keys over the endpoints by rendezvous hashing, where ingress-nginx uses a consistent-hash ring; either way a change of endpoints moves only some sessions",
  'session-cookie-path':
    "defaults to the route's path as ingress-nginx does, but to / for a regular-expression path (ingress-nginx writes the regex itself)",
  'upstream-hash-by':
    "keys are spread by rendezvous hashing rather than ingress-nginx's consistent-hash ring (a key keeps its endpoint either way, not necessarily the one ingress-nginx picks), a retry after a failure goes round robin, and only $request_uri, $uri, $document_uri, $host, $remote_addr, $binary_remote_addr, $http_*, $cookie_* and $arg_* may be used",
  'proxy-redirect-from': 'literal text only: "default", regular expressions (~) and variables are refused',
  'proxy-redirect-to':
    'literal text only: variables are refused. A Location made relative stays relative (ingress-nginx makes it absolute unless its ConfigMap says relative-redirects "true")',
  'proxy-cookie-domain': 'literal "<from> <to>" only: regular expressions and variables are refused',
  'proxy-cookie-path': 'literal "<from> <to>" only: regular expressions and variables are refused',
  'proxy-buffering': `${PROFILE_NOTE}; without it responses are buffered (nginx's default), where ingress-nginx's ConfigMap default is off`,
  'proxy-request-buffering': PROFILE_NOTE,
  'proxy-http-version': PROFILE_NOTE,
  'proxy-buffer-size': `${PROFILE_NOTE}; from 1k to 1m, rounded up to the ConfigMap's proxy-buffer-size, 16k, 128k or 1m (a larger buffer only takes longer headers), with four buffers of that size for the body`,
  'proxy-buffers-number': `${BUFFERS_NOTE}; from 3 to 64 (nginx refuses fewer with its busy buffers)`,
  'proxy-busy-buffers-size': `${BUFFERS_NOTE}; at least proxy-buffer-size and less than all proxy-buffers-number buffers but one (by default 4k, 4 buffers), else a warning and not applied (ingress-nginx writes it and nginx refuses the configuration)`,
  'client-body-buffer-size': `${BUFFERS_NOTE}; from 1k to 1m`,
  'proxy-max-temp-file-size': `${BUFFERS_NOTE}; 0 or from 1m to 1024g`,
  'proxy-next-upstream': `${PROFILE_NOTE}. The sets are "error timeout", "error timeout http_502 http_503 http_504", "error timeout invalid_header http_500 http_502 http_503 http_504" and the ConfigMap's proxy-next-upstream; another value is served as the largest of them within it (a warning), so a request is never retried on an answer the value does not name; "off" is one try`,
  'proxy-next-upstream-timeout':
    'route data (no reload): a retry after the time is refused by the balancer, so the answer is 502 where nginx answers with the last failure (504 after a timeout)',
  'proxy-body-size':
    'route data (no reload), checked by the router against Content-Length; a body without Content-Length (chunked, or HTTP/2 without the header) is read under the limit rounded up to a power of two, then held to the limit. On routes with proxy-request-buffering off and gRPC routes such a body streams to the backend unlimited, where ingress-nginx cuts it at the limit',
  'load-balance':
    "ewma takes the lower of two random endpoints by response time times requests in flight, per nginx worker, as a retry after a failure goes round robin; its decay constants are not ingress-nginx's",
  'upstream-hash-by-subset':
    'the key picks a subset by rendezvous hashing over subsets of endpoints in address order, where ingress-nginx uses a consistent-hash ring',
  satisfy:
    'combines basic (or digest) and external authentication with the source allow- and deny-lists (passing either suffices, and under any one of basic, digest or external authentication does); a CORS preflight is still answered after the lists when neither passes',
  'session-cookie-conditional-samesite-none':
    "clients are matched against Chromium's published list of SameSite=None-incompatible clients (iOS 12, macOS 10.14, Chrome 51-66, UC Browser before 12.13.2), written anew",
  canary:
    "the main Ingress (same host and path) must be in the canary's namespace, where ingress-nginx takes one from any namespace; a canary without one, or beside an older canary of the same path, is reported as an error on it. As in ingress-nginx, the canary's other annotations do not apply and it adds no certificates",
  'canary-by-header': 'the header name is letters, digits, "-" and "_"',
  'canary-by-cookie': 'the cookie name is letters, digits, ".", "-" and "_"',
  'canary-weight':
    'a weight over canary-weight-total leaves the Ingress out, where ingress-nginx sends every request to the canary',
  'canary-weight-total':
    "a total below 100 is used as written, where ingress-nginx's balancer counts it as 100",
  'custom-http-errors':
    "route data (no reload): the backend's answers reach the route through the hop server of the same nginx, which hands back the statuses the route does not replace (so nginx can intercept every status in one location; the access log's $upstream_addr is the hop's socket); 499 is refused (nginx cannot intercept it); not applied to gRPC backends. Answers of the backend (and nginx's 502, 503 and 504 for it, and the 503 of a backend without endpoints) are replaced, not the gateway's own refusals (401, 403, 413, 429, ...). The error backend is the default-backend annotation's Service when it has endpoints, else --default-backend-service; without either, intercepted answers become 404, with a warning, as ingress-nginx's built-in default backend answers",
  'disable-proxy-intercept-errors':
    "applies to the Ingress's own custom-http-errors only (the ConfigMap's are intercepted whatever it says, as ingress-nginx does, and it is then a warning): the backend's answers pass through as they are, while nginx's own 502 and 504 for the backend and the 503 of a backend without endpoints still go to the error backend",
  'default-backend':
    "a Service of the Ingress's namespace, its first port (as ingress-nginx); it answers the Ingress's requests whose backend has no endpoints, and its custom-http-errors",
  'limit-connections': LIMIT_DIFFERENCE,
  'limit-rps': LIMIT_DIFFERENCE,
  'limit-rpm': LIMIT_DIFFERENCE,
  'global-rate-limit':
    "fails closed: while memcached cannot be asked, the Ingress's requests get 503 (ingress-nginx serves them unlimited); without the ConfigMap's global-rate-limit-memcached-host, or without global-rate-limit-window, the Ingress gets 503 and an error (ingress-nginx serves it unlimited). A refused request is not counted, and no refusal is cached in nginx: every request asks memcached",
  'global-rate-limit-window':
    'a Go duration (1m, 10s, 1h30m) from 1s to 336h, fractions of a second dropped as ingress-nginx does; under 1s is an error (ingress-nginx: no limit)',
  'global-rate-limit-key':
    'text (letters, digits and `. _ ~ : / -`) and the variables `$remote_addr`, `$host`, `$uri`, `$request_uri`, `$http_*`, `$cookie_*`, `$arg_*`; other variables are an error',
};

/**
 * Every ingress-nginx annotation (names without prefix) in documentation groups, with the refusal
 * of the unsupported ones that protect something and the differences of the supported ones.
 */
export const INGRESS_NGINX_ANNOTATIONS: readonly IngressNginxAnnotation[] = LISTED.map((entry) =>
  Object.hasOwn(DIFFERENCES, entry.name) ? { ...entry, difference: DIFFERENCES[entry.name]! } : entry,
);

const BY_NAME: ReadonlyMap<string, IngressNginxAnnotation> = new Map(
  INGRESS_NGINX_ANNOTATIONS.map((entry) => [entry.name, entry]),
);

/** The catalogue entry of an annotation name (without prefix), if ingress-nginx has it. */
export function findIngressNginxAnnotation(name: string): IngressNginxAnnotation | undefined {
  return BY_NAME.get(name);
}

/**
 * Why an unsupported annotation with this value must leave its Ingress out, or undefined when it
 * may be ignored. Names outside the catalogue that look like a snippet, auth or canary setting
 * are refused too: a future ingress-nginx name of those families must not be served open.
 */
export function refusalOf(name: string, value: unknown): string | undefined {
  const entry = BY_NAME.get(name);
  if (entry !== undefined) {
    const refusal = entry.refusal;
    if (refusal === undefined) return undefined;
    if (
      refusal.offValue !== undefined &&
      typeof value === 'string' &&
      saysValue(value.trim(), refusal.offValue)
    ) {
      return undefined;
    }
    return refusal.reason;
  }
  if (name.endsWith('snippet')) return SNIPPET.reason;
  if (name.startsWith('auth-')) return AUTH.reason;
  if (name.startsWith('canary')) return CANARY.reason;
  if (name.startsWith('limit-') || name.startsWith('global-rate-limit')) return RATE_LIMIT.reason;
  if (name.startsWith('modsecurity-')) return WAF.reason;
  if (name.startsWith('proxy-ssl-')) return BACKEND_TLS.reason;
  return undefined;
}
