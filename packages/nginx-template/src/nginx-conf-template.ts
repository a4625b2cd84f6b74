/**
 * The nginx.conf template (handlebars). Every directive name is written here and nowhere else;
 * every value is a number or an enum the renderer produced, or goes through the quoting helper
 * `q` / `qLiteral`. No user text is ever rendered: hosts, paths and policies are Lua data.
 */

/**
 * The named location of one catalogue profile (see profiles.ts): every one of them is in every
 * server, whatever the routes, so no route ever changes nginx.conf. The body limit was checked by
 * the router (Content-Length) or by a body reader (see BODY_READER_PARTIAL); the backend, its
 * scheme and the TLS name come from the router in variables. `filter` and `after` name the Lua
 * that runs on the response headers and after the response: the hop server's differ.
 */
export const PROFILE_PARTIAL = `        location @{{name}} {
            client_max_body_size 0;
{{#if directives.requestBuffering}}
            proxy_request_buffering {{directives.requestBuffering}};
{{/if}}
{{#if directives.responseBuffering}}
            proxy_buffering {{directives.responseBuffering}};
{{/if}}
{{#if directives.httpVersion}}
            proxy_http_version {{directives.httpVersion}};
{{/if}}
{{#if directives.bufferSize}}
            {{module}}_buffer_size {{directives.bufferSize}};
{{/if}}
{{#if directives.buffers}}
            proxy_buffers {{directives.buffers.number}} {{directives.buffers.size}};
            proxy_busy_buffers_size {{directives.buffers.busy}};
{{/if}}
            {{module}}_next_upstream {{directives.nextUpstream}};
{{#if mirror}}
            mirror /_ingresskit_mirror;
{{/if}}
            header_filter_by_lua_block {
                {{filter}}()
            }
            log_by_lua_block {
                {{after}}()
            }
            {{module}}_pass $ingresskit_target;
            {{module}}_ssl_server_name on;
            {{module}}_ssl_name $ingresskit_ssl_name;
        }`;

/**
 * A body reader: a request whose body has no Content-Length, on a route with a body limit, is
 * read here before it is proxied, under the limit rounded up to a power of two (so nginx stops
 * reading a body far over it); the Lua then holds the body to the route's own limit and goes on
 * to the route's profile location.
 */
export const BODY_READER_PARTIAL = `        location @ingresskit_read_{{exponent}} {
            client_max_body_size {{size}};
            # A body over the limit is the gateway's refusal, as in location /: no error page.
            error_page 599 = @ingresskit_error_599;
            rewrite_by_lua_block {
                ingresskit_read_body()
            }
        }`;

/**
 * The proxy_set_header lines of every request sent upstream, as the http block sets them; the
 * hop location (which sets headers of its own, and so inherits none) repeats them.
 */
export const UPSTREAM_HEADERS_PARTIAL = `{{#with @root}}
    proxy_set_header Host $ingresskit_upstream_host;
    proxy_set_header Upgrade $http_upgrade;
    proxy_set_header Connection $ingresskit_connection;
{{#if upstreamHeaders.requestId}}
    proxy_set_header X-Request-ID $ingresskit_request_id;
{{/if}}
{{#if upstreamHeaders.originalUri}}
    proxy_set_header X-Original-URI $request_uri;
{{/if}}
    proxy_set_header X-Real-IP $remote_addr;
{{#if forwardedHeaders}}
    proxy_set_header X-Forwarded-For $ingresskit_forwarded_for;
    proxy_set_header X-Forwarded-Host $ingresskit_forwarded_host;
    proxy_set_header X-Forwarded-Port $ingresskit_forwarded_port;
    proxy_set_header X-Forwarded-Proto $ingresskit_forwarded_proto;
    proxy_set_header X-Forwarded-Scheme $ingresskit_forwarded_proto;
{{else}}
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_set_header X-Forwarded-Host $ingresskit_request_host;
    proxy_set_header X-Forwarded-Port $ingresskit_forwarded_port;
    proxy_set_header X-Forwarded-Proto $ingresskit_scheme;
    proxy_set_header X-Forwarded-Scheme $ingresskit_scheme;
{{/if}}
{{/with}}`;

/**
 * Custom error pages (custom-http-errors). Every status nginx can intercept has a tiny location,
 * which error_page sends nginx's own answers to (and, in the hop location, the backend's); its Lua
 * decides: the route asked for this status, so its error backend answers (in
 * @ingresskit_error, asked for / with X-Code and the others), or it did not, and the answer is
 * nginx's own page of that status.
 */
