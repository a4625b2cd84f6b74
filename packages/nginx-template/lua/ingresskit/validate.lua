-- Checks of pushed entries, before anything is stored. Each entry must have exactly the shape
-- createDataPlaneUpdate makes (see src/data-entries.ts), so the router can trust the data
-- without checking it per request; every regex is compiled with nginx's own PCRE, because a
-- pattern JavaScript accepts may still be refused here. Problems are collected, not raised:
-- the caller answers 422 with all of them and stores nothing.

local ngx_re = ngx.re
local ssl = require("ngx.ssl")
local values = require("ingresskit.validate_values")
local store = require("ingresskit.store")
local policies = require("ingresskit.validate_policy")

local type = type
local pairs = pairs
local next = next
local ipairs = ipairs
local tostring = tostring
local str_find = string.find
local str_match = string.match
local str_sub = string.sub

local _M = {}

local MAX_KEY_LENGTH = 65000

local check_members = policies.check_members
local check_canary = policies.check_canary
local check_networks = policies.check_networks
local check_limits = policies.check_limits
local check_global_limit = policies.check_global_limit
local check_auth = policies.check_auth
local check_digest_auth = policies.check_digest_auth
local check_external_auth = policies.check_external_auth
local check_affinity = policies.check_affinity
local check_proxy = policies.check_proxy

local is_integer = values.is_integer
local is_string = values.is_string
local is_array = values.is_array
local is_object = values.is_object
local is_token = values.is_token
local is_field_value = values.is_field_value
local is_path = values.is_path
local is_host = values.is_host
local set_of = values.set_of
local compile = values.compile
local check_list = values.check_list

-- The policy fields that hold client networks as { hex bytes, prefix length }.
local NETWORK_LISTS = { "allow", "deny" }

local MATCH_KINDS = set_of("exact", "regex")
local HEADER_CHANGES = set_of("remove", "set", "add")
local SCHEMES = set_of("http", "https")
local REDIRECT_STATUSES = set_of(301, 302, 303, 307, 308)
local HTTPS_REDIRECT_STATUSES = set_of(301, 302, 307, 308)
local PATH_KINDS = set_of("exact", "prefix", "regex")
local PROTOCOLS = set_of("HTTP", "HTTPS", "GRPC", "GRPCS")
local HOST_MATCHES = set_of("exact", "one-label", "suffix", "any")
local LISTENER_PROTOCOLS = set_of("HTTP", "HTTPS")
local VERIFY_MODES = set_of("on", "optional", "optional_no_ca")

