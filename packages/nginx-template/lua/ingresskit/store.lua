-- The data an ingresskit nginx serves, as each worker sees it.
--
-- The control endpoint (ingresskit.control) writes entries into the shared dict `ingresskit`
-- under `d:<key>`, records the keys each push changed under `log:<version>`, then bumps
-- `version`. Every worker keeps its own Lua tables (hosts, TLS bindings, backends, listener
-- names) and, on each request, compares the shared version with the one it applied: one shared
-- dict `get`. When they differ it re-reads only the keys the missed versions changed; when it is
-- too far behind, when a log entry is gone, or after a full push that changed many keys (logged
-- as "*"), it rebuilds every table from the dict. There is no timer: an idle worker catches up on
-- its next request.
--
-- Nothing here yields, so a rebuild is never seen half done by another request of the worker,
-- and the tables can be cleared and refilled in place (the router keeps references to them).

local cjson = require("cjson.safe")
local clear_tab = require("table.clear")

local ngx = ngx
local pairs = pairs
local ipairs = ipairs
local type = type
local str_sub = string.sub
local str_find = string.find
local str_char = string.char
local tonumber = tonumber
local table_sort = table.sort

local _M = {}

-- How many versions of change log are kept; a worker further behind rebuilds everything.
_M.LOG_LIMIT = 256

-- Parameters rendered into nginx.conf (set by ingresskit.control.init in the master).
_M.conf = {
  conf_hash = "",
  -- port (string, as $ingresskit_listener holds it) -> "HTTP" | "HTTPS"
  listeners = {},
  default_max_body = 0,
  -- The profile catalogue's classes (nginx-template's profiles.ts): header buffers and retry sets
  -- nginx.conf has locations for, the operator's profiles, and the one location / proxies like.
  profile_classes = { header_buffers = {}, retry_sets = {}, defaults = {}, in_place = "" },
  -- where redirectToHttps sends clients
  https_port = 443,
  -- whether requests are counted (ingresskit.request_metrics)
  request_metrics = false,
  -- the regex matches routing one request may run (the router's regex_left)
  regex_matches = 16,
}

-- The worker's tables.
_M.hosts = {}          -- hostname pattern -> prepared host entry
_M.tls = {}            -- hostname pattern -> certificate id
_M.certificates = {}   -- certificate id -> true (the PEM stays in the dict until a handshake needs it)
_M.backends = {}       -- backend id -> { peers = { {host, port}, ... }, next = n } or { external = "host:port" }
_M.listener_names = {} -- port (string) -> listener name
_M.routes_by_id = {}   -- route tag -> prepared route (for the response header filter and the balancer)
_M.parsed = {}         -- certificate id -> { cert, key } (cdata) or false when it cannot be parsed
_M.client_cert_hosts = {} -- hostname pattern -> true: the hosts that require client certificates
_M.policies = {}       -- shared policy id -> prepared policy (read when a route first names it)
-- How many hosts require client certificates: a number the router can test without a call
-- (`next` would end the JIT trace of every request).
_M.client_cert_count = 0

local hosts = _M.hosts
local tls = _M.tls
local certificates = _M.certificates
local backends = _M.backends
local listener_names = _M.listener_names
local routes_by_id = _M.routes_by_id
local parsed = _M.parsed
local client_cert_hosts = _M.client_cert_hosts
local policies = _M.policies

local dict = ngx.shared.ingresskit
-- nil until the first push was applied (sync answers false until then).
local applied_version = nil

-- Called from init_by_lua with the nginx.conf parameters.
function _M.configure(params)
  local conf = _M.conf
  conf.conf_hash = params.conf_hash
  conf.default_max_body = params.default_max_body
  conf.profile_classes = params.profile_classes
  conf.request_metrics = params.request_metrics
  conf.regex_matches = params.regex_matches or 16
  conf.local_auth_peers = params.local_auth_peers == true
  -- What else an auth service may not answer from (external_auth.lua): { hex, prefix length }
  -- networks and port → true, as nginx.conf gives them.
  conf.refused_peers = params.refused_peers or {}
  conf.own_peers = params.own_peers or {}
  conf.own_ports = params.own_ports or {}
  -- The access log format names the backend: the router sets it for every forwarded request.
  conf.log_backend = params.log_backend == true
  -- The route origin fields the log format names: variable names by their index in route.origin.
  conf.log_origin = params.log_origin
  conf.bind_ports = params.bind_ports or {}
  local https_port
  for port, protocol in pairs(params.listeners) do
    conf.listeners[tostring(port)] = protocol
    if protocol == "HTTPS" and (https_port == nil or port == 443 or (https_port ~= 443 and port < https_port)) then
      https_port = port
    end
  end
  conf.https_port = https_port or 443