export const ERROR_PAGES_PARTIAL = `{{#each @root.errorStatuses}}
        location @ingresskit_error_{{this}} {
            rewrite_by_lua_block {
                ingresskit_custom_error({{this}})
            }
        }
{{/each}}
        location @ingresskit_error {
            proxy_set_header Host $host;
            proxy_set_header Connection "";
            proxy_set_header X-Code $ingresskit_error_code;
            proxy_set_header X-Format $http_accept;
            proxy_set_header X-Original-URI $request_uri;
            proxy_set_header X-Request-ID $ingresskit_request_id;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Host $host;
            proxy_set_header X-Forwarded-Port $server_port;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_pass http://ingresskit_error;
            log_by_lua_block {
                ingresskit_after_request()
            }
        }`;

/**
 * Routes that replace some of their backend's error answers (custom-http-errors) go through the
 * hop: nginx intercepts answers per location and status, and a route's statuses are its own, so
 * this location intercepts every status, and proxies to the hop server (HOP_SERVER_PARTIAL) of
 * this same nginx, which proxies to the backend with the route's profile and hands back the
 * answers the route did not list under status 200 with X-Ingresskit-Status, which the header
 * filter here restores. Bodies stream both ways; the hop carries what the router chose.
 */
export const HOP_LOCATION_PARTIAL = `        location @ingresskit_hop {
            client_max_body_size 0;
            proxy_intercept_errors on;
            proxy_request_buffering off;
            proxy_buffering off;
            proxy_http_version 1.1;
            proxy_next_upstream off;
            # The hop server applies the route's own timeouts.
            proxy_read_timeout 86400s;
            proxy_send_timeout 86400s;
{{> upstreamHeaders}}
{{#each @root.hopHeaders}}
            proxy_set_header {{name}} {{variable}};
{{/each}}
            header_filter_by_lua_block {
                ingresskit_hop_restore()
            }
            log_by_lua_block {
                ingresskit_after_request()
            }
            proxy_pass http://ingresskit_hop;
        }
`;

/**
 * One server per listener. `location /` routes every request in Lua and proxies the common case
 * (plain HTTP backend, body within the limit) in place; everything else goes to a profile
 * location by ngx.exec. `uninitialized_variable_warn off`: nginx warns when a variable a `set`
 * declares is read before any `set` ran, which is the case for a request refused before the
 * rewrite phase (400, 414, ...) when it is logged; the router's variables are maps (never
 * uninitialized), and the directive keeps it so for any variable an operator's log format adds.
 */
export const SERVER_PARTIAL = `    server {
{{#each listen}}
        listen {{q this}}{{#if ../ssl}} ssl{{#if @root.http.http2}} http2{{/if}}{{/if}}{{#if ../proxyProtocol}} proxy_protocol{{/if}}{{#if @root.http.reusePort}} reuseport{{/if}} default_server;
{{/each}}
{{#if passthrough}}
        # Behind the controller's ssl-passthrough proxy, on loopback only: the client's address is
        # the one its PROXY line names, believed from the proxy (127.0.0.1) alone.
        set_real_ip_from 127.0.0.1;
        real_ip_header proxy_protocol;
{{/if}}
{{#if ssl}}
        ssl_certificate {{q @root.defaultCertificate}};
        ssl_certificate_key {{q @root.defaultCertificate}};
        ssl_certificate_by_lua_block {
            require("ingresskit.certificates").serve()
        }
        # Binds each TLS session to its server name, so none verified for one host resumes on another.
        ssl_client_hello_by_lua_block {
            require("ingresskit.client_certificates").bind_session()
        }
{{/if}}
        uninitialized_variable_warn off;
{{#if ssl}}
        # Empty (no header) unless the route asks for HSTS; only this HTTPS server sends it.
        add_header Strict-Transport-Security $ingresskit_hsts always;
{{/if}}
{{#if @root.exposeRouteId}}
        add_header X-Ingresskit-Route $ingresskit_route always;
{{/if}}
        # nginx's own error answers in the profile, hop and body reader locations go to the error
        # pages, which give a route's error backend the statuses it asked for (custom-http-errors).
{{#each @root.errorStatuses}}
        error_page {{this}} = @ingresskit_error_{{this}};
{{/each}}

        location / {
            # Each route's limit is checked by the router (see BODY_READER_PARTIAL).
            client_max_body_size 0;
            # The router's own answers (401 with its challenge, 403, 404, ...) are final: an
            # error_page here keeps the server's from applying. Neither nginx nor the router
            # answers 599.
            error_page 599 = @ingresskit_error_599;
            rewrite_by_lua_block {
                ingresskit_route({{#if ssl}}true{{/if}})
            }
            proxy_next_upstream {{@root.inPlaceRetry}};
            proxy_pass http://ingresskit_upstream;
        }
        # The copies of requests a mirroring route makes: internal, so no client can ask for it;
        # the backend is the one in $ingresskit_mirror, and its answer is thrown away.
        location = /_ingresskit_mirror {
            internal;
            proxy_pass http://ingresskit_mirror$request_uri;
        }
{{> hopLocation}}
        # catalogue: begin (the same in every server; nothing of a route)
{{> errorPages}}
{{#each @root.bodyReaders}}
{{> bodyReader}}
{{/each}}
{{#each @root.profiles}}
{{> profile}}
{{/each}}
        # catalogue: end
    }
`;

