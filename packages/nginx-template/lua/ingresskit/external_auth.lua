-- External authentication (ingress-nginx auth-url): before a forwarded request goes on, the
-- route's auth service is asked through the internal location AUTH_LOCATION, a subrequest
-- (rewrite phase) carrying the client's headers but never its body. The service's URL, Host,
-- method and X-Auth-Request-Redirect travel in nginx variables; nginx.conf holds none of them.
--
-- 2xx: the request goes on, with the answer's auth-response-headers set on it (a header the
-- answer lacks is removed, so a client cannot send its own) and its Set-Cookie passed to the
-- client. 401: the answer's WWW-Authenticate, or a 302 to the sign-in URL with the original URL.
-- 403: 403. Anything else, no answer, or a Lua error: 500. The route never opens on a failure.
--
-- The controller refuses auth URLs naming loopback, link-local or its own addresses, but a host
-- name is resolved by nginx per request and its owner may point it anywhere (DNS rebinding): an
-- answer from such an address is never used either, whatever it says (500).

local ngx = ngx
local ngx_var = ngx.var
local ngx_header = ngx.header
local req = ngx.req
local capture = ngx.location.capture
local escape_uri = ngx.escape_uri
local pcall = pcall
local tostring = tostring
local type = type
local str_find = string.find
local str_gsub = string.gsub
local str_match = string.match
local str_gmatch = string.gmatch
local str_lower = string.lower
local tonumber = tonumber
local conf = require("ingresskit.store").conf

local _M = {}

local AUTH_LOCATION = "/_ingresskit_external_auth"

-- The variables a sign-in URL may hold (checked by the controller and validate_policy.lua).
local SIGNIN_VARIABLES = {
  host = function() return ngx_var.host end,
  http_host = function() return ngx_var.http_host or "" end,
  scheme = function() return ngx_var.scheme end,
  request_uri = function() return ngx_var.request_uri end,
  escaped_request_uri = function() return escape_uri(ngx_var.request_uri) end,
}

local function fill_variable(name)
  local read = SIGNIN_VARIABLES[name]
  if read == nil then return nil end
  return read()
end

-- Where a 401 sends the client: the sign-in URL with its variables filled in and, as
-- ingress-nginx does, the original URL (its request URI escaped) in the redirect parameter.
local function signin_location(auth)
  local url = auth.signin
  if str_find(url, "$", 1, true) then url = str_gsub(url, "%$([%a_]+)", fill_variable) end
  local param = auth.param
  if param then
    local original = ngx_var.scheme .. "://" .. (ngx_var.http_host or ngx_var.host) .. escape_uri(ngx_var.request_uri)
    url = url .. (str_find(url, "?", 1, true) and "&" or "?") .. param .. "=" .. original
  end
  return url
end

-- loopback, link-local or unspecified for such an IPv4 or IPv6 address (as nginx prints them), else nil.
local function local_kind(address)
  local first, second = str_match(address, "^(%d+)%.(%d+)%.%d+%.%d+$")
  if first then
    first, second = tonumber(first), tonumber(second)
    if first == 127 then return "loopback" end
    if first == 169 and second == 254 then return "link-local" end
    if first == 0 then return "unspecified" end
    return nil
  end
  address = str_lower(address)
  local mapped = str_match(address, "^::ffff:(%d+%.%d+%.%d+%.%d+)$")
  if mapped then return local_kind(mapped) end
  if address == "::1" then return "loopback" end
  if address == "::" then return "unspecified" end
  if str_match(address, "^fe[89ab]%x:") then return "link-local" end
  return nil
end

-- Whether an auth service may answer from `peer` (`address:port` or `[address]:port`).
local function is_allowed_peer(peer)
  local address, port = str_match(peer, "^%[([%x:%.]+)%]:(%d+)$")
  if address == nil then address, port = str_match(peer, "^([%d%.]+):(%d+)$") end
  -- Unix sockets and anything unreadable: nothing a route may point at.
  if address == nil then return false end
  local kind = local_kind(address)
  if kind == nil then return true end
  return kind == "loopback" and conf.local_auth_peers and not conf.bind_ports[tonumber(port)]
end

-- Whether every address nginx tried ($upstream_addr: "a:1, b:2 : c:3") may answer.
local function are_allowed_peers(peers)
  if type(peers) ~= "string" or peers == "" then return false end
  for peer in str_gmatch(peers, "[^%s,]+") do
    if peer ~= ":" and not is_allowed_peer(peer) then return false end
  end
  return true
end

local function pass_cookie(answer)
  local cookie = answer.header["Set-Cookie"]
  if cookie ~= nil then ngx_header["Set-Cookie"] = cookie end
end

-- The status to end the request with, or nil when the service let it through.
local function ask(auth)
  local answer = capture(AUTH_LOCATION, {
    vars = {
      ingresskit_auth_url = auth.url,
      ingresskit_auth_host = auth.host,
      ingresskit_auth_method = auth.method,
      ingresskit_auth_redirect = auth.redirect or ngx_var.request_uri,
    },
  })
  local status = answer and answer.status
  if type(status) ~= "number" then
    ngx.log(ngx.ERR, "ingresskit: external auth subrequest gave no answer")
    return 500
  end
  local peers = answer.header["X-Ingresskit-Auth-Peer"]
  if not are_allowed_peers(peers) then
    ngx.log(ngx.ERR, "ingresskit: external auth answered from ", tostring(peers), ", where it may not; the request gets 500")
    return 500
  end
  if status >= 200 and status < 300 then
    local headers = auth.headers
    if headers then
      for index = 1, #headers do
        local name = headers[index]
        local value = answer.header[name]
        if value ~= nil then req.set_header(name, value) else req.clear_header(name) end
      end
    end
    pass_cookie(answer)
    return nil
  end
  if status == 401 then
    if auth.signin then
      -- ingress-nginx's sign-in location sends the service's cookie with its redirect.
      pass_cookie(answer)
      ngx_header["Location"] = signin_location(auth)
      return 302
    end
    local challenge = answer.header["WWW-Authenticate"]
    if challenge ~= nil then ngx_header["WWW-Authenticate"] = challenge end
    if auth.alwaysCookie then pass_cookie(answer) end
    return 401
  end
  if status == 403 then
    if auth.alwaysCookie then pass_cookie(answer) end
    return 403
  end
  ngx.log(ngx.WARN, "ingresskit: external auth service answered ", status, "; the request gets 500")
  return 500
end

-- Asks the service of `auth` (a route's policy.extAuth) about the current request: nil when it
-- may go on, else the status to answer (headers already set). Never raises: any error is 500.
function _M.check(auth)
  local ok, status = pcall(ask, auth)
  if not ok then
    ngx.log(ngx.ERR, "ingresskit: external auth failed: ", status)
    return 500
  end
  return status
end

return _M
