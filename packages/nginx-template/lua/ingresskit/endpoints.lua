-- How the balancer picks an endpoint when the route asks for more than round robin:
-- upstream-hash-by (rendezvous hashing of the key, or of a subset of endpoints the key picks)
-- and load-balance ewma (of two endpoints at random, the lower moving average of response time
-- weighted by requests in flight; kept per worker, as ingress-nginx keeps it per worker too).
-- A retry after a failure goes round robin (nil here).

local affinity = require("ingresskit.affinity")

local ngx = ngx
local ngx_var = ngx.var
local ngx_now = ngx.now
local math_random = math.random
local math_exp = math.exp
local math_ceil = math.ceil
local math_min = math.min
local tonumber = tonumber
local table_sort = table.sort
local table_concat = table.concat
local str_match = string.match

local _M = {}

-- The upstream-hash-by key of this request: text and variables, concatenated (the global rate
-- limit's key too).
local function hash_key(parts)
  local key = {}
  for position = 1, #parts do
    local part = parts[position]
    if part[1] == "text" then key[position] = part[2] else key[position] = ngx_var[part[2]] or "" end
  end
  return table_concat(key)
end

-- Peer indexes in the order of their addresses, made once per pushed backend.
local function stable_order(peers)
  local order = peers.order
  if order == nil then
    order = {}
    for index = 1, #peers do order[index] = index end
    table_sort(order, function(a, b)
      local pa, pb = peers[a], peers[b]
      if pa[1] ~= pb[1] then return pa[1] < pb[1] end
      return pa[2] < pb[2]
    end)
    peers.order = order
  end
  return order
end

local function subset_member(peers, key, size)
  local order = stable_order(peers)
  local groups = math_ceil(#peers / size)
  local best, best_score = 1, -1
  for group = 1, groups do
    local score = ngx.crc32_long(key .. "\0" .. group)
    if score > best_score then best, best_score = group, score end
  end
  local first = (best - 1) * size + 1
  return order[math_random(first, math_min(first + size - 1, #peers))]
end

-- Per-worker response time statistics by "address:port".
local stats = {}
local DECAY_SECONDS = 10

local function stat_of(key)
  local stat = stats[key]
  if stat == nil then
    stat = { ewma = 0, last = ngx_now(), inflight = 0 }
    stats[key] = stat
  end
  return stat
end

local function peer_key(peer)
  local key = peer.key
  if key == nil then
    key = peer[1] .. ":" .. peer[2]
    peer.key = key
  end
  return key
end

local function score(peer)
  local stat = stat_of(peer_key(peer))
  local ewma = stat.ewma * math_exp(-(ngx_now() - stat.last) / DECAY_SECONDS)
  return (ewma + 1) * (stat.inflight + 1)
end

local function pick_ewma(peers)
  local count = #peers
  if count == 1 then return 1 end
  local first = math_random(1, count)
  local second = math_random(1, count - 1)
  if second >= first then second = second + 1 end
  if score(peers[second]) < score(peers[first]) then return second end
  return first
end

-- The index of the endpoint for this request, or nil for round robin.
_M.hash_key = hash_key

function _M.choose(policy, peers, failed)
  if failed then return nil end
  local hash = policy.hash
  if hash then
    local key = hash_key(hash)
    local size = policy.subset
    if size and #peers > size then return subset_member(peers, key, size) end
    return affinity.rendezvous(peers, key)
  end
  if policy.balance == "ewma" then return pick_ewma(peers) end
  return nil
end

-- Balancer: counts a request in flight to `peer` of an ewma route, for the log phase to close.
function _M.track(peer)
  local key = peer_key(peer)
  local stat = stat_of(key)
  stat.inflight = stat.inflight + 1
  ngx_var.ingresskit_ewma = key
end

-- log_by_lua: the response time of a tracked request goes into its endpoint's moving average.
function _M.record()
  local key = ngx_var.ingresskit_ewma
  if key == nil or key == "" then return end
  local stat = stat_of(key)
  if stat.inflight > 0 then stat.inflight = stat.inflight - 1 end
  -- After retries the times are listed ("0.01, 0.20"): the last is the answering endpoint's.
  local seconds = tonumber(str_match(ngx_var.upstream_response_time or "", "([%d%.]+)%s*$") or "")
  if seconds == nil then return end
  local now = ngx_now()
  local weight = math_exp(-(now - stat.last) / DECAY_SECONDS)
  stat.ewma = stat.ewma * weight + seconds * 1000 * (1 - weight)
  stat.last = now
end

return _M
