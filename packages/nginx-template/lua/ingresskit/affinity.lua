-- Cookie session affinity (ingress-nginx affinity: cookie). The router chooses the endpoint in
-- the rewrite phase, from the cookie when it names a current one; the balancer connects to it
-- ($ingresskit_peer, an index into the backend's peers) and, on a failure, either tries it
-- again or, with `change`, moves the session to the next endpoint. A new or moved session's
-- cookie value travels in $ingresskit_affinity to the response header filter, which sets it.
--
-- persistent: the cookie is a token of the endpoint itself (a hash of address:port).
-- balanced: the cookie is a random key; the endpoint is the one with the highest hash of key and
-- endpoint token (rendezvous hashing), so endpoints coming and going move only some sessions.
--
-- A session the route's canary serves has ".c" after its value (affinity-canary-behavior sticky,
-- see canary_affinity.lua): the cookie says which side it is pinned to, as ingress-nginx's
-- cookie names its backend.

local ngx = ngx
local ngx_var = ngx.var
local md5 = ngx.md5
local crc32 = ngx.crc32_long
local math_random = math.random
local str_sub = string.sub
local str_find = string.find
local str_format = string.format
local tonumber = tonumber
local type = type

local _M = {}

-- After the value of a session pinned to the canary.
local CANARY_MARK = ".c"

-- Whether the current request goes to the route's canary (the router records it).
local function on_canary()
  return ngx_var.ingresskit_affinity_canary == "1"
end

-- A cookie value as the key of a side's session: `value` without the canary's mark when it is
-- the canary's (`canary`), else nil.
local function key_of(value, canary)
  if value == nil then return nil end
  local marked = str_sub(value, -2) == CANARY_MARK
  if marked ~= (canary == true) then return nil end
  if marked then return str_sub(value, 1, -3) end
  return value
end

-- Which side the request's cookie pins it to: "canary", "main", or nil without a session cookie
-- of this gateway (16 hex digits, then the canary's mark or nothing).
function _M.pinned_side(affinity)
  local value = ngx_var[affinity.variable]
  if value == nil or str_find(str_sub(value, 1, 16), "[^0-9a-f]") then return nil end
  if #value == 16 then return "main" end
  if #value == 18 and str_sub(value, -2) == CANARY_MARK then return "canary" end
  return nil
end

local function peer_token(peer)
  local token = peer.token
  if token == nil then
    token = str_sub(md5(peer[1] .. ":" .. peer[2]), 1, 16)
    peer.token = token
  end
  return token
end

local function rendezvous(peers, key)
  local best, best_score = 1, -1
  for index = 1, #peers do
    local score = crc32(key .. peer_token(peers[index]))
    if score > best_score then best, best_score = index, score end
  end
  return best
end

-- Exposed for upstream-hash-by, which spreads its keys the same way.
_M.rendezvous = rendezvous

local function new_key()
  return str_format("%08x%08x", math_random(0, 0x7fffffff), math_random(0, 0x7fffffff))
end

local function next_round_robin(backend)
  local count = #backend.peers
  local index = backend.next
  if index > count then index = 1 end
  backend.next = index % count + 1
  return index
end

-- The cookie value that sends a session to peer `index`: its token, or (balanced) a key that
-- rendezvous hashing maps to it, when one is found among a few random tries.
local function value_for(affinity, peers, index)
  if affinity.persistent then return peer_token(peers[index]) end
  for _ = 1, 64 do
    local key = new_key()
    if rendezvous(peers, key) == index then return key end
  end
  return nil
end

-- Router, rewrite phase: pins the request to an endpoint of `backend`, of the canary with `canary`.
function _M.choose(affinity, backend, canary)
  local peers = backend.peers
  local value = key_of(ngx_var[affinity.variable], canary)
  local mark = canary and CANARY_MARK or ""
  local index
  if affinity.persistent then
    if value then
      for candidate = 1, #peers do
        if peer_token(peers[candidate]) == value then
          index = candidate
          break
        end
      end
    end
    if index == nil then
      index = next_round_robin(backend)
      ngx_var.ingresskit_affinity = peer_token(peers[index]) .. mark
    end
  elseif value and #value == 16 and not str_find(value, "[^0-9a-f]") then
    index = rendezvous(peers, value)
  else
    local key = new_key()
    index = rendezvous(peers, key)
    ngx_var.ingresskit_affinity = key .. mark
  end
  ngx_var.ingresskit_peer = index
end

-- Balancer: the pinned endpoint's index, moved on a failure when the route asks for it.
function _M.peer_index(affinity, backend, failed)
  local index = tonumber(ngx_var.ingresskit_peer)
  local peers = backend.peers
  if index == nil or index > #peers then return nil end
  if failed and affinity.change and #peers > 1 then
    index = index % #peers + 1
    ngx_var.ingresskit_peer = index
    local value = value_for(affinity, peers, index)
    if value then ngx_var.ingresskit_affinity = value .. (on_canary() and CANARY_MARK or "") end
  end
  return index
end

-- Clients that reject or mishandle SameSite=None, after Chromium's published list: iOS 12 (every
-- browser), Safari and embedded browsers of macOS 10.14, Chrome and Chromium 51 to 66, UC Browser
-- before 12.13.2.
local INCOMPATIBLE = {
  [[\(iP.+; CPU .*OS 12[_\d]*.*\) AppleWebKit/]],
  [[\(Macintosh;.*Mac OS X 10_14[_\d]*.*\) AppleWebKit/.*(Version/.* Safari/|\(KHTML, like Gecko\)$)]],
  [[Chrom(e|ium)/(5[1-9]|6[0-6])\.]],
  [[UCBrowser/(\d|1[01])\.|UCBrowser/12\.(\d|1[0-2])\.|UCBrowser/12\.13\.[01]([^\d]|$)]],
}

local function rejects_same_site_none(user_agent)
  if user_agent == nil then return false end
  for index = 1, #INCOMPATIBLE do
    if ngx.re.find(user_agent, INCOMPATIBLE[index], "jo") then return true end
  end
  return false
end

-- Header filter: the Set-Cookie of a new or moved session, added to the upstream's own.
function _M.set_cookie(affinity)
  local value = ngx_var.ingresskit_affinity
  if value == nil or value == "" then return end
  local cookie = affinity.name .. "=" .. value .. affinity.attributes
  if affinity.sameSiteNone and not rejects_same_site_none(ngx_var.http_user_agent) then
    cookie = cookie .. "; SameSite=None"
  end
  if affinity.expires then cookie = cookie .. "; Expires=" .. ngx.cookie_time(ngx.time() + affinity.expires) end
  if affinity.secure or ngx_var.https == "on" then cookie = cookie .. "; Secure" end
  local current = ngx.header["Set-Cookie"]
  if current == nil then
    ngx.header["Set-Cookie"] = cookie
  elseif type(current) == "table" then
    current[#current + 1] = cookie
    ngx.header["Set-Cookie"] = current
  else
    ngx.header["Set-Cookie"] = { current, cookie }
  end
end

return _M
