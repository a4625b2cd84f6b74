-- External authentication (ingress-nginx auth-url): before a forwarded request goes on, the
-- route's auth service is asked (rewrite phase) through nginx.conf's auth server on a unix socket,
-- with a cosocket: subrequests are refused on HTTP/2. The check carries the client's headers but
-- never its body; the service's URL, Host and method travel as headers that server takes out,
-- so nginx.conf holds none of them, and nginx resolves, connects and proxies as for a backend.
--
-- 2xx: the request goes on, with the answer's auth-response-headers set on it (a header the
-- answer lacks is removed, so a client cannot send its own) and its Set-Cookie passed to the
-- client. 401: the answer's WWW-Authenticate, or a 302 to the sign-in URL with the original URL.
-- 403: 403. Anything else, no answer, or a Lua error: 500. The route never opens on a failure.
--
-- The controller refuses auth URLs naming loopback, link-local, cloud metadata or its own
-- addresses, but a host name is resolved by nginx per request and its owner may point it anywhere
-- (DNS rebinding): an answer from such an address is never used either, whatever it says (500).

local ngx = ngx
local ngx_var = ngx.var
local ngx_header = ngx.header
local req = ngx.req
local escape_uri = ngx.escape_uri
local pcall = pcall
local tostring = tostring
local type = type
local str_find = string.find
local str_gsub = string.gsub
local str_match = string.match
local str_gmatch = string.gmatch
local str_lower = string.lower
local str_sub = string.sub
local table_concat = table.concat
local pairs = pairs
local tonumber = tonumber
local conf = require("ingresskit.store").conf
local auth_keepalive = require("ingresskit.auth_keepalive")
local networks = require("ingresskit.networks")
local cjson = require("cjson.safe")
local md5 = ngx.md5
local auth_cache = ngx.shared.ingresskit_auth_cache

local _M = {}

-- Most header lines read from the auth server's answer (nginx's proxy buffer bounds their size).
local MAX_ANSWER_HEADERS = 200

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

-- The refused and own networks of conf as bytes, parsed on first use (conf is set in init_by_lua).
local peer_networks
local function get_peer_networks()
  if peer_networks == nil then
    peer_networks = { refused = networks.from_hex(conf.refused_peers), own = networks.from_hex(conf.own_peers) }
  end
  return peer_networks
end

-- Whether an auth service may answer from `peer` (`address:port` or `[address]:port`): as the
-- backend address policy says, never from a refused (cloud metadata) network, link-local or
-- unspecified address; from loopback and the pod's own addresses only with local peers allowed,
-- and never on a port of the gateway's own.
local function is_allowed_peer(peer)
  local address, port = str_match(peer, "^%[([%x:%.]+)%]:(%d+)$")
  if address == nil then address, port = str_match(peer, "^([%d%.]+):(%d+)$") end
  -- Unix sockets and anything unreadable: nothing a route may point at.
  if address == nil then return false end
  local bytes = networks.parse_address(address)
  if bytes == nil then return false end
  local rules = get_peer_networks()
  if networks.contains(rules.refused, bytes) then return false end
  local kind = local_kind(address)
  if kind == nil and networks.contains(rules.own, bytes) then kind = "own" end
  if kind == nil then return true end
  port = tonumber(port)
  return (kind == "loopback" or kind == "own") and conf.local_auth_peers
    and not conf.bind_ports[port] and not conf.own_ports[port]
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
  local cookie = answer.header["set-cookie"]
  if cookie ~= nil then ngx_header["Set-Cookie"] = cookie end
end

-- Client headers not passed to the service: hop-by-hop and body framing (the check has no
-- body), those set below, and the router's own.
local NOT_PASSED = {
  host = true, connection = true, ["keep-alive"] = true, te = true, upgrade = true, expect = true,
  ["content-length"] = true, ["transfer-encoding"] = true, ["proxy-connection"] = true,
  ["x-original-url"] = true, ["x-original-method"] = true, ["x-original-uri"] = true,
  ["x-scheme"] = true, ["x-auth-request-redirect"] = true, ["x-sent-from"] = true,
  ["x-real-ip"] = true, ["x-forwarded-for"] = true, ["x-request-id"] = true,
  -- nginx.conf's auth server sends none either (proxy_set_header X-Forwarded-Proto "").
  ["x-forwarded-proto"] = true,
}

