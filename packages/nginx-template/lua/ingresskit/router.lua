-- The router: rewrite_by_lua of every listener's `location /`.
--
-- It decides exactly as route-model's selectRoute: the virtual hosts covering the request's host
-- are tried from the most specific (the host, then `*.` dropping one label at a time, then `*`);
-- in each, the first route in precedence order whose path, method, headers, query and listeners
-- match wins, else the host's fallback route; a host without one passes the request on. Then the
-- route's policy applies (HTTPS redirect, source allowlist, body limit, path rewrite, headers,
-- upstream Host, per-client limits) and its action: forward, redirect or respond. Nothing routed: 404. Nothing
-- pushed yet: 503.
--
-- A forwarded request to a plain-HTTP backend whose body is known to fit is proxied right here
-- (location / has the proxy_pass); anything else goes by ngx.exec to the named location of the
-- route's profile. ngx.ctx does not survive ngx.exec, so what later phases need travels in nginx
-- variables: $ingresskit_route (the log, the response header filter, the balancer),
-- $ingresskit_backend (the member a split chose, or any backend when the log format names it;
-- then also $ingresskit_alternative_backend, the canary's), the route's origin fields the log
-- format names ($ingresskit_namespace, ...), $ingresskit_external,
-- $ingresskit_external_host, $ingresskit_host_override.

local store = require("ingresskit.store")
local networks = require("ingresskit.networks")
local limits = require("ingresskit.limits")
local global_limits = require("ingresskit.global_limits")
local basic_auth = require("ingresskit.basic_auth")
local digest_auth = require("ingresskit.digest_auth")
local external_auth = require("ingresskit.external_auth")
local client_certificates = require("ingresskit.client_certificates")
local affinity = require("ingresskit.affinity")
local canary_affinity = require("ingresskit.canary_affinity")
local response_rewrites = require("ingresskit.response_rewrites")
local endpoints = require("ingresskit.endpoints")
local relay_address = require("ingresskit.relay").address
local request_metrics = require("ingresskit.request_metrics")

local ngx = ngx
local ngx_var = ngx.var
local ngx_exit = ngx.exit
local ngx_exec = ngx.exec
local ngx_header = ngx.header
local re_find = ngx.re.find
local re_match = ngx.re.match
local re_sub = ngx.re.sub
local req = ngx.req
local ipairs = ipairs
local pairs = pairs
local type = type
local tonumber = tonumber
local rawget = rawget
local math_random = math.random
local str_byte = string.byte
local str_sub = string.sub
local str_find = string.find
local str_lower = string.lower
local table_concat = table.concat
local contains_client = networks.contains_client
local is_covered = store.is_covered
local admit = limits.admit

local hosts = store.hosts
local tls = store.tls
local backends = store.backends
local listener_names = store.listener_names
local routes_by_id = store.routes_by_id
local conf = store.conf

local _M = {}

-- Per-request lookups made only when a route needs them. route() yields only to ask an external
-- auth service or a global rate limit's memcached, after which it resets them (see authenticate
-- and forward); each request resets them first.
local request_headers, request_args, request_method, listener_port, listener_port_loaded, request_path
-- Whether the source lists refused this request (only kept going under satisfy any).
local source_refused

-- Every nginx variable read costs (a name lookup and a new Lua string), so even the path is read
-- only once something depends on it.
local function get_path()
  if request_path == nil then request_path = ngx_var.uri end
  return request_path
end

local function get_listener_port()
  if not listener_port_loaded then
    listener_port = ngx_var.ingresskit_listener
    listener_port_loaded = true
  end
  return listener_port
end

local function is_tls_listener()
  return conf.listeners[get_listener_port()] == "HTTPS"
end

local function on_listener(route)
  local set = route.listener_set
  if set == nil then return true end
  local name = listener_names[get_listener_port()]
  return name ~= nil and set[name] == true
end

