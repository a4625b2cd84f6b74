-- Checks of the pushed policy parts of ingress-nginx annotations (limits, basic and digest authentication,
-- external authentication, session affinity, hashing, retries, response rewrites) and of weighted groups and canaries,
-- for validate.lua; each returns true, or reports and returns false.

local values = require("ingresskit.validate_values")

local type = type
local pairs = pairs
local ipairs = ipairs
local str_find = string.find

local is_integer = values.is_integer
local is_string = values.is_string
local is_array = values.is_array
local is_object = values.is_object
local set_of = values.set_of
local check_list = values.check_list
local compile = values.compile

local _M = {}

-- Headers that frame the check itself, which the check never takes from a route.
local FRAMING_HEADERS = set_of("host", "connection", "content-length", "transfer-encoding", "keep-alive", "te", "upgrade", "expect", "proxy-connection")

-- A weighted group: members with growing cumulative weights `upto`, the last one `total`.
local function check_members(group, field, report)
  if not is_array(group.members) then return report.fail(field .. ".members must be an array") end
  if type(group.total) ~= "number" or group.total < 0 then return report.fail(field .. ".total must be a number") end
  local previous = 0
  for index, member in ipairs(group.members) do
    if not is_object(member) or type(member.upto) ~= "number" or member.upto <= previous or member.upto > group.total then
      return report.fail(field .. ".members[" .. index .. "].upto must grow up to total")
    end
    previous = member.upto
    if member.backend ~= nil then
      if not is_string(member.backend) or member.status ~= nil then
        return report.fail(field .. ".members[" .. index .. "] needs a backend id or a status")
      end
    elseif not is_integer(member.status, 200, 599) then
      return report.fail(field .. ".members[" .. index .. "].status must be 200-599")
    end
  end
  if #group.members > 0 and previous ~= group.total then return report.fail(field .. ".total must be the last upto") end
  return true
end

local CANARY_HEADER_MODES = set_of("value", "pattern", "switch")

local function check_canary(canary, report)
  if not is_object(canary) then return report.fail("action.canary must be an object") end
  if not check_members(canary, "action.canary", report) then return false end
  if canary.total <= 0 then return report.fail("action.canary needs a member") end
  if not is_integer(canary.weightTotal, 1, 1e9) or not is_integer(canary.weight, 0, canary.weightTotal) then
    return report.fail("action.canary.weight must be 0-weightTotal")
  end
  local header = canary.header
  if header ~= nil then
    if not is_array(header) or not is_string(header[1]) or not str_find(header[1], "^http_[%w_]+$")
      or not CANARY_HEADER_MODES[header[2]] then
      return report.fail("action.canary.header must be { variable, mode, value? }")
    end
    if header[2] ~= "switch" and not is_string(header[3]) then return report.fail("action.canary.header needs a value") end
    if header[2] == "pattern" then
      local err = compile(header[3], "jo")
      if err then return report.fail("action.canary.header pattern does not compile: " .. err) end
    end
  end
  if canary.cookie ~= nil and (not is_string(canary.cookie) or not str_find(canary.cookie, "^cookie_[%w%._%-]+$")) then
    return report.fail("action.canary.cookie must name a cookie variable")
  end
  if canary.legacyAffinity ~= nil and canary.legacyAffinity ~= true then
    return report.fail("action.canary.legacyAffinity must be true or absent")
  end
  return true
end