end

local KIND_RANK = { exact = 0, regex = 1, prefix = 2 }

local function hex_to_bytes(hex)
  return (hex:gsub("..", function(pair) return str_char(tonumber(pair, 16)) end))
end

-- Pushed { hex, prefix length } networks → { bytes, prefix length }, compared with binary_remote_addr.
local function to_networks(list)
  local networks = {}
  for index, network in ipairs(list) do
    networks[index] = { hex_to_bytes(network[1]), network[2] }
  end
  return networks
end

-- Control characters and "%" percent-encoded: the id goes into $ingresskit_route, which the
-- access log escapes but an `add_header` (exposeRouteId) would copy as it is.
local function to_variable_value(id)
  if not str_find(id, "[%z\1-\31%%\127]") then return id end
  return (id:gsub("[%z\1-\31%%\127]", function(char) return string.format("%%%02X", char:byte()) end))
end

-- What a profile means for the router, made once per profile rather than once per route: its
-- location, the mirroring one (the defaults have it), and whether location / proxies as it does.
local profile_facts = {}

local function facts_of(profile)
  local facts = profile_facts[profile]
  if facts == nil then
    local location = "@" .. profile
    facts = {
      location = location,
      location_mirrored = location .. "_m",
      in_place = profile == _M.conf.profile_classes.in_place,
      -- Buffered requests: a body of unknown length is read (under the route's limit) first.
      reads_body = str_find(profile, "^ik_p_q1") ~= nil,
    }
    profile_facts[profile] = facts
  end
  return facts
end

-- Where each protocol's balanced requests go (profile locations proxy to $ingresskit_target).
local BALANCED_TARGETS = {
  HTTP = "http://ingresskit_upstream",
  HTTPS = "https://ingresskit_upstream",
  GRPC = "grpc://ingresskit_upstream",
  GRPCS = "grpcs://ingresskit_upstream",
}
local SCHEMES = { HTTP = "http://", HTTPS = "https://", GRPC = "grpc://", GRPCS = "grpcs://" }

-- The body reader of a limit: the power of two at or above it (see BODY_READER_PARTIAL).
local function body_reader_of(limit)
  local exponent = 10
  while 2 ^ exponent < limit and exponent < 40 do exponent = exponent + 1 end
  return "@ingresskit_read_" .. exponent
end

-- Also for ids written to the error log, where a newline could forge a line.
_M.escape = to_variable_value

-- `value` with its control characters as %XX; `%` itself stays, as it was written.
local function without_controls(value)
  if not str_find(value, "[%z\1-\31\127]") then return value end
  return (value:gsub("[%z\1-\31\127]", function(char) return string.format("%%%02X", char:byte()) end))
end

-- What every route with this policy reads, made once per policy: the networks as bytes, the
-- intercepted statuses, whether responses are rewritten. Shared policies are prepared once per
-- worker however many routes name them.
local function prepare_policy(policy)
  if policy.allow then policy.allow_networks = to_networks(policy.allow) end
  if policy.deny then policy.deny_networks = to_networks(policy.deny) end
  if policy.limits and policy.limits.exempt then policy.limit_exempt = to_networks(policy.limits.exempt) end
  if policy.glimit and policy.glimit.exempt then policy.global_limit_exempt = to_networks(policy.glimit.exempt) end
  if policy.affinity then policy.affinity.variable = "cookie_" .. policy.affinity.name end
  if policy.errors then
    local intercepted = {}
    for _, status in ipairs(policy.errors.statuses) do intercepted[status] = true end
    policy.errors.intercepted = intercepted
  end
  policy.filters_rewrites = policy.location ~= nil or policy.cookieDomain ~= nil or policy.cookiePath ~= nil
  return policy
end

-- The shared policy `id`, prepared; read from the dict the first time a route names it, so a host
-- never depends on the order in which a worker applies the keys of a push. nil when not stored.
local function shared_policy(id)
  local policy = policies[id]
  if policy ~= nil then return policy end
  local entry = cjson.decode(dict:get("d:policy:" .. id) or "")
  if type(entry) ~= "table" then return nil end
  policy = prepare_policy(entry)
  policies[id] = policy
  return policy
end

-- The route's whole policy: its shared policy with its own fields over it (a copy of the shared
-- table's fields only, whose values stay shared), or either alone. Fails closed: a route whose
-- shared policy is not stored answers 500 rather than be served without its allow-list.
local function resolve_policy(route)
  local own = route.policy
  if own ~= nil then prepare_policy(own) end
  local id = route.sharedPolicy
  if id == nil then return own end
  local shared = shared_policy(id)
  if shared == nil then
    ngx.log(ngx.ERR, "ingresskit: route ", to_variable_value(route.id), " names policy ", to_variable_value(id),
      ", which is not stored; it answers 500")
    route.action = { type = "respond", status = 500 }
    route.profile = nil
    route.protocol = nil
    return nil
  end
  if own == nil then return shared end
  local merged = {}
  for field, value in pairs(shared) do merged[field] = value end
  for field, value in pairs(own) do merged[field] = value end
  merged.filters_rewrites = shared.filters_rewrites or own.filters_rewrites
  return merged
end

local function prepare_route(route)
  local conf = _M.conf
  route.tag = to_variable_value(route.id)
  -- The access log writes them with escape=none too, where a newline (a regex path may escape
  -- one) would forge a line.
  local origin = route.origin
  if origin then
    for index = 1, 5 do origin[index] = without_controls(origin[index]) end
  end
  if route.listeners then
    local set = {}
    for _, name in ipairs(route.listeners) do set[name] = true end
    route.listener_set = set
  end
  route.has_conditions = route.method ~= nil or route.headers ~= nil or route.query ~= nil
  -- First: a route whose shared policy is not stored answers 500 without a profile, and what
  -- follows (body reader, hop, in place) reads the whole policy.
  local policy = resolve_policy(route)
  route.policy = policy
  route.max_body = policy and policy.maxBody or conf.default_max_body
  if policy then
    route.allow = policy.allow_networks
    route.deny = policy.deny_networks
    route.limits = policy.limits
    route.limit_exempt = policy.limit_exempt
    route.global_limit = policy.glimit
    route.global_limit_exempt = policy.global_limit_exempt
  end
  local action = route.action
  -- A canary may choose another backend, and a backend without endpoints may give way to the
  -- route's emptyBackend: the balancer must then read the one chosen.
  if action.type == "forward" and #action.members == 1 and action.canary == nil
    and not (policy and policy.emptyBackend) then
    route.only_backend = action.members[1].backend
  end
  if route.profile then
    local facts = facts_of(route.profile)
    route.location = facts.location
    route.location_mirrored = facts.location_mirrored
    route.target = BALANCED_TARGETS[route.protocol]
    route.scheme = SCHEMES[route.protocol]
    route.tls_backend = route.protocol == "HTTPS" or route.protocol == "GRPCS"
    route.mirror = policy and policy.mirror
    local errors = policy and policy.errors
    -- Routes that replace their backend's error answers go through the hop (custom errors of
    -- nginx's own answers only, and gRPC ones, need the error pages every server has).
    route.hop = errors ~= nil and not errors.own and (route.protocol == "HTTP" or route.protocol == "HTTPS")
    -- Unknown-length bodies of buffered routes are read under their limit before proxying.
    if facts.reads_body and route.max_body > 0 then route.body_reader = body_reader_of(route.max_body) end
    -- location / proxies plain HTTP with the default directives and runs no Lua after the response:
    -- only a route that needs nothing else is proxied there.
    route.in_place = facts.in_place and route.protocol == "HTTP" and not route.mirror and errors == nil
      and not (policy ~= nil
        and (policy.response ~= nil or policy.cors ~= nil or policy.affinity ~= nil or policy.filters_rewrites
          or (policy.limits ~= nil and policy.limits.conn ~= nil) or policy.balance == "ewma"))
  end
end

-- The prefix lengths to try, longest first, and whether the routes are in precedence order
-- (Exact, then regex, then prefixes longest first), in which case the first match found is the
-- answer and the search can stop there.
local function prepare_host(entry)
  for _, route in ipairs(entry.routes) do prepare_route(route) end
  if entry.fallback then prepare_route(entry.fallback) end
  local lengths, seen = {}, {}
  for prefix in pairs(entry.prefix) do
    local length = #prefix
    if not seen[length] then
      seen[length] = true
      lengths[#lengths + 1] = length
    end
  end
  table_sort(lengths, function(a, b) return a > b end)
  entry.prefix_lengths = lengths
  local ordered, rank, length = true, 0, math.huge
  for _, route in ipairs(entry.routes) do
    local this_rank = KIND_RANK[route.kind]
    if this_rank < rank or (route.kind == "prefix" and #route.path > length) then
      ordered = false
      break
    end
    rank = this_rank
    if route.kind == "prefix" then length = #route.path end
  end
  entry.ordered = ordered
  local first = entry.routes[1]
  entry.first_matches_all = first ~= nil and first.kind == "prefix" and first.path == "/"
    and not first.has_conditions and first.listener_set == nil
  return entry
end

-- By tag, the value of $ingresskit_route, which is all later phases know of the route.
local function index_routes(entry)
  for _, route in ipairs(entry.routes) do routes_by_id[route.tag] = route end
  if entry.fallback then routes_by_id[entry.fallback.tag] = entry.fallback end
end

local function unindex_routes(entry)
  local function drop(route)
    if routes_by_id[route.tag] == route then routes_by_id[route.tag] = nil end
  end
  for _, route in ipairs(entry.routes) do drop(route) end
  if entry.fallback then drop(entry.fallback) end
end

-- [address, port] pairs as peers; IPv6 addresses get brackets, as set_current_peer and a
-- proxy_pass URL parse their host like an upstream address.
local function peers_of(endpoints)
  local peers = {}
  for index, endpoint in ipairs(endpoints) do
    local address = endpoint[1]
    if str_find(address, ":", 1, true) then address = "[" .. address .. "]" end
    peers[index] = { address, endpoint[2] }
  end
  return peers
end

-- Keep the round-robin position so an endpoint change does not send a burst to the first one.
local function next_index_after(previous, peers)
  local next_index = previous and previous.next or 1
  if next_index > #peers then next_index = 1 end
  return next_index
end

local function prepare_backend(entry, previous)
  if entry.external then
    -- The host part names the server (TLS server name) when nginx connects to a pinned address.
    local backend = { external = entry.external, external_host = entry.external:match("^(.*):%d+$"), peers = {} }
    if entry.pinned then
      backend.pinned = {}
      -- As peers too, for routes that reach them through the TLS relay's sockets.
      backend.pinned_peers = peers_of(entry.pinned)
      for index, peer in ipairs(backend.pinned_peers) do backend.pinned[index] = peer[1] .. ":" .. peer[2] end
      backend.next = next_index_after(previous, backend.pinned)
    end
    return backend
  end
  local peers = peers_of(entry.endpoints)
  return { peers = peers, next = next_index_after(previous, peers) }
end

local function mark_client_cert(name, required)
  local was = client_cert_hosts[name] ~= nil
  if required and not was then
    client_cert_hosts[name] = true
    _M.client_cert_count = _M.client_cert_count + 1
  elseif was and not required then
    client_cert_hosts[name] = nil
    _M.client_cert_count = _M.client_cert_count - 1
  end
end

local function remove_key(key)
  if key == "listeners" then
    clear_tab(listener_names)
    return
  end
  local colon = str_find(key, ":", 1, true)
  if not colon then return end
  local kind, name = str_sub(key, 1, colon - 1), str_sub(key, colon + 1)
  if kind == "host" then
    local old = hosts[name]
    if old then unindex_routes(old) end
    hosts[name] = nil
    mark_client_cert(name, false)
  elseif kind == "tls" then
    tls[name] = nil
  elseif kind == "cert" then
    certificates[name] = nil
    parsed[name] = nil
  elseif kind == "backend" then
    backends[name] = nil
  elseif kind == "policy" then
    -- Hosts that still name it hold the prepared table itself.
    policies[name] = nil
  end
end

local function install_key(key, raw)
  if str_sub(key, 1, 5) == "cert:" then
    -- Ids are content hashes: a cached parse of the same id is never stale, and the PEM stays
    -- in the dict until a handshake needs it.
    certificates[str_sub(key, 6)] = true
    return
  end
  if str_sub(key, 1, 7) == "policy:" then
    -- Ids are content hashes: a policy prepared under this id is this very policy. Routes read
    -- it when they first name it (shared_policy).
    return
  end
  local entry, err = cjson.decode(raw)
  if type(entry) ~= "table" then
    -- The control endpoint stores only entries it validated; this means a corrupted dict.
    ngx.log(ngx.ERR, "ingresskit: cannot decode ", to_variable_value(key), ": ", err)
    return remove_key(key)
  end
  if key == "listeners" then
    clear_tab(listener_names)
    for _, listener in ipairs(entry.listeners) do listener_names[tostring(listener.port)] = listener.name end
    return
  end
  local colon = str_find(key, ":", 1, true)
  local kind, name = str_sub(key, 1, colon - 1), str_sub(key, colon + 1)
  if kind == "host" then
    local old = hosts[name]
    if old then unindex_routes(old) end
    local host = prepare_host(entry)
    hosts[name] = host
    mark_client_cert(name, host.clientCert ~= nil)
    index_routes(host)
  elseif kind == "tls" then
    tls[name] = entry.cert
  elseif kind == "backend" then
    backends[name] = prepare_backend(entry, backends[name])
  end
end

local function load_key(key)
  local raw = dict:get("d:" .. key)
  if raw == nil then return remove_key(key) end
  return install_key(key, raw)
end

local function rebuild(version)
  clear_tab(hosts)
  clear_tab(tls)
  clear_tab(certificates)
  clear_tab(listener_names)
  clear_tab(routes_by_id)
  clear_tab(client_cert_hosts)
  clear_tab(policies)
  _M.client_cert_count = 0
  local old_backends = {}
  for id, backend in pairs(backends) do old_backends[id] = backend end
  clear_tab(backends)
  for _, key in ipairs(dict:get_keys(0)) do
    if str_sub(key, 1, 2) == "d:" then
      local name = str_sub(key, 3)
      if str_sub(name, 1, 5) == "cert:" then
        -- Not even read: a handshake reads the PEM when it first needs it.
        certificates[str_sub(name, 6)] = true
      elseif str_sub(name, 1, 7) ~= "policy:" then
        -- (A policy is read when a route first names it: shared_policy.)
        local raw = dict:get(key)
        if raw ~= nil then
          if str_sub(name, 1, 8) == "backend:" then
            local entry = cjson.decode(raw)
            if type(entry) == "table" then
              local id = str_sub(name, 9)
              backends[id] = prepare_backend(entry, old_backends[id])
            end
          else
            install_key(name, raw)
          end
        end
      end
    end
  end
  for id in pairs(parsed) do
    if not certificates[id] then parsed[id] = nil end
  end
  applied_version = version
end

local function apply(version)
  if applied_version == nil or version < applied_version or version - applied_version > _M.LOG_LIMIT then
    return rebuild(version)
  end
  local changed = {}
  for missed = applied_version + 1, version do
    local log = dict:get("log:" .. missed)
    if log == nil or log == "*" then return rebuild(version) end
    local keys = cjson.decode(log)
    if type(keys) ~= "table" then return rebuild(version) end
    for _, key in ipairs(keys) do changed[key] = true end
  end
  for key in pairs(changed) do load_key(key) end
  applied_version = version
end

-- Brings this worker's tables up to the pushed version. False when nothing was pushed yet
-- (version 0 after a fresh start, the shared dict being new), when every request gets 503.
function _M.sync()
  local version = dict:get("version")
  if version == applied_version and version ~= nil then return true end
  if version == nil or version == 0 then return false end
  apply(version)
  return true
end

-- Whether a virtual host of kind `kind` named `pattern` covers `host` (route-model's isHostCovered).
function _M.is_covered(pattern, kind, host)
  if kind == "exact" then return pattern == host end
  if kind == "any" then return true end
  local suffix_length = #pattern - 1
  local host_length = #host
  if host_length <= suffix_length or str_sub(host, host_length - suffix_length + 1) ~= str_sub(pattern, 2) then
    return false
  end
  if kind == "suffix" then return true end
  -- one-label: the part before the suffix holds no dot.
  local dot = str_find(host, ".", 1, true)
  return dot == nil or dot > host_length - suffix_length
end

-- The version this worker serves (nil before the first push).
function _M.applied_version()
  return applied_version
end

-- The parsed certificate and key of `id`, parsed once per worker; nil when unknown or invalid.
function _M.certificate(id)
  local cached = parsed[id]
  if cached ~= nil then return cached or nil end
  if not certificates[id] then return nil end
  local ssl = require("ngx.ssl")
  local entry = cjson.decode(dict:get("d:cert:" .. id) or "")
  local cert, cert_err, key, key_err
  if type(entry) == "table" then
    cert, cert_err = ssl.parse_pem_cert(entry.cert)
    key, key_err = ssl.parse_pem_priv_key(entry.key)
  end
  if not cert or not key then
    ngx.log(ngx.ERR, "ingresskit: certificate ", to_variable_value(id), " cannot be used: ", cert_err or key_err or "missing")
    parsed[id] = false
    return nil
  end
  local pair = { cert = cert, key = key }
  parsed[id] = pair
  return pair
end

-- init_worker_by_lua: a random seed per worker (weighted choices must differ between workers),
-- and the tables built before the first request rather than during it.
function _M.init_worker()
  math.randomseed(ngx.now() * 1000 + ngx.worker.pid())
  _M.sync()
end

return _M