-- A header sent more than once counts as its values joined with "," (route-model's rule).
local function header_value(name)
  if request_headers == nil then request_headers = req.get_headers(0) end
  local value = rawget(request_headers, name)
  if type(value) == "table" then return table_concat(value, ",") end
  return value
end

-- The first value of a query parameter; `?a` (no `=`) counts as the empty string.
local function query_value(name)
  if request_args == nil then request_args = req.get_uri_args(0) end
  local value = request_args[name]
  if type(value) == "table" then value = value[1] end
  if value == true then return "" end
  return value
end

-- The regex matches this request may still run while it is routed (conf.regex_matches to start
-- with): every one may take lua_regex_match_limit steps, and a request crossing several virtual
-- hosts (a host, then wildcards) must not multiply that without bound. Once spent, regex paths
-- and conditions do not match, as a match past the step limit does not.
local regex_left = 0

local function condition_holds(condition, value)
  if value == nil then return false end
  if condition[2] == "exact" then return value == condition[3] end
  if regex_left <= 0 then return false end
  regex_left = regex_left - 1
  return re_find(value, condition[3], "jo") ~= nil
end

local function conditions_hold(route)
  if not on_listener(route) then return false end
  if not route.has_conditions then return true end
  if route.method then
    if request_method == nil then request_method = req.get_method() end
    if route.method ~= request_method then return false end
  end
  if route.headers then
    for _, condition in ipairs(route.headers) do
      if not condition_holds(condition, header_value(condition[1])) then return false end
    end
  end
  if route.query then
    for _, condition in ipairs(route.query) do
      if not condition_holds(condition, query_value(condition[1])) then return false end
    end
  end
  return true
end

-- LuaJIT aborts a trace that enters a loop it did not start in, and blacklists code that keeps
-- doing so; the request path then runs interpreted. So the common case (one route per path, one
-- prefix length, no regex) is handled before any loop is entered, and loops run only for more.

-- The first route of `list` (indexes into `routes`, ascending) below `limit` whose conditions hold.
local function first_of(routes, list, limit)
  local index = list[1]
  if index >= limit then return nil end
  if conditions_hold(routes[index]) then return index end
  local count = #list
  if count == 1 then return nil end
  for position = 2, count do
    index = list[position]
    if index >= limit then return nil end
    if conditions_hold(routes[index]) then return index end
  end
  return nil
end

-- The regex routes come in groups matched with one PCRE match each (src/regex-groups.ts): the
-- one marker capture set names the first route of the group whose path matches. Only the last
-- route of a group can have other conditions; when they fail, the next group goes on.
local function first_regex(routes, groups, path, limit)
  for position = 1, #groups do
    local group = groups[position]
    local members = group.routes
    if members[1] >= limit or regex_left <= 0 then return nil end
    regex_left = regex_left - 1
    local captures = re_match(path, group.pattern, "jo")
    if captures then
      local markers = group.markers
      for k = 1, #markers do
        if captures[markers[k]] then
          local index = members[k]
          if index >= limit then return nil end
          if conditions_hold(routes[index]) then return index end
          break
        end
      end
    end
  end
  return nil
end

-- PathPrefix, element-wise: a prefix P matches when the path is P or continues with "/" after
-- it, and "/" matches every path. The path is cut only at the lengths the host has prefixes of,
-- so it is cut at most once per distinct length and never matched with a regex.
local function first_prefix_of_length(routes, prefixes, path, path_length, length, limit)
  local found, candidate, list
  if length == path_length then
    candidate = path
  elseif length < path_length and str_byte(path, length + 1) == 47 then
    candidate = str_sub(path, 1, length)
  end
  if candidate then
    list = prefixes[candidate]
    if list then found = first_of(routes, list, limit) end
  end
  if length == 1 and candidate ~= "/" then
    list = prefixes["/"]
    if list then found = first_of(routes, list, found or limit) or found end
  end
  return found
end

-- The lowest index of a route whose match the request satisfies, or nil. Exact paths, regexes,
-- then prefixes longest first; a host whose routes are in that (precedence) order can stop at
-- the first match, any other takes the lowest index found.
local function find_route(entry)
  -- A first route matching every path (PathPrefix "/" without conditions) always wins.
  if entry.first_matches_all then return 1 end
  local path = get_path()
  local routes = entry.routes
  local best = #routes + 1
  local ordered = entry.ordered
  local list = entry.exact[path]
  if list then
    local found = first_of(routes, list, best)
    if found then
      if ordered then return found end
      best = found
    end
  end
  local regex = entry.regex
  if regex[1] ~= nil then
    local found = first_regex(routes, regex, path, best)
    if found then
      if ordered then return found end
      best = found
    end
  end
  local lengths = entry.prefix_lengths
  local count = #lengths
  if count > 0 then
    local prefixes = entry.prefix
    local path_length = #path
    local found = first_prefix_of_length(routes, prefixes, path, path_length, lengths[1], best)
    if found then
      if ordered then return found end
      best = found
    end
    if count > 1 then
      for position = 2, count do
        found = first_prefix_of_length(routes, prefixes, path, path_length, lengths[position], best)
        if found then
          if ordered then return found end
          best = found
        end
      end
    end
  end
  if best <= #routes then return best end
  return nil
end

local function select_in(name, host)
  local entry = hosts[name]
  if entry == nil or not is_covered(name, entry.match, host) then return nil end
  local index = find_route(entry)
  if index then return entry.routes[index] end
  local fallback = entry.fallback
  if fallback and on_listener(fallback) then return fallback end
  return nil
end

-- The route for (host, path), trying virtual hosts in route-model's hostnameCandidates order,
-- and the hostname of the virtual host that answered.
local function select_route(host)
  local route = select_in(host, host)
  if route then return route, host end
  local dot = str_find(host, ".", 1, true)
  -- The one-label wildcard first, outside the loop (see first_of).
  if dot then
    local name = "*" .. str_sub(host, dot)
    route = select_in(name, host)
    if route then return route, name end
    dot = str_find(host, ".", dot + 1, true)
    while dot do
      name = "*" .. str_sub(host, dot)
      route = select_in(name, host)
      if route then return route, name end
      dot = str_find(host, ".", dot + 1, true)
    end
  end
  route = select_in("*", host)
  if route then return route, "*" end
  return nil
end

-- The Access-Control-Allow-Origin a request gets under a CORS policy, or nil when its Origin is
-- not allowed: "*" for a policy allowing every origin (ingress-nginx sends it to every request),
-- or the request's own Origin when the policy asks for it (Gateway API with credentials).
local function cors_origin(cors)
  local origin = ngx_var.http_origin
  if cors.origin == nil then
    if cors.echoOrigin and origin ~= nil then return origin end
    return "*"
  end
  if origin ~= nil and re_find(origin, cors.origin, "joi") then return origin end
  return nil
end

-- A header sent only to a request that asks (its `asked` header is present): the configured
-- value, or with `true` the request's own.
local function answer_asked(name, value, asked)
  if value == nil or asked == nil then return end
  ngx_header[name] = value == true and asked or value
end

local function apply_cors_headers(cors)
  local origin = cors_origin(cors)
  if origin == nil then return false end
  ngx_header["Access-Control-Allow-Origin"] = origin
  local headers = cors.headers
  for index = 1, #headers do
    local pair = headers[index]
    ngx_header[pair[1]] = pair[2]
  end
  answer_asked("Access-Control-Allow-Methods", cors.methods, ngx_var.http_access_control_request_method)
  answer_asked("Access-Control-Allow-Headers", cors.allowHeaders, ngx_var.http_access_control_request_headers)
  return true
end

local function apply_response_headers(modifier)
  if modifier.remove then
    for _, name in ipairs(modifier.remove) do ngx_header[name] = nil end
  end
  if modifier.set then
    for _, pair in ipairs(modifier.set) do ngx_header[pair[1]] = pair[2] end
  end
  if modifier.add then
    for _, pair in ipairs(modifier.add) do
      local current = ngx_header[pair[1]]
      if current == nil then
        ngx_header[pair[1]] = pair[2]
      elseif type(current) == "table" then
        current[#current + 1] = pair[2]
        ngx_header[pair[1]] = current
      else
        ngx_header[pair[1]] = { current, pair[2] }
      end
    end
  end
end

local function apply_request_headers(modifier)
  if modifier.remove then
    for _, name in ipairs(modifier.remove) do req.clear_header(name) end
  end
  if modifier.set then
    for _, pair in ipairs(modifier.set) do req.set_header(pair[1], pair[2]) end
  end
  if modifier.add then
    for _, pair in ipairs(modifier.add) do
      local current = req.get_headers(0)[str_lower(pair[1])]
      if current == nil then
        req.set_header(pair[1], pair[2])
      elseif type(current) == "table" then
        current[#current + 1] = pair[2]
        req.set_header(pair[1], current)
      else
        req.set_header(pair[1], { current, pair[2] })
      end
    end
  end
end

-- route-model's modifyPath for a compiled change.
local function change_path(change, path)
  if change.type == "full" then return change.value end
  local result = change.value .. str_sub(path, change.strip + 1)
  if result == "" then return "/" end
  return result
end

local function rewrite_path(change, path)
  local result
  if change.type == "regex" then
    local replaced, count, err = re_sub(path, change.pattern, change.replacement, "jo")
    if not replaced then
      ngx.log(ngx.ERR, "ingresskit: rewrite of ", store.escape(path), " failed: ", err)
      return false
    end
    if count == 0 then return true end
    result = replaced
  else
    result = change_path(change, path)
  end
  if str_byte(result, 1) ~= 47 then result = "/" .. result end
  req.set_uri(result, false)
  return true
end

local function redirect(route, action)
  local scheme = action.scheme or (is_tls_listener() and "https" or "http")
  local hostname = action.hostname or ngx_var.host
  local port = action.port
  if port == nil and action.scheme == nil then port = tonumber(get_listener_port()) end
  if (scheme == "http" and port == 80) or (scheme == "https" and port == 443) then port = nil end
  local target
  if action.path then
    target = ngx.escape_uri(change_path(action.path, get_path()), 0)
  else
    local request_uri = ngx_var.request_uri
    local question = str_find(request_uri, "?", 1, true)
    target = question and str_sub(request_uri, 1, question - 1) or request_uri
  end
  local args = action.query or ngx_var.args
  if args and args ~= "" then target = target .. "?" .. args end
  if str_find(hostname, ":", 1, true) and str_byte(hostname, 1) ~= 91 then hostname = "[" .. hostname .. "]" end
  local location = scheme .. "://" .. hostname .. (port and (":" .. port) or "") .. target
  local policy = route.policy
  if policy and policy.response then apply_response_headers(policy.response) end
  if policy and policy.cors then apply_cors_headers(policy.cors) end
  return ngx.redirect(location, action.status)
end

local function respond(route, action)
  local policy = route.policy
  local body = action.body or ""
  ngx.status = action.status
  ngx_header["Content-Type"] = "text/plain; charset=utf-8"
  ngx_header["Content-Length"] = #body
  if policy and policy.response then apply_response_headers(policy.response) end
  if policy and policy.cors then apply_cors_headers(policy.cors) end
  if body ~= "" then ngx.print(body) else ngx.send_headers() end
  return ngx_exit(ngx.HTTP_OK)
end

-- A member of a weighted group (an action or its canary) at random by weight.
local function pick_member(action)
  local members = action.members
  local count = #members
  if count == 1 then return members[1] end
  if count == 0 then return nil end
  local point = math_random() * action.total
  for index = 1, count do
    local member = members[index]
    if point < member.upto then return member end
  end
  return members[count]
end

-- Methods whose HTTP/2 requests may carry a body without Content-Length (a GET or HEAD with a
-- body has no meaning nginx or a backend gives it).
local BODY_METHODS = { POST = true, PUT = true, PATCH = true, DELETE = true, OPTIONS = true }

-- Bodies of unknown length: chunked on HTTP/1.1; on HTTP/2 and later, a request that may have a
-- body and did not say its length.
local function has_unknown_length_body()
  if ngx_var.http_transfer_encoding ~= nil then return true end
  return req.http_version() >= 2 and BODY_METHODS[req.get_method()] == true
end

-- Basic or digest and external authentication of a forwarded request: the status to end it
-- with, or nil. Under satisfy any, a client the source lists admit needs neither, and either one
-- suffices.
local function authenticate(route, policy)
  local any = policy.satisfyAny
  if any and not source_refused then return nil end
  local basic, digest, external = policy.auth, policy.digest, policy.extAuth
  if basic then
    if basic_auth.is_authenticated(basic) then
      if any then return nil end
    elseif not (any and external) then
      ngx_header["WWW-Authenticate"] = basic_auth.challenge(basic)
      return 401
    end
  end
  if digest then
    local verdict = digest_auth.check(digest)
    if verdict == "ok" then
      if any then return nil end
    elseif not (any and external) then
      ngx_header["WWW-Authenticate"] = digest_auth.challenge(digest, verdict == "stale")
      return 401
    end
  end
  if external == nil then return nil end
  local status = external_auth.check(external, route.tag)
  -- Asking yielded: other requests ran meanwhile and reused the module's scratch lookups.
  request_headers, request_args, request_method, listener_port, listener_port_loaded, request_path =
    nil, nil, nil, nil, false, nil
  return status
end

-- A forwarded request after its limits: the status to end it with, or nil and the location to
-- exec into (nil and nil: location / proxies it in place).
local function dispatch(route, action, body_of_unknown_length)
  -- ingress-nginx authenticates in nginx's access phase, after the limits (preaccess).
  local policy = route.policy
  if policy and (policy.auth or policy.digest or policy.extAuth) then
    local status = authenticate(route, policy)
    if status then return status end
    -- ingress-nginx's basic and digest locations set `proxy_set_header Authorization ""`: the
    -- backend never sees the client's credentials.
    if policy.auth or policy.digest then req.clear_header("Authorization") end
  end
  local canary = action.canary
  local sticky = policy and policy.affinity
  local to_canary = canary and canary_affinity.goes_to_canary(canary, sticky)
  local member = pick_member(to_canary and canary or action)
  if member == nil then return 500 end
  local id = member.backend
  if id == nil then return member.status end
  local backend = backends[id]
  if backend == nil then return 503 end
  local external = backend.external
  if external == nil and #backend.peers == 0 then
    -- ingress-nginx's default-backend annotation: the route's backend without endpoints gives way.
    local substitute = policy and policy.emptyBackend and backends[policy.emptyBackend]
    if substitute and substitute.external == nil and #substitute.peers > 0 then
      id, backend = policy.emptyBackend, substitute
    else
      ngx.log(ngx.WARN, "ingresskit: no endpoints for backend ", store.escape(id))
      return 503, nil, true
    end
  end
  if sticky and external == nil and (canary == nil or canary_affinity.is_pinned(canary, to_canary)) then
    -- The balancer reads it too, when it moves the session after a failure.
    if to_canary then ngx_var.ingresskit_affinity_canary = "1" end
    affinity.choose(sticky, backend, to_canary)
  end
  -- The balancer takes a lone backend from the route; only a choice among several is passed on
  -- (every variable access costs a lookup of the request in this LuaJIT, see the README).
  if route.only_backend == nil or conf.log_backend then
    ngx_var.ingresskit_backend = id
    -- ingress-nginx's $proxy_alternative_upstream_name: the canary backend, when it serves.
    if to_canary and conf.log_backend then ngx_var.ingresskit_alternative_backend = id end
  end
  if policy then
    if policy.host then ngx_var.ingresskit_host_override = policy.host end
    if policy.connection then ngx_var.ingresskit_connection_override = policy.connection end
    if policy.rewrite and not rewrite_path(policy.rewrite, get_path()) then return 500 end
    if policy.request then apply_request_headers(policy.request) end
  end
  local location
  if route.hop then
    location = "@ingresskit_hop"
  elseif route.mirror then
    ngx_var.ingresskit_mirror = route.mirror
    location = route.location_mirrored
  elseif not route.in_place or external or body_of_unknown_length then
    location = route.location
  end
  if location == nil then return nil, nil end
  if external then
    local pinned = backend.pinned
    local relay = policy and policy.relay
    if pinned then
      -- Only the addresses the controller checked: nginx never resolves a tenant's name itself.
      local index = backend.next
      backend.next = index % #pinned + 1
      if relay then
        -- The TLS relay's socket towards the address: proxy_pass reads what follows a unix
        -- socket path's `:` as the URI, grpc_pass takes none.
        local address = relay_address(relay, backend.pinned_peers[index])
        ngx_var.ingresskit_target = route.scheme .. (route.protocol == "GRPC" and address or address .. ":")
      else
        ngx_var.ingresskit_target = route.scheme .. pinned[index]
      end
    elseif relay then
      -- The relay has sockets for the addresses the controller resolved only.
      return 503
    else
      ngx_var.ingresskit_target = route.scheme .. external
    end
    if route.tls_backend then ngx_var.ingresskit_backend_ssl_name = backend.external_host end
  else
    ngx_var.ingresskit_target = route.target
  end
  -- A body of unknown length is read under the route's limit before it is proxied.
  if body_of_unknown_length then
    ngx_var.ingresskit_next = location
    return nil, route.body_reader
  end
  return nil, location
end

-- rewrite_by_lua of the body readers: the request's body, read under the reader's power of two,
-- must also be within the route's own limit; then on to the location the router chose.
function _M.read_body()
  req.read_body()
  local route = routes_by_id[ngx_var.ingresskit_route]
  local limit = route and route.max_body or 0
  if limit > 0 then
    local data = req.get_body_data()
    local size = data and #data or 0
    if data == nil then
      local path = req.get_body_file()
      local file = path and io.open(path, "rb")
      if file then
        size = file:seek("end")
        file:close()
      end
    end
    if size > limit then return ngx_exit(413) end
  end
  return ngx_exec(ngx_var.ingresskit_next)
end

local function forward(route, action, body_of_unknown_length)
  -- Only forwarded requests are limited and authenticated: ingress-nginx answers redirects and
  -- CORS preflights in nginx's rewrite phase, before its limits and authentication.
  local route_limits = route.limits
  if route_limits then
    local refused = admit(route_limits, route.limit_exempt)
    if refused then return ngx_exit(refused) end
  end
  -- After the local limits, which refuse a flood without asking memcached.
  local global_limit = route.global_limit
  if global_limit then
    local refused_by_sources = source_refused
    local refused = global_limits.admit(global_limit, route.global_limit_exempt)
    -- Asking yielded: other requests ran meanwhile and reused the module's scratch lookups.
    request_headers, request_args, request_method, listener_port, listener_port_loaded, request_path =
      nil, nil, nil, nil, false, nil
    source_refused = refused_by_sources
    if refused then
      if route_limits then limits.release() end
      return ngx_exit(refused)
    end
  end
  local status, location, no_endpoints = dispatch(route, action, body_of_unknown_length)
  -- ingress-nginx intercepts the 503 of a backend without endpoints like the backend's own
  -- answers.
  if no_endpoints then
    local errors = route.policy and route.policy.errors
    if errors and errors.intercepted[503] then return ngx_exec("@ingresskit_error_503") end
  end
  if status then
    -- The request ends in location /, whose log phase runs no Lua (it would cost every request
    -- throughput): the connection counted above is given back here.
    if route_limits then limits.release() end
    return ngx_exit(status)
  end
  if location then return ngx_exec(location) end
end

-- rewrite_by_lua of `location /`; `https_server` is true in the servers of HTTPS listeners.
function _M.route(https_server)
  if not store.sync() then return ngx_exit(503) end
  request_headers, request_args, request_method, listener_port, listener_port_loaded, request_path =
    nil, nil, nil, nil, false, nil
  source_refused = false
  regex_left = conf.regex_matches
  local host = ngx_var.host
  local route, vhost = select_route(host)
  if route == nil then return ngx_exit(404) end
  ngx_var.ingresskit_route = route.tag
  -- ingress-nginx's $namespace, $ingress_name, $service_name, $service_port, $location_path,
  -- only when the log format names them (each assignment costs a variable lookup).
  local log_origin = conf.log_origin
  if log_origin and route.origin then
    local origin = route.origin
    for index, name in pairs(log_origin) do ngx_var[name] = origin[index] end
  end
  local policy = route.policy
  if policy and policy.noLog then ngx_var.ingresskit_log = "0" end
  -- nginx verifies client certificates before any phase: before redirects, source lists, CORS.
  local client_cert = store.client_cert_count > 0 and client_certificates.policy_for(host, vhost)
  if client_cert and https_server then
    local status, error_page = client_certificates.check(client_cert, host)
    if error_page then return ngx.redirect(error_page, 302) end
    if status then return ngx_exit(status) end
  end
  -- Only HTTPS responses carry HSTS (the HTTPS server's add_header reads the variable).
  if https_server and policy and policy.hsts then ngx_var.ingresskit_hsts = policy.hsts end
  if policy then
    local https = policy.https
    -- The catch-all host `*` holds the default certificate, which gives no host TLS of its own, nor
    -- does "" (a name kept from another tenant's `*.` certificate: route-model's NO_CERTIFICATE).
    -- As ingress-nginx, only a request the client sent as http is redirected: behind a load balancer
    -- that ended TLS, its X-Forwarded-Proto (use-forwarded-headers) or PROXY port 443 says https.
    local bound = tls[vhost]
    if https and not is_tls_listener() and (not https.tlsOnly or (vhost ~= "*" and bound ~= nil and bound ~= ""))
      and ngx_var.ingresskit_client_scheme == "http" then
      local port = conf.https_port
      local request_uri = ngx_var.request_uri
      if https.strip and str_byte(request_uri, -1) == 47 then request_uri = str_sub(request_uri, 1, -2) end
      return ngx.redirect("https://" .. host .. (port ~= 443 and (":" .. port) or "") .. request_uri, https.status)
    end
  end
  -- Plain HTTP carries no client certificate (ingress-nginx would serve it unchecked); a request
  -- the route redirects to HTTPS was answered above.
  if client_cert and not https_server then return ngx_exit(403) end
  if policy then
    -- ingress-nginx's deny lines come before its allow lines; both answer 403.
    local denied = (route.deny and contains_client(route.deny, true))
      or (route.allow and not contains_client(route.allow, false))
    -- satisfy any: a client the lists refuse may still authenticate (in forward).
    if denied then
      if not (policy.satisfyAny and (policy.auth or policy.digest or policy.extAuth)) then return ngx_exit(403) end
      source_refused = true
    end
    -- A CORS preflight from an allowed origin is answered here (ingress-nginx: `return 204`).
    if policy.cors and req.get_method() == "OPTIONS" and apply_cors_headers(policy.cors) then
      ngx.status = policy.cors.preflight or 204
      ngx_header["Content-Type"] = "text/plain charset=UTF-8"
      ngx_header["Content-Length"] = 0
      ngx.send_headers()
      return ngx_exit(ngx.HTTP_OK)
    end
  end
  -- The route's body limit (nginx.conf sets none: limits are route data). A Content-Length over
  -- it is refused here; a body of unknown length is read under it before it is proxied.
  local limit = route.max_body
  local body_of_unknown_length = false
  if limit > 0 then
    local content_length = ngx_var.content_length
    if content_length ~= nil then
      if tonumber(content_length) > limit then return ngx_exit(413) end
    elseif route.body_reader then
      body_of_unknown_length = has_unknown_length_body()
    end
  end
  local action = route.action
  local kind = action.type
  if kind == "forward" then return forward(route, action, body_of_unknown_length) end
  if kind == "redirect" then return redirect(route, action) end
  return respond(route, action)
end

-- header_filter_by_lua of the `_h` profile locations: the route's response header changes.
-- log_by_lua of the profile locations that run Lua after the response (`_h`), where routes that
-- count connections or time responses (ewma) are proxied: gives back the connection, records the
-- response time, and counts the request as every other location's log phase does (a location's
-- own log_by_lua replaces the http one).
function _M.after_request()
  limits.release()
  endpoints.record()
  if conf.request_metrics then request_metrics.record() end
end

function _M.filter_response_headers()
  local route = routes_by_id[ngx_var.ingresskit_route]
  local policy = route and route.policy
  if policy and policy.response then apply_response_headers(policy.response) end
  if policy and policy.cors then apply_cors_headers(policy.cors) end
  if policy and policy.filters_rewrites then response_rewrites.apply(policy) end
  if policy and policy.affinity then affinity.set_cookie(policy.affinity) end
end

return _M