/**
 * The hop server (see HOP_LOCATION_PARTIAL), on a unix socket no client, route or tenant can
 * reach. The request the hop location sends is the one the backend gets, so its headers pass on
 * as they are (proxy_set_header here replaces the http block's), but for the hop's own, which
 * carry what the router chose and are taken out; the client address is the one the hop names.
 * Nothing is logged or counted here: the hop location does that.
 */
export const HOP_SERVER_PARTIAL = `    server {
        listen {{q hopListen}};
        access_log off;
        uninitialized_variable_warn off;
        real_ip_header X-Ingresskit-Client;
        set_real_ip_from unix:;
        log_by_lua_block {
            ingresskit_hop_after()
        }
        proxy_set_header Host $http_host;
        proxy_set_header Connection $http_connection;
        proxy_set_header Upgrade $http_upgrade;
{{#each hopHeaders}}
        proxy_set_header {{name}} "";
{{/each}}
{{#each upstreamHeaders.hide}}
        proxy_hide_header {{q this}};
{{/each}}
        # Only the hop server's own filter may say these.
        proxy_hide_header X-Ingresskit-Status;
        proxy_hide_header X-Ingresskit-Affinity;

        location / {
            client_max_body_size 0;
            rewrite_by_lua_block {
                ingresskit_hop()
            }
        }
        location = /_ingresskit_mirror {
            internal;
            proxy_pass http://ingresskit_mirror$request_uri;
        }
        # catalogue: begin (the hop server's)
{{#each hopProfiles}}
{{> profile}}
{{/each}}
        # catalogue: end
    }
`;