-- A collector bound to one key (and route).
local function reporter(rejected, key)
  local route_id
  return {
    route = function(id) route_id = id end,
    fail = function(message)
      rejected[#rejected + 1] = { key = key, routeId = route_id, message = message }
      return false
    end,
  }
end

local function check_conditions(list, field, report)
  if list == nil then return true end
  if not is_array(list) or #list == 0 then return report.fail(field .. " must be a non-empty array") end
  for index, condition in ipairs(list) do
    local where = field .. "[" .. index .. "]"
    if not is_array(condition) or #condition ~= 3 or not is_string(condition[1]) or not is_string(condition[3])
      or not MATCH_KINDS[condition[2]] then
      return report.fail(where .. " must be [name, \"exact\" | \"regex\", value]")
    end
    if condition[2] == "regex" then
      local err = compile(condition[3], "j")
      if err then return report.fail(where .. " regex " .. condition[3] .. " does not compile: " .. err) end
    end
  end
  return true
end

-- [name, value] of a header to set or add.
local function is_header(pair)
  return is_array(pair) and #pair == 2 and is_token(pair[1]) and is_field_value(pair[2])
end

local function check_headers(modifier, field, report)
  if modifier == nil then return true end
  if not is_object(modifier) then return report.fail(field .. " must be an object") end
  for name in pairs(modifier) do
    if not HEADER_CHANGES[name] then return report.fail(field .. " has an unknown field " .. tostring(name)) end
  end
  if modifier.remove ~= nil and not check_list(modifier.remove, field .. ".remove", report, is_token, "holds an invalid header name") then
    return false
  end
  for _, kind in ipairs({ "set", "add" }) do
    if modifier[kind] ~= nil and not check_list(modifier[kind], field .. "." .. kind, report, is_header, "holds an invalid header") then
      return false
    end
  end
  return true
end

local function check_path_change(change, field, report, allow_regex)
  if not is_object(change) then return report.fail(field .. " must be an object") end
  if change.type == "full" then
    if not is_path(change.value) then return report.fail(field .. ".value must be a path") end
  elseif change.type == "prefix" then
    if not is_integer(change.strip, 0, 8192) then return report.fail(field .. ".strip must be a length") end
    if not is_string(change.value) or (change.value ~= "" and not is_path(change.value)) then
      return report.fail(field .. ".value must be empty or a path")
    end
  elseif change.type == "regex" and allow_regex then
    if not is_string(change.replacement) or str_find(change.replacement, "[%z\1-\31\127]") then
      return report.fail(field .. ".replacement must be text without control characters")
    end
    if not is_string(change.pattern) then return report.fail(field .. ".pattern must be a string") end
    -- Compiles the pattern and the replacement template alike.
    local _, _, err = ngx_re.sub("", change.pattern, change.replacement, "j")
    if err then return report.fail(field .. " regex " .. change.pattern .. " does not compile: " .. err) end
  else
    return report.fail(field .. ".type is not a path change")
  end
  return true
end

local function check_action(action, report)
  if not is_object(action) then return report.fail("action must be an object") end
  if action.type == "forward" then
    if not check_members(action, "action", report) then return false end
    if action.canary ~= nil and not check_canary(action.canary, report) then return false end
  elseif action.type == "redirect" then
    if not REDIRECT_STATUSES[action.status] then return report.fail("action.status must be a redirect status") end
    if action.scheme ~= nil and not SCHEMES[action.scheme] then return report.fail("action.scheme must be http or https") end
    if action.hostname ~= nil and (not is_host(action.hostname) or str_find(action.hostname, ":%d+$")) then
      return report.fail("action.hostname must be a host name")
    end
    if action.port ~= nil and not is_integer(action.port, 1, 65535) then return report.fail("action.port must be 1-65535") end
    if action.query ~= nil and (not is_string(action.query) or #action.query > 6144
      or str_find(action.query, "[^%w%._~%-=&+,:@/!%%]")) then
      return report.fail("action.query must be a URL query")
    end
    if action.path ~= nil then return check_path_change(action.path, "action.path", report, false) end
  elseif action.type == "respond" then
    if not is_integer(action.status, 200, 599) then return report.fail("action.status must be 200-599") end
    if action.body ~= nil and not is_string(action.body) then return report.fail("action.body must be a string") end
  else
    return report.fail("action.type must be forward, redirect or respond")
  end
  return true
end

-- Custom error pages: statuses 400-599 ascending, error backend ids, headers for them.
local function check_custom_errors(errors, report)
  if not is_object(errors) then return report.fail("policy.errors must be an object") end
  if not is_array(errors.statuses) or #errors.statuses == 0 then
    return report.fail("policy.errors.statuses must be a non-empty array")
  end
  local previous = 399
  for _, status in ipairs(errors.statuses) do
    -- nginx.conf has an error location for each status from 400 to 599 but 499.
    if not is_integer(status, previous + 1, 599) or status == 499 then
      return report.fail("policy.errors.statuses must be ascending statuses from 400 to 599 but 499")
    end
    previous = status
  end
  if not is_array(errors.backends) then return report.fail("policy.errors.backends must be an array") end
  for _, id in ipairs(errors.backends) do
    if not is_string(id) then return report.fail("policy.errors.backends must hold backend ids") end
  end
  if errors.own ~= nil and errors.own ~= true then return report.fail("policy.errors.own must be true or absent") end
  if errors.headers ~= nil then
    if not is_array(errors.headers) then return report.fail("policy.errors.headers must be an array") end
    for _, pair in ipairs(errors.headers) do
      if not is_array(pair) or not is_token(pair[1]) or not is_field_value(pair[2]) then
        return report.fail("policy.errors.headers must hold [name, value] pairs")
      end
    end
  end
  return true
end

local function check_policy(policy, report)
  if policy == nil then return true end
  if not is_object(policy) then return report.fail("policy must be an object") end
  if policy.https ~= nil then
    if not is_object(policy.https) or not HTTPS_REDIRECT_STATUSES[policy.https.status]
      or (policy.https.tlsOnly ~= nil and policy.https.tlsOnly ~= true)
      or (policy.https.strip ~= nil and policy.https.strip ~= true) then
      return report.fail("policy.https must be { status, tlsOnly?, strip? }")
    end
  end
  if policy.mirror ~= nil and not is_string(policy.mirror) then
    return report.fail("policy.mirror must be a backend id")
  end
  if policy.emptyBackend ~= nil and not is_string(policy.emptyBackend) then
    return report.fail("policy.emptyBackend must be a backend id")
  end
  if policy.errors ~= nil and not check_custom_errors(policy.errors, report) then return false end
  if policy.hsts ~= nil and not is_field_value(policy.hsts) then
    return report.fail("policy.hsts must be a header value")
  end
  if policy.cors ~= nil then
    local cors = policy.cors
    if not is_object(cors) or not is_array(cors.headers) then return report.fail("policy.cors must be { origin?, headers }") end
    if cors.origin ~= nil then
      if not is_string(cors.origin) then return report.fail("policy.cors.origin must be a regex") end
      local _, _, err = ngx_re.find("", cors.origin, "joi")
      if err then return report.fail("policy.cors.origin does not compile: " .. err) end
    end
    for _, pair in ipairs(cors.headers) do
      if not is_array(pair) or not is_token(pair[1]) or not is_field_value(pair[2]) then
        return report.fail("policy.cors.headers holds an invalid header")
      end
    end
    for _, name in ipairs({ "methods", "allowHeaders" }) do
      local value = cors[name]
      if value ~= nil and value ~= true and not is_field_value(value) then
        return report.fail("policy.cors." .. name .. " must be a header value or true")
      end
    end
    if (cors.echoOrigin ~= nil and cors.echoOrigin ~= true) or (cors.preflight ~= nil and cors.preflight ~= 200) then
      return report.fail("policy.cors.echoOrigin must be true and policy.cors.preflight 200 when set")
    end
  end
  for _, name in ipairs(NETWORK_LISTS) do
    local list = policy[name]
    if list ~= nil and not check_networks(list, "policy." .. name, report) then return false end
  end
  if policy.limits ~= nil and not check_limits(policy.limits, report) then return false end
  if policy.glimit ~= nil and not check_global_limit(policy.glimit, report) then return false end
  if policy.auth ~= nil and not check_auth(policy.auth, report) then return false end
  if policy.digest ~= nil and not check_digest_auth(policy.digest, report) then return false end
  if policy.extAuth ~= nil and not check_external_auth(policy.extAuth, report) then return false end
  if policy.affinity ~= nil and not check_affinity(policy.affinity, report) then return false end
  if not check_proxy(policy, report) then return false end
  if policy.maxBody ~= nil and not is_integer(policy.maxBody, 0, 2 ^ 40) then return report.fail("policy.maxBody must be a byte count") end
  if policy.rewrite ~= nil and not check_path_change(policy.rewrite, "policy.rewrite", report, true) then return false end
  if policy.host ~= nil and not is_host(policy.host) then return report.fail("policy.host must be a host") end
  -- 20 lower-case hex digits (nginx-template's relay ids): a socket name, never a path.
  if policy.relay ~= nil and (not is_string(policy.relay) or #policy.relay ~= 20
    or not str_find(policy.relay, "^[0-9a-f]+$")) then
    return report.fail("policy.relay must be a relay id")
  end
  if not check_headers(policy.request, "policy.request", report) then return false end
  if not check_headers(policy.response, "policy.response", report) then return false end
  if policy.timeouts ~= nil then
    local t = policy.timeouts
    if not is_array(t) or #t ~= 3 then return report.fail("policy.timeouts must hold 3 numbers") end
    for _, seconds in ipairs(t) do
      if type(seconds) ~= "number" or seconds < 0 or seconds > 86400 then return report.fail("policy.timeouts must hold 3 numbers") end
    end
  end
  return true
end

-- `names_policy(id)`: the problem of the shared policy `id` for the routes that name it, or nil
-- and the policy.
local function check_route(route, field, report, names_policy)
  if not is_object(route) then return report.fail(field .. " must be an object") end
  if is_string(route.id) then report.route(route.id) else return report.fail(field .. ".id must be a string") end
  if not PATH_KINDS[route.kind] then return report.fail("kind must be exact, prefix or regex") end
  if not is_string(route.path) then return report.fail("path must be a string") end
  if route.ignoreCase ~= nil and route.ignoreCase ~= true then return report.fail("ignoreCase must be true or absent") end
  if route.kind == "regex" then
    local err = compile(route.path, route.ignoreCase and "ji" or "j")
    if err then return report.fail("path regex " .. route.path .. " does not compile: " .. err) end
  end
  if route.method ~= nil and not is_string(route.method) then return report.fail("method must be a string") end
  if not check_conditions(route.headers, "headers", report) then return false end
  if not check_conditions(route.query, "query", report) then return false end
  if route.listeners ~= nil and not check_list(route.listeners, "listeners", report, is_string, "must hold names") then
    return false
  end
  if not check_action(route.action, report) or not check_policy(route.policy, report) then return false end
  local shared = nil
  if route.sharedPolicy ~= nil then
    if not is_string(route.sharedPolicy) or not str_find(route.sharedPolicy, "^%x+$") then
      return report.fail("sharedPolicy must be a policy id")
    end
    local problem
    problem, shared = names_policy(route.sharedPolicy)
    if problem then return report.fail(problem) end
  end
  if route.origin ~= nil then
    if not is_array(route.origin) or #route.origin ~= 5 then return report.fail("origin must hold 5 strings") end
    if not check_list(route.origin, "origin", report, is_string, "must hold strings") then return false end
  end
  if route.action.type == "forward" then
    -- A profile of this nginx.conf's catalogue (nginx-template's profiles.ts), whose classes the
    -- operator's settings decide: nginx.conf has a location for each.
    local profile = route.profile
    local classes = store.conf.profile_classes
    local buffer, retry = nil, nil
    if is_string(profile) then
      buffer, retry = str_match(profile, "^ik_p_q[01]s[01]v1[01]_b(%d+)_r(%d+)$")
      if buffer == nil then buffer, retry = str_match(profile, "^ik_g_b(%d+)_r(%d+)$") end
    end
    if buffer == nil or not classes.header_buffers[tonumber(buffer)] or not classes.retry_sets[tonumber(retry)] then
      return report.fail("profile must name a profile of this nginx.conf's catalogue")
    end
    if not PROTOCOLS[route.protocol] then return report.fail("protocol must be HTTP, HTTPS, GRPC or GRPCS") end
    local grpc = str_find(profile, "^ik_g_") ~= nil
    if grpc ~= (route.protocol == "GRPC" or route.protocol == "GRPCS") then
      return report.fail("profile must be of the protocol's backend module")
    end
    -- Only the profiles of the operator's directives have a mirroring location (the mirror is in
    -- the route's shared policy, or in its own).
    local mirror = (route.policy and route.policy.mirror) or (shared and shared.mirror)
    if mirror ~= nil and not classes.defaults[profile] then
      return report.fail("a mirroring route must have the profile of the operator's directives")
    end
    -- nginx speaks plain text to the TLS relay's sockets: HTTP/1.1, or h2c for gRPC (the relay
    -- is the route's own, see shared-policies.ts, but a shared one would be read the same).
    local relay = (route.policy and route.policy.relay) or (shared and shared.relay)
    if relay ~= nil and route.protocol ~= "HTTP" and route.protocol ~= "GRPC" then
      return report.fail("a route with policy.relay must have protocol HTTP or GRPC")
    end
  elseif route.profile ~= nil or route.protocol ~= nil then
    return report.fail("only forwarding routes have a profile")
  end
  return true
end

local function check_index_map(map, count, field, report)
  if not is_object(map) then return report.fail(field .. " must be an object") end
  for path, list in pairs(map) do
    if not is_string(path) or not is_array(list) or #list == 0 then return report.fail(field .. " must map paths to route indexes") end
    for _, index in ipairs(list) do
      if not is_integer(index, 1, count) then return report.fail(field .. " holds an index out of range") end
    end
  end
  return true
end

-- The CA certificates are parsed here, so a handshake never meets a CA it cannot use.
local function check_client_cert(policy, report)
  if not is_object(policy) or not is_string(policy.id) or not str_find(policy.id, "^%x+$")
    or not is_string(policy.ca) or not VERIFY_MODES[policy.verify] or not is_integer(policy.depth, 1, 100)
    or (policy.pass ~= nil and policy.pass ~= true) then
    return report.fail("clientCert must be { id, ca, verify, depth, errorPage?, pass?, subject? }")
  end
  if policy.errorPage ~= nil and (not is_field_value(policy.errorPage)
    or not (str_find(policy.errorPage, "^https?://[%w%.%-]+") or str_find(policy.errorPage, "^/"))) then
    return report.fail("clientCert.errorPage must be an http(s) URL or a path")
  end
  if policy.subject ~= nil then
    local err = compile(policy.subject, "j")
    if err then return report.fail("clientCert.subject does not compile: " .. err) end
  end
  if policy.ca ~= "" then
    local chain, err = ssl.parse_pem_cert(policy.ca)
    if not chain then return report.fail("clientCert.ca cannot be parsed: " .. tostring(err)) end
  end
  return true
end

-- The groups of regex routes the router matches together: every regex route in exactly one, in
-- route order, each group a pattern PCRE compiles (a group too large for it names its first route).
local function check_regex_groups(groups, routes, report)
  if not is_array(groups) then return report.fail("regex must be an array") end
  local last, grouped = 0, 0
  for index, group in ipairs(groups) do
    local where = "regex[" .. index .. "]"
    if not is_object(group) or not is_string(group.pattern) or not is_array(group.routes)
      or not is_array(group.markers) or #group.routes == 0 or #group.routes ~= #group.markers then
      return report.fail(where .. " must be { pattern, routes, markers } with one marker per route")
    end
    for position, route_index in ipairs(group.routes) do
      if not is_integer(route_index, last + 1, #routes) or routes[route_index].kind ~= "regex" then
        return report.fail(where .. ".routes must name regex routes in route order")
      end
      if not is_integer(group.markers[position], 1, 65535) then
        return report.fail(where .. ".markers must hold capture numbers")
      end
      last = route_index
      grouped = grouped + 1
    end
    local err = compile(group.pattern, "j")
    if err then
      report.route(routes[group.routes[1]].id)
      report.fail("the regex paths matched together with this one do not compile: " .. err)
      report.route(nil)
      return false
    end
  end
  for _, route in ipairs(routes) do
    if route.kind == "regex" then grouped = grouped - 1 end
  end
  if grouped ~= 0 then return report.fail("regex must hold every regex route once") end
  return true
end

local function check_host(entry, report, names_policy)
  if not HOST_MATCHES[entry.match] then
    return report.fail("match must be exact, one-label, suffix or any")
  end
  if not is_array(entry.routes) then return report.fail("routes must be an array") end
  local ok = true
  for index, route in ipairs(entry.routes) do
    -- Every route is checked, so one push reports every bad regex of a host at once.
    if not check_route(route, "routes[" .. index .. "]", report, names_policy) then ok = false end
    report.route(nil)
  end
  if entry.fallback ~= nil and not check_route(entry.fallback, "fallback", report, names_policy) then ok = false end
  report.route(nil)
  if not ok then return false end
  local count = #entry.routes
  if not check_index_map(entry.exact, count, "exact", report) or not check_index_map(entry.prefix, count, "prefix", report) then
    return false
  end
  if entry.clientCert ~= nil and not check_client_cert(entry.clientCert, report) then return false end
  return check_regex_groups(entry.regex, entry.routes, report)
end

local function check_endpoints(list, field, report)
  if not is_array(list) then return report.fail(field .. " must be an array") end
  for index, endpoint in ipairs(list) do
    if not is_array(endpoint) or #endpoint ~= 2 or not is_string(endpoint[1]) or not str_find(endpoint[1], "^[%x:%.]+$")
      or not is_integer(endpoint[2], 1, 65535) then
      return report.fail(field .. "[" .. index .. "] must be [IP address, port]")
    end
  end
  return true
end

local function check_backend(entry, report)
  if not check_endpoints(entry.endpoints, "endpoints", report) then return false end
  if entry.external ~= nil then
    if not is_string(entry.external) or not (str_find(entry.external, "^[%w%.%-]+:%d+$") or str_find(entry.external, "^%[[%x:%.]+%]:%d+$")) then
      return report.fail("external must be host:port")
    end
    -- nginx reads a proxy_pass target `unix:...` as a unix socket path, never as a host.
    if str_find(entry.external, "^[Uu][Nn][Ii][Xx]:") then return report.fail("external must not name a unix socket") end
  end
  if entry.pinned ~= nil then
    if entry.external == nil then return report.fail("pinned needs external") end
    if not check_endpoints(entry.pinned, "pinned", report) then return false end
  end
  return true
end

local function check_certificate(entry, report, is_stored)
  if not is_string(entry.cert) or not is_string(entry.key) then return report.fail("cert and key must be PEM strings") end
  -- Ids are content hashes and parsing costs most of a millisecond: what is stored already was
  -- parsed when it was pushed.
  if is_stored() then return true end
  local cert, cert_err = ssl.parse_pem_cert(entry.cert)
  if not cert then return report.fail("certificate cannot be parsed: " .. tostring(cert_err)) end
  local key, key_err = ssl.parse_pem_priv_key(entry.key)
  if not key then return report.fail("private key cannot be parsed: " .. tostring(key_err)) end
  return true
end

local function is_listener(listener)
  return is_object(listener) and is_string(listener.name) and is_integer(listener.port, 1, 65535)
    and LISTENER_PROTOCOLS[listener.protocol] == true
end

local function check_listeners(entry, report)
  return check_list(entry.listeners, "listeners", report, is_listener, "must hold { name, port, protocol }")
end

local KINDS = { host = true, tls = true, cert = true, backend = true, policy = true }

-- Whether `key` names an entry: `listeners` or `<kind>:<name>`.
function _M.is_key(key)
  if not is_string(key) or #key > MAX_KEY_LENGTH then return false end
  if key == "listeners" then return true end
  local colon = str_find(key, ":", 1, true)
  return colon ~= nil and KINDS[str_sub(key, 1, colon - 1)] == true
end

-- Checks one entry of `set`; appends { key, routeId?, message } to `rejected` for each problem.
-- `is_stored()` tells whether this very entry is stored already (so an expensive check can be
-- skipped); `names_policy(id)` answers the problem of a shared policy a route names, or nil and
-- the policy (the caller checks each policy once, however many routes name it).
function _M.entry(key, entry, rejected, is_stored, names_policy)
  local report = reporter(rejected, key)
  if not _M.is_key(key) then return report.fail("unknown key") end
  if not is_object(entry) then return report.fail("entry must be an object") end
  if key == "listeners" then return check_listeners(entry, report) end
  local kind = str_sub(key, 1, str_find(key, ":", 1, true) - 1)
  if kind == "host" then return check_host(entry, report, names_policy) end
  if kind == "policy" then
    if not str_find(key, "^policy:%x+$") then return report.fail("a policy id must be hex digits") end
    return check_policy(entry, report)
  end
  if kind == "backend" then return check_backend(entry, report) end
  if kind == "cert" then return check_certificate(entry, report, is_stored) end
  if not is_string(entry.cert) then return report.fail("cert must be a certificate id") end
  return true
end

_M.is_array = is_array

return _M