local function add_header(lines, name, value)
  if type(value) == "table" then
    for index = 1, #value do lines[#lines + 1] = name .. ": " .. value[index] end
  else
    lines[#lines + 1] = name .. ": " .. value
  end
end

-- The check's header lines: the client's headers and what ingress-nginx adds (X-Original-*,
-- X-Scheme, X-Auth-Request-Redirect, X-Sent-From, X-Real-IP, X-Forwarded-For, X-Request-ID:
-- the backend's with auth-keepalive-share-vars, else nginx's id of the request).
local function add_check_headers(auth, lines)
  local headers = req.get_headers(200, true)
  -- auth-proxy-set-headers: the route's headers replace the client's of the same name.
  local set = auth.set
  local replaced = set and auth.set_names
  if set and replaced == nil then
    replaced = {}
    for index = 1, #set do replaced[str_lower(set[index][1])] = true end
    auth.set_names = replaced
  end
  for name, value in pairs(headers) do
    local lower = str_lower(name)
    if not NOT_PASSED[lower] and str_sub(lower, 1, 13) ~= "x-ingresskit-" and not (replaced and replaced[lower]) then
      add_header(lines, name, value)
    end
  end
  if set then
    for index = 1, #set do add_header(lines, set[index][1], set[index][2]) end
  end
  local request_uri = ngx_var.request_uri
  local scheme = ngx_var.scheme
  local remote_addr = ngx_var.remote_addr
  add_header(lines, "X-Original-URL", scheme .. "://" .. (ngx_var.http_host or ngx_var.host) .. request_uri)
  add_header(lines, "X-Original-Method", req.get_method())
  add_header(lines, "X-Original-URI", request_uri)
  add_header(lines, "X-Scheme", scheme)
  add_header(lines, "X-Auth-Request-Redirect", auth.redirect or request_uri)
  add_header(lines, "X-Sent-From", "nginx-ingress-controller")
  add_header(lines, "X-Real-IP", remote_addr)
  add_header(lines, "X-Forwarded-For", remote_addr)
  local keep = auth.keepalive
  add_header(lines, "X-Request-ID", keep and keep.shareRequestId and ngx_var.ingresskit_request_id or ngx_var.request_id)
  return table_concat(lines, "\r\n") .. "\r\n\r\n"
end

-- The check as an HTTP/1.1 request to the auth server of nginx.conf, with the target as
-- X-Ingresskit-Auth-* headers.
local function build_request(auth)
  local lines = { "GET /check HTTP/1.1", "Host: ingresskit-auth", "Connection: close" }
  add_header(lines, "X-Ingresskit-Auth-Url", auth.url)
  add_header(lines, "X-Ingresskit-Auth-Host", auth.host)
  add_header(lines, "X-Ingresskit-Auth-Method", auth.method)
  return add_check_headers(auth, lines)
end

-- The status and headers (lower-case names; repeated ones as a list) of the auth server's answer.
local function read_answer(sock)
  local line, err = sock:receive("*l")
  if not line then return nil, "no status line: " .. tostring(err) end
  local minor, code = str_match(line, "^HTTP/1%.([01]) (%d%d%d)")
  local status = tonumber(code)
  if status == nil then return nil, "not an HTTP status line" end
  local header = {}
  for _ = 1, MAX_ANSWER_HEADERS do
    line, err = sock:receive("*l")
    if not line then return nil, "headers cut short: " .. tostring(err) end
    if line == "" then return { status = status, header = header, http10 = minor == "0" or nil } end
    local name, value = str_match(line, "^([^:]+):%s*(.-)%s*$")
    if name then
      name = str_lower(name)
      local known = header[name]
      if known == nil then
        header[name] = value
      elseif type(known) == "table" then
        known[#known + 1] = value
      else
        header[name] = { known, value }
      end
    end
  end
  return nil, "too many headers"
end

-- The answer of the auth server for `auth` (of the route `route_tag`), or nil and why there is
-- none; straight from the service over a kept connection when auth-keepalive has an address.
local function fetch(auth, route_tag)
  local address = auth.keepalive and auth_keepalive.address_of(auth)
  if address then
    local answer, err = auth_keepalive.fetch(auth, route_tag, address, add_check_headers(auth, {}), read_answer)
    if answer then answer.direct = true end
    return answer, err
  end
  local sock = ngx.socket.tcp()
  -- nginx's own proxy timeouts end a slow service first (504, then 500 here).
  sock:settimeouts(5000, 60000, 180000)
  local ok, err = sock:connect(ngx_var.ingresskit_auth_socket)
  if not ok then return nil, "cannot connect to the auth server: " .. tostring(err) end
  ok, err = sock:send(build_request(auth))
  local answer
  if ok then answer, err = read_answer(sock) end
  sock:close()
  return answer, err
end

-- auth-cache-key: where this request's answer is kept. ingress-nginx keeps answers per server
-- and location; here per route (a service may answer differently per host or path), and per
-- service and method, so a changed auth-url never reuses the old one's answers.
local function cache_key(auth, route_tag)
  local parts = auth.cache.key
  local key = { route_tag, auth.url, auth.method }
  for position = 1, #parts do
    local part = parts[position]
    key[#key + 1] = part[1] == "text" and part[2] or (ngx_var[part[2]] or "")
  end
  -- Length-prefixed, so that parts cannot run into each other.
  for position = 1, #key do key[position] = #key[position] .. ":" .. key[position] end
  return md5(table_concat(key, "|"))
end

-- nginx's proxy cache keeps neither answers that set a cookie nor those Cache-Control forbids.
local function is_cacheable(answer)
  if answer.header["set-cookie"] ~= nil then return false end
  local control = answer.header["cache-control"]
  if type(control) == "table" then control = table_concat(control, ",") end
  return control == nil or not ngx.re.find(control, [[\b(?:no-store|no-cache|private)\b]], "joi")
end

-- Keeps what of an answer a later request needs: its status, the headers copied onto the request
-- and its challenge.
local function remember(auth, key, answer)
  local seconds = auth.cache.ttl[tostring(answer.status)]
  if seconds == nil or not is_cacheable(answer) then return end
  local header = { ["www-authenticate"] = answer.header["www-authenticate"] }
  local names = auth.headers
  if names then
    for index = 1, #names do
      local name = str_lower(names[index])
      header[name] = answer.header[name]
    end
  end
  local encoded = cjson.encode({ status = answer.status, header = header })
  -- A full dict drops the oldest answers; a failure to keep one only costs a later request.
  if encoded then auth_cache:set(key, encoded, seconds) end
end

local function recall(key)
  local encoded = auth_cache:get(key)
  if encoded == nil then return nil end
  local answer = cjson.decode(encoded)
  if type(answer) ~= "table" or type(answer.status) ~= "number" or type(answer.header) ~= "table" then return nil end
  return answer
end

-- The service's answer: kept, or asked for and checked (only answers from allowed addresses are
-- ever kept); nil and why when there is none to use.
local function answer_of(auth, route_tag)
  local key = auth.cache and cache_key(auth, route_tag)
  local answer = key and recall(key)
  if answer then return answer end
  local err
  answer, err = fetch(auth, route_tag)
  if answer == nil then return nil, "no answer: " .. tostring(err) end
  local peers = answer.header["x-ingresskit-auth-peer"]
  if not are_allowed_peers(peers) then
    return nil, "an answer from " .. tostring(peers) .. ", where it may not come from"
  end
  if auth.keepalive and not answer.direct then auth_keepalive.learn(auth, peers) end
  if key then remember(auth, key, answer) end
  return answer
end

-- The status to end the request with, or nil when the service let it through.
local function ask(auth, route_tag)
  local answer, err = answer_of(auth, route_tag)
  if answer == nil then
    ngx.log(ngx.ERR, "ingresskit: external auth failed with ", err, "; the request gets 500")
    return 500
  end
  local status = answer.status
  if status >= 200 and status < 300 then
    local headers = auth.headers
    if headers then
      for index = 1, #headers do
        local name = headers[index]
        local value = answer.header[str_lower(name)]
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
    local challenge = answer.header["www-authenticate"]
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

-- Asks the service of `auth` (the policy.extAuth of the route `route_tag`) about the current
-- request: nil when it may go on, else the status to answer (headers already set). Never
-- raises: a Lua error is 500 like any other failure.
function _M.check(auth, route_tag)
  local ok, result = pcall(ask, auth, route_tag)
  if not ok then
    ngx.log(ngx.ERR, "ingresskit: external auth failed: ", result)
    return 500
  end
  return result
end

-- Rewrite phase of the auth server's /check: the target the router sent, into the variables
-- proxy_pass, Host and proxy_method read; the headers that carried it do not go on.
function _M.take_target()
  local headers = req.get_headers(200)
  local url, host, method = headers["x-ingresskit-auth-url"], headers["x-ingresskit-auth-host"], headers["x-ingresskit-auth-method"]
  if type(url) ~= "string" or type(host) ~= "string" or type(method) ~= "string" then return ngx.exit(500) end
  ngx_var.ingresskit_auth_url = url
  ngx_var.ingresskit_auth_host = host
  ngx_var.ingresskit_auth_method = method
  req.clear_header("X-Ingresskit-Auth-Url")
  req.clear_header("X-Ingresskit-Auth-Host")
  req.clear_header("X-Ingresskit-Auth-Method")
end

return _M
