-- Keep-alive connections to external auth services (auth-keepalive): a route's check goes
-- straight to the service over a cosocket from a pool of that route (nginx.conf's auth server
-- proxies with a connection per check). The pool keeps at most `size` idle connections per
-- worker, each for `timeout` idle seconds and `requests` checks, as ingress-nginx's upstream
-- keepalive, keepalive_timeout and keepalive_requests do.
--
-- The address: the URL's when its host is one, else the last one nginx resolved for the host and
-- external_auth.lua checked, for 30 seconds (the resolver's valid=); until then checks go through
-- the auth server. An answer says which address it came from, so the same rule judges it.

local ngx = ngx
local tostring = tostring
local tonumber = tonumber
local type = type
local str_find = string.find
local str_lower = string.lower
local str_match = string.match
local table_concat = table.concat

local _M = {}

-- How long a resolved address is used (nginx.conf's resolver valid=30s), and how many are kept.
local ADDRESS_SECONDS = 30
local MAX_ADDRESSES = 1000
-- The most of an answer's body read to keep its connection; a longer one closes it.
local MAX_SKIPPED_BODY = 65536
-- Checks tried over kept connections before one fails.
local MAX_TRIES = 3

-- "host:port" -> { address, expires }, per worker.
local learned = {}
local learned_count = 0

local function host_key(auth)
  return auth.host .. ":" .. auth.keepalive.port
end

-- Where the route's checks connect: an address, or nil while none is known (then through nginx).
function _M.address_of(auth)
  local keep = auth.keepalive
  if keep.address then return keep.address end
  local known = learned[host_key(auth)]
  if known and known.expires > ngx.now() then return known.address end
  return nil
end

-- Remembers the address an answer through nginx came from ($upstream_addr, already checked):
-- the last one tried, when it is an address on the URL's port.
function _M.learn(auth, peers)
  local keep = auth.keepalive
  if keep.address or type(peers) ~= "string" then return end
  local last = str_match(peers, "([^%s,]+)$")
  if last == nil then return end
  local address, port = str_match(last, "^%[([%x:%.]+)%]:(%d+)$")
  if address == nil then address, port = str_match(last, "^([%d%.]+):(%d+)$") end
  if address == nil or tonumber(port) ~= keep.port then return end
  if learned_count >= MAX_ADDRESSES then
    learned, learned_count = {}, 0
  end
  local key = host_key(auth)
  if learned[key] == nil then learned_count = learned_count + 1 end
  learned[key] = { address = address, expires = ngx.now() + ADDRESS_SECONDS }
end

-- Reads and drops the body of `answer`; whether the connection may carry another check.
local function skip_body(sock, answer, method)
  local status = answer.status
  if method == "HEAD" or status == 204 or status == 304 or status < 200 then return true end
  local header = answer.header
  local encoding = header["transfer-encoding"]
  if encoding ~= nil then
    if type(encoding) ~= "string" or str_lower(encoding) ~= "chunked" then return false end
    local total = 0
    while true do
      local line = sock:receive("*l")
      local size = line and tonumber(str_match(line, "^(%x+)"), 16)
      if size == nil then return false end
      total = total + size
      if total > MAX_SKIPPED_BODY then return false end
      if size == 0 then
        -- Trailers, up to the empty line.
        repeat line = sock:receive("*l") until line == nil or line == ""
        return line ~= nil
      end
      if not sock:receive(size) or sock:receive("*l") ~= "" then return false end
    end
  end
  local length = header["content-length"]
  -- Without a length the body ends with the connection.
  length = type(length) == "string" and tonumber(length) or nil
  if length == nil or length > MAX_SKIPPED_BODY then return false end
  return length == 0 or sock:receive(length) ~= nil
end

local function peer_of(address, port)
  if str_find(address, ":", 1, true) then return "[" .. address .. "]:" .. port end
  return address .. ":" .. port
end

-- One check over a pooled connection: the answer, or nil, why, and whether to try again (the
-- connection was a kept one, which a service may close at any time).
local function ask_once(auth, route_tag, address, headers, read_answer)
  local keep = auth.keepalive
  local sock = ngx.socket.tcp()
  sock:settimeouts(5000, 60000, 60000)
  local pool = table_concat({ "ingresskit_auth", route_tag, address, keep.port, keep.tls and auth.host or "" }, "|")
  local ok, err = sock:connect(address, keep.port, { pool = pool, pool_size = keep.size })
  if not ok then return nil, "cannot connect: " .. tostring(err), false end
  local reused = sock:getreusedtimes() or 0
  if keep.tls and reused == 0 then
    -- As nginx.conf's auth server: the host as the TLS name, the certificate not verified.
    local name = keep.address == nil and auth.host or nil
    ok, err = sock:sslhandshake(nil, name, false)
    if not ok then
      sock:close()
      return nil, "TLS handshake failed: " .. tostring(err), false
    end
  end
  local request = auth.method .. " " .. keep.path .. " HTTP/1.1\r\nHost: " .. auth.host .. "\r\nConnection: keep-alive\r\n" .. headers
  ok, err = sock:send(request)
  local answer
  if ok then answer, err = read_answer(sock) end
  if answer == nil then
    sock:close()
    -- A kept connection the service closed fails at once; a slow service is not asked again.
    return nil, err, reused > 0 and not str_find(tostring(err), "timeout", 1, true)
  end
  answer.header["x-ingresskit-auth-peer"] = peer_of(address, keep.port)
  -- HTTP/1.0 keeps a connection only when it says keep-alive, HTTP/1.1 unless it says close.
  local connection = answer.header["connection"]
  connection = type(connection) == "string" and str_lower(connection) or ""
  local keeps
  if answer.http10 then
    keeps = str_find(connection, "keep-alive", 1, true) ~= nil
  else
    keeps = not str_find(connection, "close", 1, true)
  end
  local reusable = keeps and skip_body(sock, answer, auth.method) and reused + 1 < keep.requests
  if reusable then
    sock:setkeepalive(keep.timeout * 1000, keep.size)
  else
    sock:close()
  end
  return answer
end

-- The service's answer to the check over a kept connection, with the header lines `headers`
-- (each ending with CRLF, then an empty line), or nil and why there is none. Its
-- X-Ingresskit-Auth-Peer says where it came from, whatever the service sent.
function _M.fetch(auth, route_tag, address, headers, read_answer)
  local answer, err, was_kept
  -- Kept connections the service closed meanwhile fail; a few are skipped before giving up.
  for _ = 1, MAX_TRIES do
    answer, err, was_kept = ask_once(auth, route_tag, address, headers, read_answer)
    if answer ~= nil or not was_kept then break end
  end
  return answer, err
end

return _M
