/**
 * The nginx.conf template (handlebars). Every directive name is written here and nowhere else;
 * every value goes through a quoting helper (`q`, `qLiteral`, `qReplacement`) or is a number the
 * renderer produced. Kept in a module rather than a file so the package reads nothing at run time.
 */

/** One location block; a partial so the catch-all and host servers share it. */
export const LOCATION_PARTIAL = `        location {{#if modifier}}{{modifier}} {{/if}}{{#if isRegex}}{{qLiteral path}}{{else}}{{q path}}{{/if}} {
{{#if source}}
            # {{source}}
{{/if}}
{{#if backend}}
            set $ingresskit_backend {{q backend}};
{{/if}}
{{#if external}}
            set $ingresskit_external {{q external}};
{{/if}}
{{#if upstreamVhost}}
            set $ingresskit_vhost {{q upstreamVhost}};
{{/if}}
{{#if sslRedirect}}
            if ($scheme = "http") {
                return 308 https://$host{{#if @root.redirectPort}}:{{@root.redirectPort}}{{/if}}$request_uri;
            }
{{/if}}
{{#if rewrite}}
            rewrite {{qLiteral rewrite.pattern}} {{qReplacement rewrite.replacement}} break;
{{/if}}
{{#each allow}}
            allow {{q this}};
{{/each}}
{{#if allow.length}}
            deny all;
{{/if}}
{{#if bodySize}}
            client_max_body_size {{q bodySize}};
{{/if}}
{{#if connectTimeout}}
            {{timeoutPrefix}}_connect_timeout {{connectTimeout}}s;
{{/if}}
{{#if readTimeout}}
            {{timeoutPrefix}}_read_timeout {{readTimeout}}s;
{{/if}}
{{#if sendTimeout}}
            {{timeoutPrefix}}_send_timeout {{sendTimeout}}s;
{{/if}}
{{#if status}}
            return {{status}};
{{else if isGrpc}}
            grpc_pass grpc://{{#if external}}$ingresskit_external{{else}}ingresskit_backends{{/if}};
{{else}}
            proxy_pass {{scheme}}://{{#if external}}$ingresskit_external{{else}}ingresskit_backends{{/if}};
{{/if}}
        }
`;

/**
 * One server block. The balancer's access handler sits here, not at http level, so that it never
 * runs in the local configuration server, which sets no `$ingresskit_backend` (nginx would warn
 * about an uninitialized variable on every request there). `uninitialized_variable_warn off`: a
 * request refused before the rewrite phase (400, 414, ...) is logged before the `set`s ran, and
 * the access log's `$ingresskit_backend` would make every such request from any client a warning.
 */
export const SERVER_PARTIAL = `    server {
{{#each listen}}
        listen {{q address}}{{#if ssl}} ssl http2{{/if}}{{#if defaultServer}} default_server{{/if}};
{{/each}}
        server_name {{#if isRegexName}}{{qLiteral serverName}}{{else}}{{q serverName}}{{/if}};
{{#if rejectHandshake}}
        ssl_reject_handshake on;
{{/if}}
{{#if certificate}}
        ssl_certificate {{q certificate}};
        ssl_certificate_key {{q certificate}};
{{/if}}
        uninitialized_variable_warn off;
        set $ingresskit_backend "";
        set $ingresskit_vhost "";
        set $ingresskit_external "";
        access_by_lua_block {
            require("ingresskit.balancer").access()
        }
{{#each locations}}
{{> location}}
{{/each}}
    }
`;

/** The whole nginx.conf. */
export const NGINX_CONF_TEMPLATE = `# nginx.conf rendered by @ingresskit/nginx-template; do not edit.
# configuration checksum: {{checksum}}
{{#each modules}}
load_module {{q this}};
{{/each}}
pid {{q pid}};
error_log {{q errorLog}} {{errorLogLevel}};
worker_processes {{workerProcesses}};
worker_shutdown_timeout {{workerShutdownTimeout}}s;
pcre_jit on;

events {
    worker_connections {{workerConnections}};
}

http {
    default_type application/octet-stream;
    server_tokens off;
    keepalive_timeout 75s;
    server_names_hash_max_size {{serverNamesHashMaxSize}};
    server_names_hash_bucket_size {{serverNamesHashBucketSize}};

    client_body_temp_path {{q tempPaths.clientBody}};
    proxy_temp_path {{q tempPaths.proxy}};
    fastcgi_temp_path {{q tempPaths.fastcgi}};
    uwsgi_temp_path {{q tempPaths.uwsgi}};
    scgi_temp_path {{q tempPaths.scgi}};

    log_format ingresskit '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time "$ingresskit_backend" $upstream_addr $upstream_status';
{{#if accessLog}}
    access_log {{q accessLog}} ingresskit;
{{else}}
    access_log off;
{{/if}}

    client_max_body_size {{q bodySize}};
    proxy_connect_timeout {{connectTimeout}}s;
    proxy_read_timeout {{readTimeout}}s;
    proxy_send_timeout {{sendTimeout}}s;
    grpc_connect_timeout {{connectTimeout}}s;
    grpc_read_timeout {{readTimeout}}s;
    grpc_send_timeout {{sendTimeout}}s;
    proxy_http_version 1.1;
    proxy_buffering on;
    proxy_redirect off;

    # Host sent upstream: the client's, unless a location sets upstream-vhost.
    map $ingresskit_vhost $ingresskit_upstream_host {
        "" $host;
        default $ingresskit_vhost;
    }
    proxy_set_header Host $ingresskit_upstream_host;
    proxy_set_header Connection "";
    proxy_set_header X-Real-IP $remote_addr;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Host $host;
    proxy_set_header X-Forwarded-Port $server_port;
    proxy_set_header X-Forwarded-Proto $scheme;
    grpc_set_header Host $ingresskit_upstream_host;
    grpc_set_header X-Real-IP $remote_addr;
    grpc_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    grpc_set_header X-Forwarded-Proto $scheme;
{{#if resolvers.length}}
    resolver{{#each resolvers}} {{q this}}{{/each}} valid=30s;
{{/if}}

    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_prefer_server_ciphers off;
    ssl_session_cache shared:ingresskit_ssl:10m;
    ssl_session_timeout 1h;

    lua_package_path {{qLiteral luaPackagePath}};
    lua_shared_dict ingresskit_configuration {{sharedDictSize}};
    init_by_lua_block {
        require("ingresskit.configuration").init("{{checksum}}")
        require("ingresskit.balancer")
    }

    upstream ingresskit_backends {
        # Placeholder only: the Lua balancer chooses every peer.
        server 0.0.0.1;
        balancer_by_lua_block {
            require("ingresskit.balancer").balance()
        }
{{#if keepalive}}
        keepalive {{keepalive.connections}};
        keepalive_timeout {{keepalive.timeout}}s;
        keepalive_requests {{keepalive.requests}};
{{/if}}
    }

    # Local-only configuration endpoint: the controller posts backends here.
    server {
        listen {{q statusListen}};
        server_name "_";
        access_log off;
        allow 127.0.0.1;
        allow ::1;
        deny all;
        location = /configuration/backends {
            client_max_body_size {{sharedDictSize}};
            client_body_buffer_size {{sharedDictSize}};
            content_by_lua_block {
                require("ingresskit.configuration").handle_backends()
            }
        }
        location = /configuration/status {
            content_by_lua_block {
                require("ingresskit.configuration").handle_status()
            }
        }
        location = /healthz {
            return 200 "ok";
        }
        location / {
            return 404;
        }
    }

{{#with defaultServer}}
{{> server}}
{{/with}}
{{#each servers}}

{{> server}}
{{/each}}
}
`;