/** The whole nginx.conf. */
export const NGINX_CONF_TEMPLATE = `# nginx.conf rendered by @ingresskit/nginx-template; do not edit.
# configuration hash: {{configHash}}
{{#each modules}}
load_module {{q this}};
{{/each}}
pid {{q pid}};
error_log {{q errorLog}} {{errorLogLevel}};
worker_processes {{workerProcesses}};
worker_shutdown_timeout {{workerShutdownTimeout}}s;
{{#if http.workerCpuAffinity}}
worker_cpu_affinity {{http.workerCpuAffinity}};
{{/if}}
{{#if http.maxWorkerOpenFiles}}
worker_rlimit_nofile {{http.maxWorkerOpenFiles}};
{{/if}}
pcre_jit on;

events {
    worker_connections {{workerConnections}};
    multi_accept {{http.multiAccept}};
}

http {
    default_type {{q http.defaultType}};
    server_tokens {{serverTokens}};
    keepalive_timeout {{clientKeepaliveTimeout}}s;
{{#if clientKeepaliveRequests}}
    keepalive_requests {{clientKeepaliveRequests}};
{{/if}}
{{> httpSettings http}}

    client_body_temp_path {{q tempPaths.clientBody}};
    proxy_temp_path {{q tempPaths.proxy}};
    fastcgi_temp_path {{q tempPaths.fastcgi}};
    uwsgi_temp_path {{q tempPaths.uwsgi}};
    scgi_temp_path {{q tempPaths.scgi}};

{{#if accessLogFormat}}
    # The operator's format (log-format-upstream), rendered from checked text and variable names.
    log_format ingresskit{{#if accessLogEscape}} escape={{accessLogEscape}}{{/if}} {{qLiteral accessLogFormat}};
{{else}}
    log_format ingresskit{{#if accessLogEscape}} escape={{accessLogEscape}}{{/if}} '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time "$ingresskit_route" "$ingresskit_backend" $upstream_addr $upstream_status';
{{/if}}
{{#if accessLogSkipUris.length}}
    # Request URIs never logged (skip-access-log-urls); other requests as $ingresskit_log says.
    map $request_uri $ingresskit_loggable {
{{#each accessLogSkipUris}}
        {{q this}} 0;
{{/each}}
        default $ingresskit_log;
    }
{{/if}}
{{#if accessLog}}
    # Routes with enable-access-log "false" set $ingresskit_log to 0.
    access_log {{q accessLog}} ingresskit{{#each accessLogParams}} {{this}}{{/each}} if={{accessLogCondition}};
{{else}}
    access_log off;
{{/if}}

{{#if gzip}}
    gzip on;
    gzip_comp_level {{gzip.level}};
    gzip_http_version 1.1;
    gzip_min_length {{gzip.minLength}};
    gzip_types{{#each gzip.types}} {{q this}}{{/each}};
    gzip_proxied any;
    gzip_vary on;
{{#if http.gzipDisable}}
    gzip_disable {{q http.gzipDisable}};
{{/if}}

{{/if}}
{{#if http.brotli}}
    brotli on;
    brotli_comp_level {{http.brotli.level}};
    brotli_min_length {{http.brotli.minLength}};
    brotli_types{{#each http.brotli.types}} {{q this}}{{/each}};

{{/if}}
    proxy_connect_timeout {{connectTimeout}}s;
    proxy_read_timeout {{readTimeout}}s;
    proxy_send_timeout {{sendTimeout}}s;
    grpc_connect_timeout {{connectTimeout}}s;
    grpc_read_timeout {{readTimeout}}s;
    grpc_send_timeout {{sendTimeout}}s;
    proxy_http_version 1.1;
    proxy_buffering on;
    proxy_redirect off;
{{#with upstreamDefaults}}
    # The operator's buffers (proxy-buffer-size and the like): every profile's but a larger one's.
{{#if bufferSize}}
    proxy_buffer_size {{bufferSize}};
    grpc_buffer_size {{bufferSize}};
{{/if}}
{{#if buffers}}
    proxy_buffers {{buffers.number}} {{buffers.size}};
{{/if}}
{{#if busyBuffersSize}}
    proxy_busy_buffers_size {{busyBuffersSize}};
{{/if}}
{{#if bodyBufferSize}}
    client_body_buffer_size {{bodyBufferSize}};
{{/if}}
{{#if maxTempFileSize}}
    proxy_max_temp_file_size {{maxTempFileSize}};
{{/if}}
{{/with}}

    # Variables the Lua router sets. A map declares them without costing anything per request
    # (a \`set\` would run on every request); unset, they are empty. Lua can assign only variables
    # some directive refers to (the log format, proxy_pass, proxy_set_header do).
    map "" $ingresskit_route { default ""; }
    map "" $ingresskit_backend { default ""; }
    # The backend of a route proxied in a profile location: scheme and upstream (or the pinned
    # address of an ExternalName, or the TLS relay's socket for it), and the TLS server name an
    # HTTPS or gRPCS ExternalName gets (absent: the Host sent). Routes with a backend TLS policy
    # reach their backends in plain text through the controller's TLS relay.
    map "" $ingresskit_target { default ""; }
    map "" $ingresskit_backend_ssl_name { default ""; }
    map $ingresskit_backend_ssl_name $ingresskit_ssl_name {
        "" $ingresskit_upstream_host;
        default $ingresskit_backend_ssl_name;
    }
    # The body reader's next location, and the status an error page is made for.
    map "" $ingresskit_next { default ""; }
    map $ingresskit_next $ingresskit_next_referenced { default ""; }
    map "" $ingresskit_error_code { default ""; }
    map "" $ingresskit_host_override { default ""; }
    map "" $ingresskit_limit_conn { default ""; }
    map "" $ingresskit_peer { default ""; }
    map "" $ingresskit_affinity { default ""; }
    map "" $ingresskit_ewma { default ""; }
    map "" $ingresskit_log { default 1; }
    map "" $ingresskit_connection_override { default ""; }
    map "" $ingresskit_hsts { default ""; }
    map "" $ingresskit_mirror { default ""; }
    map "" $ingresskit_auth_url { default ""; }
    map "" $ingresskit_auth_host { default ""; }
    map "" $ingresskit_auth_method { default "GET"; }
    map $ingresskit_auth_socket $ingresskit_auth_socket_referenced { default ""; }
    # Where the router asks auth services (see the server listening there).
    map "" $ingresskit_auth_socket { default {{q authListen}}; }
    # Only a variable some directive refers to can be assigned from Lua; these maps are never read.
    map $ingresskit_limit_conn $ingresskit_limit_conn_referenced { default ""; }
    map $ingresskit_peer $ingresskit_peer_referenced { default ""; }
    map $ingresskit_affinity $ingresskit_affinity_referenced { default ""; }
    map $ingresskit_ewma $ingresskit_ewma_referenced { default ""; }
    map $ingresskit_log $ingresskit_log_referenced { default ""; }
{{#if accessLogFormat}}
    # Referred to by ingresskit's own log format only: the router sets them whatever format is used.
    map $ingresskit_route $ingresskit_route_referenced { default ""; }
    map $ingresskit_backend $ingresskit_backend_referenced { default ""; }
{{/if}}
{{#each accessLogOrigin}}
    # Of the route's origin (the log format names it); set by the router.
    map "" \${{variable}} { default ""; }
{{/each}}
{{#if logsBackend}}
    # The canary backend when it served (the log format names it); set by the router.
    map "" $ingresskit_alternative_backend { default ""; }
    map $ingresskit_alternative_backend $ingresskit_alternative_backend_referenced { default ""; }
{{/if}}
    map $ingresskit_mirror $ingresskit_mirror_referenced { default ""; }
    # "1" when the canary serves a route with session affinity: its cookie is marked (affinity.lua).
    map "" $ingresskit_affinity_canary { default ""; }
    map $ingresskit_affinity_canary $ingresskit_affinity_canary_referenced { default ""; }
    map "" $ingresskit_error_backend { default ""; }
    map $ingresskit_error_backend $ingresskit_error_backend_referenced { default ""; }
    # The request id sent to error backends: the client's X-Request-ID, else nginx's own.
    map $http_x_request_id $ingresskit_request_id {
        "" $request_id;
        default $http_x_request_id;
    }
    # Host sent upstream: the client's, unless the route sets upstreamHost.
    map $ingresskit_host_override $ingresskit_upstream_host {
        "" $host;
        default $ingresskit_host_override;
    }
    # The listener (its port in the route table) a request came in on, by the port nginx bound;
    # evaluated only when a route needs it.
    map $server_port $ingresskit_listener {
        default "";
{{#each listeners}}
        {{bindPort}} {{port}};
{{/each}}
    }
    # WebSocket and other upgrades pass through; an empty Connection keeps upstream keep-alive.
    map $http_upgrade $connection_upgrade {
        default upgrade;
        "" "";
    }
    # The route's Connection header (connection-proxy-header), else the upgrade-aware one.
    map $ingresskit_connection_override $ingresskit_connection {
        "" $connection_upgrade;
        default $ingresskit_connection_override;
    }
{{#if upstreamHeaders.requestId}}
    # generate-request-id: the client's X-Request-ID, else nginx's own.
    grpc_set_header X-Request-ID $ingresskit_request_id;
{{/if}}
{{#each upstreamHeaders.hide}}
    proxy_hide_header {{q this}};
{{/each}}
{{#if realIp}}
    # The client address: when the peer is one of the trusted networks, the last address of the
    # header not in them (allowlists, limits and X-Real-IP see it).
    real_ip_header {{realIp.header}};
    real_ip_recursive on;
{{#each realIp.trustedNetworks}}
    set_real_ip_from {{this}};
{{/each}}
{{/if}}
{{#if anyProxyProtocol}}
    # As ingress-nginx: https when the PROXY line names port 443 (a load balancer in front ended TLS).
    map $proxy_protocol_server_port $ingresskit_scheme {
        "443" https;
        default $scheme;
    }
{{else}}
    map "" $ingresskit_scheme { default $scheme; }
{{/if}}
    # The Host the client sent, with its port, as ingress-nginx's X-Forwarded-Host.
    map $http_host $ingresskit_request_host {
        "" $host;
        default $http_host;
    }
{{#if forwardedHeaders}}
    # The proxies in front are trusted: their X-Forwarded-* pass on, the peer's when absent.
{{#if fullForwardedFor}}
    map $http_x_forwarded_for $ingresskit_forwarded_for {
        "" {{forwardedPeer}};
        default "$http_x_forwarded_for, {{forwardedPeer}}";
    }
{{else}}
    map "" $ingresskit_forwarded_for { default $remote_addr; }
{{/if}}
    # The first host of a list, as ingress-nginx.
    map $http_x_forwarded_host $ingresskit_forwarded_host {
        "" $ingresskit_request_host;
        "~^(?<ingresskit_first_forwarded_host>[^,]*)," $ingresskit_first_forwarded_host;
        default $http_x_forwarded_host;
    }
{{#if anyProxyProtocol}}
    map $proxy_protocol_server_port $ingresskit_peer_port {
        "" $server_port;
        default $proxy_protocol_server_port;
    }
{{else}}
    map "" $ingresskit_peer_port { default $server_port; }
{{/if}}
    map $http_x_forwarded_port $ingresskit_forwarded_port {
        "" $ingresskit_peer_port;
        default $http_x_forwarded_port;
    }
    map $http_x_forwarded_proto $ingresskit_forwarded_proto {
        "" $ingresskit_scheme;
        default $http_x_forwarded_proto;
    }
    # The scheme the router's HTTPS redirects go by, as ingress-nginx's: the one the proxies say.
    map "" $ingresskit_client_scheme { default $ingresskit_forwarded_proto; }
    grpc_set_header Host $ingresskit_upstream_host;
    grpc_set_header X-Real-IP $remote_addr;
    grpc_set_header X-Forwarded-For $ingresskit_forwarded_for;
    grpc_set_header X-Forwarded-Proto $ingresskit_forwarded_proto;
    grpc_set_header X-Forwarded-Scheme $ingresskit_forwarded_proto;
{{else}}
    # As ingress-nginx without use-forwarded-headers: the client's own X-Forwarded-For is not passed
    # on, so a backend never reads an address the client made up.
{{#if anyProxyProtocol}}
    # Behind the ssl-passthrough proxy the port the client used is the one its PROXY line names.
    map $proxy_protocol_server_port $ingresskit_forwarded_port {
        "" $server_port;
        default $proxy_protocol_server_port;
    }
{{else}}
    map "" $ingresskit_forwarded_port { default $server_port; }
{{/if}}
    map "" $ingresskit_client_scheme { default $ingresskit_scheme; }
    grpc_set_header Host $ingresskit_upstream_host;
    grpc_set_header X-Real-IP $remote_addr;
    grpc_set_header X-Forwarded-For $remote_addr;
    grpc_set_header X-Forwarded-Proto $ingresskit_scheme;
    grpc_set_header X-Forwarded-Scheme $ingresskit_scheme;
{{/if}}
{{> upstreamHeaders}}
{{#if resolvers.length}}
    resolver{{#each resolvers}} {{q this}}{{/each}} valid=30s;
{{/if}}

    ssl_protocols {{sslProtocols}};
{{#if sslCiphers}}
    ssl_ciphers {{q sslCiphers}};
    ssl_prefer_server_ciphers on;
{{else}}
    ssl_prefer_server_ciphers off;
{{/if}}
{{#if sslEcdhCurve}}
    ssl_ecdh_curve {{q sslEcdhCurve}};
{{/if}}
{{#if sslDhParam}}
    ssl_dhparam {{q sslDhParam}};
{{/if}}
{{#if http.sslSessionCache}}
    ssl_session_cache shared:ingresskit_ssl:{{http.sslSessionCache.size}};
    ssl_session_timeout {{http.sslSessionCache.timeout}};
{{else}}
    ssl_session_cache off;
{{/if}}
    ssl_session_tickets {{http.sslSessionTickets}};
{{#if http.sslSessionTicketKey}}
    ssl_session_ticket_key {{q http.sslSessionTicketKey}};
{{/if}}
    ssl_buffer_size {{http.sslBufferSize}};

    lua_package_path {{qLiteral luaPackagePath}};
    lua_shared_dict ingresskit {{sharedDictSize}};
    # Per-client limit counts; when full, the least recently used clients are forgotten.
    lua_shared_dict ingresskit_limits 10m;
    # Answers of external auth services kept by auth-cache-key; the oldest go first when full.
    lua_shared_dict ingresskit_auth_cache 10m;
{{#if requestMetrics}}
    # Request counts (ingress-nginx's request metrics), at most a number of series per namespace;
    # when full, new series are not counted and none is ever forgotten.
    lua_shared_dict ingresskit_metrics {{#if requestCounting}}{{requestCounting.dictSize}}{{else}}16m{{/if}};
    log_by_lua_block {
        ingresskit_count_request()
    }
{{/if}}
    lua_regex_cache_max_entries {{regexCacheEntries}};
    lua_regex_match_limit {{regexMatchLimit}};
    init_by_lua_block {
        -- The per-request hooks call these globals: cheaper than a require on every request.
        ingresskit_route = require("ingresskit.router").route
        ingresskit_balance = require("ingresskit.balancer").balance
        ingresskit_balance_mirror = require("ingresskit.balancer").balance_mirror
        ingresskit_balance_error = require("ingresskit.balancer").balance_error
        ingresskit_custom_error = require("ingresskit.custom_errors").take
        ingresskit_after_request = require("ingresskit.router").after_request
        ingresskit_filter_response = require("ingresskit.router").filter_response_headers
        ingresskit_read_body = require("ingresskit.router").read_body
        ingresskit_hop = require("ingresskit.hop").enter
        ingresskit_hop_filter = require("ingresskit.hop").filter
        ingresskit_hop_after = require("ingresskit.hop").after_request
        ingresskit_hop_restore = require("ingresskit.hop").restore
{{#if requestMetrics}}
        ingresskit_count_request = require("ingresskit.request_metrics").record
{{/if}}
{{#if requestCounting}}
        require("ingresskit.request_metrics").configure({
            buckets = {
                time = { {{requestCounting.time}} },
                length = { {{requestCounting.length}} },
                size = { {{requestCounting.size}} },
            },
            per_host = {{#if requestCounting.perHost}}true{{else}}false{{/if}},
            per_undefined_host = {{#if requestCounting.perUndefinedHost}}true{{else}}false{{/if}},
            series_per_namespace = {{requestCounting.seriesPerNamespace}},
            excluded = {
{{#each requestCounting.excluded}}
                {{this}} = true,
{{/each}}
            },
        })
{{/if}}
        require("ingresskit.control").init({
            conf_hash = "{{configHash}}",
            default_max_body = {{defaultMaxBody}},
            profile_classes = {
                header_buffers = { {{#each profileClasses.headerBuffers}}[{{this}}] = true, {{/each}} },
                retry_sets = { {{#each profileClasses.retrySets}}[{{this}}] = true, {{/each}} },
                defaults = { {{#each profileClasses.defaults}}{{this}} = true, {{/each}} },
                in_place = "{{profileClasses.defaults.[0]}}",
            },
            local_auth_peers = {{#if localAuthPeers}}true{{else}}false{{/if}},
{{#if authPeerRules}}
            refused_peers = {
{{#each authPeerRules.refused}}
                { "{{hex}}", {{bits}} },
{{/each}}
            },
            own_peers = {
{{#each authPeerRules.own}}
                { "{{hex}}", {{bits}} },
{{/each}}
            },
            own_ports = {
{{#each authPeerRules.ownPorts}}
                [{{this}}] = true,
{{/each}}
            },
{{/if}}
            bind_ports = {
{{#each listeners}}
                [{{bindPort}}] = true,
{{/each}}
            },
            listeners = {
{{#each listeners}}
                [{{port}}] = "{{protocol}}",
{{/each}}
            },
            request_metrics = {{#if requestMetrics}}true{{else}}false{{/if}},
            regex_matches = {{regexMatchesPerRequest}},
{{#if logsBackend}}
            log_backend = true,
{{/if}}
{{#if accessLogOrigin.length}}
            log_origin = {
{{#each accessLogOrigin}}
                [{{index}}] = "{{variable}}",
{{/each}}
            },
{{/if}}
        })
    }
    init_worker_by_lua_block {
        require("ingresskit.store").init_worker()
{{#if requestMetrics}}
        require("ingresskit.request_metrics").init_worker()
{{/if}}
    }

    upstream ingresskit_upstream {
        # Placeholder only: the Lua balancer chooses every peer.
        server 0.0.0.1;
        balancer_by_lua_block {
            ingresskit_balance()
        }
{{#if keepalive}}
        keepalive {{keepalive.connections}};
{{#if keepalive.timeSeconds}}
        keepalive_time {{keepalive.timeSeconds}}s;
{{/if}}
        keepalive_timeout {{keepalive.timeoutSeconds}}s;
        keepalive_requests {{keepalive.requests}};
{{/if}}
    }

    # The hop server of routes with custom error pages (see the hop location).
    upstream ingresskit_hop {
        server {{q hopListen}};
        keepalive 64;
    }

    # The backends of mirrored copies: the balancer reads $ingresskit_mirror.
    upstream ingresskit_mirror {
        server 0.0.0.1;
        balancer_by_lua_block {
            ingresskit_balance_mirror()
        }
    }

    # The error backends of custom error pages: the balancer reads $ingresskit_error_backend.
    upstream ingresskit_error {
        server 0.0.0.1;
        balancer_by_lua_block {
            ingresskit_balance_error()
        }
    }

    # The control endpoint: a unix socket only, so no route, client or tenant can reach it.
    server {
        listen {{q controlListen}};
        access_log off;
        client_max_body_size {{sharedDictSize}};
        client_body_buffer_size {{sharedDictSize}};
        location = /configuration/data {
            content_by_lua_block {
                require("ingresskit.control").handle_data()
            }
        }
        location = /configuration/status {
            content_by_lua_block {
                require("ingresskit.control").handle_status()
            }
        }
        location = /configuration/digest {
            content_by_lua_block {
                require("ingresskit.control").handle_digest()
            }
        }
{{#if requestMetrics}}
        location = /metrics/requests {
            content_by_lua_block {
                require("ingresskit.request_metrics").handle()
            }
        }
        # nginx's connection and request counters, for the nginx_process_* metrics.
        location = /metrics/nginx {
            stub_status;
        }
{{/if}}
        location / {
            return 404;
        }
    }
    # External authentication (auth-url). The router asks here with a plain HTTP/1.1 request over
    # a cosocket (subrequests are refused on HTTP/2), on a unix socket no client or route can
    # reach. Its rewrite takes the service's URL, Host and method out of the request as data; the
    # client's headers go along (oauth2-proxy reads its cookie), a body never does. nginx resolves
    # and connects, and tells the router which address answered.
    server {
        listen {{q authListen}};
        access_log off;
        location = /check {
            rewrite_by_lua_block {
                require("ingresskit.external_auth").take_target()
            }
            proxy_method $ingresskit_auth_method;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header Host $ingresskit_auth_host;
            proxy_set_header X-Forwarded-Proto "";
            proxy_ssl_server_name on;
            proxy_ssl_name $ingresskit_auth_host;
            proxy_pass $ingresskit_auth_url;
            header_filter_by_lua_block {
                ngx.header["X-Ingresskit-Auth-Peer"] = ngx.var.upstream_addr or ""
            }
        }
        location / {
            return 404;
        }
    }
{{#each listeners}}

{{> server}}
{{/each}}

{{> hopServer}}
}
{{#if streams.length}}

# TCP and UDP services (--tcp-services-configmap, --udp-services-configmap): a server per port
# and an upstream of the Service's ready endpoints. There is no Lua in stream, so a change of the
# ports or of the endpoints is a reload. Each server names its Service in $proxy_upstream_name
# (for log-format-stream), as ingress-nginx does.
stream {
    proxy_connect_timeout {{connectTimeout}}s;
    # proxy-stream-timeout and proxy-stream-next-upstream*, as ingress-nginx sets them per server.
    proxy_timeout {{streamProxy.timeout}};
    proxy_next_upstream {{streamProxy.nextUpstream}};
    proxy_next_upstream_timeout {{streamProxy.nextUpstreamTimeout}};
    proxy_next_upstream_tries {{streamProxy.nextUpstreamTries}};
{{#if streamLog}}
    # A line per connection (log-format-stream), while the HTTP access log is on.
{{#if streamLog.format}}
    log_format ingresskit_stream {{qLiteral streamLog.format}};
{{else}}
    log_format ingresskit_stream '[$remote_addr] [$time_local] $protocol $status $bytes_sent $bytes_received $session_time';
{{/if}}
    access_log {{q streamLog.path}} ingresskit_stream{{#each streamLog.params}} {{this}}{{/each}};
{{/if}}
{{#each streams}}

    upstream {{upstream}} {
{{#each servers}}
        server {{q this}};
{{else}}
        # No ready endpoint: connections are closed at once.
        server 127.0.0.1:1 down;
{{/each}}
    }
    server {
{{#each listen}}
        listen {{q this}}{{#if ../udp}} udp{{/if}}{{#if ../decode}} proxy_protocol{{/if}};
{{/each}}
        set $proxy_upstream_name {{q upstreamName}};
        proxy_pass {{upstream}};
{{#if udp}}
        proxy_responses {{../streamProxy.responses}};
{{/if}}
{{#if encode}}
        proxy_protocol on;
{{/if}}
    }
{{/each}}
}
{{/if}}
`;