-- { hex bytes, prefix length } of an IPv4 or IPv6 network.
local function is_network(network)
  return is_array(network) and is_string(network[1]) and not str_find(network[1], "%X")
    and ((#network[1] == 8 and is_integer(network[2], 0, 32)) or (#network[1] == 32 and is_integer(network[2], 0, 128)))
end

local function check_networks(list, field, report)
  return check_list(list, field, report, is_network, "holds an invalid network")
end

-- { requests per second, burst }.
local function is_rate(rate)
  return is_array(rate) and type(rate[1]) == "number" and rate[1] > 0 and rate[1] <= 1e9 and is_integer(rate[2], 0, 1e9)
end

local function check_limits(limits, report)
  if not is_object(limits) then return report.fail("policy.limits must be an object") end
  if not is_string(limits.scope) or limits.scope == "" or #limits.scope > 1024 or str_find(limits.scope, "[%z\1-\31\127]") then
    return report.fail("policy.limits.scope must be a name")
  end
  if not is_integer(limits.status, 400, 599) then return report.fail("policy.limits.status must be 400-599") end
  if limits.cstatus ~= nil and not is_integer(limits.cstatus, 400, 599) then return report.fail("policy.limits.cstatus must be 400-599") end
  if limits.conn ~= nil and not is_integer(limits.conn, 1, 1e9) then return report.fail("policy.limits.conn must be a count") end
  if limits.rates ~= nil and not check_list(limits.rates, "policy.limits.rates", report, is_rate, "must hold { rate, burst }", true) then
    return false
  end
  if limits.conn == nil and limits.rates == nil then return report.fail("policy.limits must hold conn or rates") end
  if limits.exempt ~= nil then return check_networks(limits.exempt, "policy.limits.exempt", report) end
  return true
end

-- A realm goes into WWW-Authenticate inside quotes.
local function has_realm(auth)
  return is_object(auth) and is_string(auth.realm) and #auth.realm <= 256 and not str_find(auth.realm, '[%z\1-\31\127"\\]')
end

local function check_auth(auth, report)
  if not has_realm(auth) then return report.fail("policy.auth must be { realm, users }") end
  if auth.users == nil or type(auth.users) ~= "table" then return report.fail("policy.auth.users must be an object") end
  for name, hash in pairs(auth.users) do
    if not is_string(name) or not is_string(hash) or str_find(hash, "[%z\1-\31\127]") then
      return report.fail("policy.auth.users must map names to hashes")
    end
  end
  return true
end

local function check_digest_auth(auth, report)
  if not has_realm(auth) then return report.fail("policy.digest must be { realm, users }") end
  if auth.users == nil or type(auth.users) ~= "table" then return report.fail("policy.digest.users must be an object") end
  for name, ha1 in pairs(auth.users) do
    if not is_string(name) or not is_string(ha1) or #ha1 ~= 32 or not str_find(ha1, "^[0-9a-f]+$") then
      return report.fail("policy.digest.users must map names to MD5 hashes")
    end
  end
  return true
end

local HASH_PART_KINDS = set_of("text", "var")

-- { "text" | "var", value } of an upstream-hash-by key.
local function is_hash_part(part)
  return is_array(part) and HASH_PART_KINDS[part[1]] and is_string(part[2]) and str_find(part[2], "^[%w_%.%-~:/]+$") ~= nil
end

-- A memcached host: an IPv4 address, an IPv6 address or a DNS name; nothing a socket could misread.
local function is_store_host(host)
  return is_string(host) and #host <= 253
    and (str_find(host, "^[%w][%w%.%-]*$") ~= nil or str_find(host, "^[%x:%.]+$") ~= nil)
end

local function check_global_limit(limit, report)
  if not is_object(limit) then return report.fail("policy.glimit must be an object") end
  if not is_string(limit.scope) or limit.scope == "" or #limit.scope > 1024 or str_find(limit.scope, "[%z\1-\31\127]") then
    return report.fail("policy.glimit.scope must be a name")
  end
  if not is_integer(limit.limit, 1, 1e9) then return report.fail("policy.glimit.limit must be a count") end
  if not is_integer(limit.window, 1, 14 * 24 * 3600) then return report.fail("policy.glimit.window must be seconds") end
  if not is_integer(limit.status, 400, 599) then return report.fail("policy.glimit.status must be 400-599") end
  if not check_list(limit.key, "policy.glimit.key", report, is_hash_part, "must hold { text|var, value }", true) then
    return false
  end
  local store = limit.store
  if not is_array(store) or not is_store_host(store[1]) or not is_integer(store[2], 1, 65535)
    or not is_integer(store[3], 1, 60000) or not is_integer(store[4], 1, 3600000) or not is_integer(store[5], 1, 10000) then
    return report.fail("policy.glimit.store must be { host, port, timeout, idle timeout, pool size }")
  end
  if limit.exempt ~= nil then return check_networks(limit.exempt, "policy.glimit.exempt", report) end
  return true
end

local AUTH_METHODS = set_of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE")
local SIGNIN_VARIABLES = set_of("host", "http_host", "scheme", "request_uri", "escaped_request_uri")

-- Printable ASCII without spaces, starting with http:// or https://.
local function is_http_url(value)
  return is_string(value) and #value <= 4096 and str_find(value, "^https?://[^/?#]") ~= nil
    and not str_find(value, "[%z\1-\32\127-\255#]")
end

-- auth-keepalive: the pool's bounds and where the client connects, as compile-auth-keepalive.ts writes them.
local function check_auth_keepalive(keep, report)
  if not is_object(keep) or not is_integer(keep.size, 1, 1024) or not is_integer(keep.requests, 1, 1000000)
    or not is_integer(keep.timeout, 1, 3600) or not is_integer(keep.port, 1, 65535)
    or not is_string(keep.path) or not str_find(keep.path, "^/[\33-\126]*$")
    or (keep.address ~= nil and (not is_string(keep.address) or not str_find(keep.address, "^[%x:%.]+$"))) then
    return report.fail("policy.extAuth.keepalive must be { size, requests, timeout, port, path, address? }")
  end
  for _, flag in ipairs({ "tls", "shareRequestId" }) do
    if keep[flag] ~= nil and keep[flag] ~= true then return report.fail("policy.extAuth.keepalive." .. flag .. " must be true or absent") end
  end
  return true
end

local function check_external_auth(auth, report)
  if not is_object(auth) or not is_http_url(auth.url) or str_find(auth.url, "$", 1, true) then
    return report.fail("policy.extAuth.url must be an http(s) URL without variables")
  end
  -- proxy_pass reads http://unix:<port>/... as a unix socket path, never as a host.
  if str_find(string.lower(auth.url), "^https?://unix:") then
    return report.fail("policy.extAuth.url must not name a unix socket")
  end
  if not is_string(auth.host) or auth.host == "" or str_find(auth.host, "[^%w%.%-:%[%]]") then
    return report.fail("policy.extAuth.host must be a host")
  end
  if not AUTH_METHODS[auth.method] then return report.fail("policy.extAuth.method must be an HTTP method") end
  if auth.redirect ~= nil and (not is_string(auth.redirect) or #auth.redirect > 2048 or str_find(auth.redirect, "[%z\1-\31\127-\255]")) then
    return report.fail("policy.extAuth.redirect must be a header value")
  end
  if auth.signin ~= nil then
    if not is_http_url(auth.signin) then return report.fail("policy.extAuth.signin must be an http(s) URL") end
    for name in string.gmatch(auth.signin, "%$([%a_]+)") do
      if not SIGNIN_VARIABLES[name] then return report.fail("policy.extAuth.signin holds an unknown variable") end
    end
  end
  if auth.param ~= nil and (auth.signin == nil or not is_string(auth.param) or not str_find(auth.param, "^[%w%._~%-]+$")) then
    return report.fail("policy.extAuth.param must be a query parameter name, with signin")
  end
  if auth.headers ~= nil and not check_list(auth.headers, "policy.extAuth.headers", report, function(name)
    return is_string(name) and #name <= 128 and str_find(name, "^[%w_%-]+$") ~= nil
  end, "must hold header names", true) then
    return false
  end
  -- Headers set on the check: never framing or the router's own X-Ingresskit-Auth-* target.
  if auth.set ~= nil and not check_list(auth.set, "policy.extAuth.set", report, function(pair)
    return is_array(pair) and is_string(pair[1]) and #pair[1] <= 128 and str_find(pair[1], "^[%w%-]+$") ~= nil
      and not str_find(string.lower(pair[1]), "^x%-ingresskit%-") and not FRAMING_HEADERS[string.lower(pair[1])]
      and is_string(pair[2]) and #pair[2] <= 2048 and not str_find(pair[2], "[%z\1-\31\127-\255]")
  end, "must hold [name, value] pairs of headers", true) then
    return false
  end
  if auth.alwaysCookie ~= nil and auth.alwaysCookie ~= true then
    return report.fail("policy.extAuth.alwaysCookie must be true or absent")
  end
  local cache = auth.cache
  if cache ~= nil then
    if not is_object(cache) or not check_list(cache.key, "policy.extAuth.cache.key", report, is_hash_part, "must hold { text|var, value }", true) then
      return false
    end
    local reads_request = false
    for _, part in ipairs(cache.key) do if part[1] == "var" then reads_request = true end end
    if not reads_request then return report.fail("policy.extAuth.cache.key must read the request") end
    if not is_object(cache.ttl) then return report.fail("policy.extAuth.cache.ttl must map statuses to seconds") end
    for status, seconds in pairs(cache.ttl) do
      if not is_string(status) or not str_find(status, "^[1-5]%d%d$") or not is_integer(seconds, 1, 604800) then
        return report.fail("policy.extAuth.cache.ttl must map statuses to seconds")
      end
    end
  end
  if auth.keepalive ~= nil then return check_auth_keepalive(auth.keepalive, report) end
  return true
end

local function check_affinity(affinity, report)
  if not is_object(affinity) or not is_string(affinity.name) or not str_find(affinity.name, "^[%w%._%-]+$")
    or not is_string(affinity.attributes) or str_find(affinity.attributes, "[%z\1-\31\127]")
    or (affinity.expires ~= nil and not is_integer(affinity.expires, 0, 2 ^ 31 - 1)) then
    return report.fail("policy.affinity must be { name, attributes, expires? }")
  end
  for _, flag in ipairs({ "secure", "persistent", "change", "sameSiteNone" }) do
    if affinity[flag] ~= nil and affinity[flag] ~= true then return report.fail("policy.affinity." .. flag .. " must be true or absent") end
  end
  return true
end

local function check_proxy(policy, report)
  if policy.hash ~= nil and not check_list(policy.hash, "policy.hash", report, is_hash_part, "must hold { text|var, value }", true) then
    return false
  end
  if policy.tries ~= nil and not is_integer(policy.tries, 0, 100) then return report.fail("policy.tries must be 0-100") end
  if policy.retryTimeout ~= nil and not is_integer(policy.retryTimeout, 1, 86400) then
    return report.fail("policy.retryTimeout must be 1-86400 seconds")
  end
  if policy.subset ~= nil and (policy.hash == nil or not is_integer(policy.subset, 1, 999)) then
    return report.fail("policy.subset must be 1-999, with a hash")
  end
  if policy.balance ~= nil and policy.balance ~= "ewma" then return report.fail("policy.balance must be ewma") end
  if policy.connection ~= nil and (not is_string(policy.connection) or #policy.connection > 128
    or str_find(policy.connection, "[^%w%-, ]")) then
    return report.fail("policy.connection must be connection options")
  end
  for _, flag in ipairs({ "noLog", "satisfyAny" }) do
    if policy[flag] ~= nil and policy[flag] ~= true then return report.fail("policy." .. flag .. " must be true or absent") end
  end
  for _, name in ipairs({ "location", "cookieDomain", "cookiePath" }) do
    local pair = policy[name]
    if pair ~= nil and (not is_array(pair) or not is_string(pair[1]) or not is_string(pair[2])
      or str_find(pair[1], '[%z\1-\32\127";\\]') or str_find(pair[2], '[%z\1-\32\127";\\]')) then
      return report.fail("policy." .. name .. " must be { from, to }")
    end
  end
  return true
end

_M.check_members = check_members
_M.check_canary = check_canary
_M.check_networks = check_networks
_M.check_limits = check_limits
_M.check_global_limit = check_global_limit
_M.check_auth = check_auth
_M.check_digest_auth = check_digest_auth
_M.check_external_auth = check_external_auth
_M.check_affinity = check_affinity
_M.check_proxy = check_proxy

return _M