/**
 * The http-level directives of the operator's tuning (see http-settings.ts), rendered with its
 * view as context: header buffers and timeouts, HTTP/2 streams, header name handling, hash sizes.
 * Each is written only when set but for the hash sizes ingress-nginx raises above nginx's.
 */
export const HTTP_SETTINGS_PARTIAL = `{{#if clientHeaderBufferSize}}
    client_header_buffer_size {{clientHeaderBufferSize}};
{{/if}}
{{#if largeClientHeaderBuffers}}
    large_client_header_buffers {{largeClientHeaderBuffers}};
{{/if}}
{{#if clientHeaderTimeout}}
    client_header_timeout {{clientHeaderTimeout}}s;
{{/if}}
{{#if clientBodyTimeout}}
    client_body_timeout {{clientBodyTimeout}}s;
{{/if}}
{{#if http2MaxConcurrentStreams}}
    http2_max_concurrent_streams {{http2MaxConcurrentStreams}};
{{/if}}
{{#if underscoresInHeaders}}
    underscores_in_headers on;
{{/if}}
{{#unless ignoreInvalidHeaders}}
    ignore_invalid_headers off;
{{/unless}}
    server_names_hash_max_size {{serverNamesHashMaxSize}};
{{#if serverNamesHashBucketSize}}
    server_names_hash_bucket_size {{serverNamesHashBucketSize}};
{{/if}}
{{#if mapHashBucketSize}}
    map_hash_bucket_size {{mapHashBucketSize}};
{{/if}}
{{#if proxyHeadersHashMaxSize}}
    proxy_headers_hash_max_size {{proxyHeadersHashMaxSize}};
{{/if}}
{{#if proxyHeadersHashBucketSize}}
    proxy_headers_hash_bucket_size {{proxyHeadersHashBucketSize}};
{{/if}}
    variables_hash_bucket_size {{variablesHashBucketSize}};
    variables_hash_max_size {{variablesHashMaxSize}};
`;
