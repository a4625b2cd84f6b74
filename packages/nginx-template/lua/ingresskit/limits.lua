-- Per-client limits (ingress-nginx limit-connections, limit-rpm, limit-rps), counted in the
-- shared dict `ingresskit_limits` so every worker sees the same counts, per route scope (an
-- Ingress) and client address.
--
-- A rate is nginx's limit_req with `nodelay`: a client's excess (in thousandths of a request)
-- drains at the rate and grows by one request per accepted request; a request that would take
-- it over the burst is refused and not counted; a client without state starts at 0. Several
-- rates are all checked before any is charged, as nginx does. Concurrent requests are counted up
-- on admission and down in the log phase (release), through $ingresskit_limit_conn because
-- ngx.ctx does not survive the router's ngx.exec.

local networks = require("ingresskit.networks")

local ngx = ngx
local ngx_var = ngx.var
local ngx_now = ngx.now
local tonumber = tonumber
local str_match = string.match

local dict = ngx.shared.ingresskit_limits

local _M = {}

-- A rate is read, updated and written back; a lock per scope and client keeps another worker
-- from doing the same in between. Its holder never yields, so the wait is a few dict operations;
-- the lock expires on its own should its worker die holding it. Not getting it refuses the
-- request: a limit fails closed.
local LOCK_SECONDS = 0.01
local MAX_SPINS = 100000

local function lock(key)
  for _ = 1, MAX_SPINS do
    local ok, err = dict:add(key, true, LOCK_SECONDS)
    if ok then return true end
    if err ~= "exists" then
      ngx.log(ngx.ERR, "ingresskit: limits lock failed: ", err)
      return false
    end
  end
  ngx.log(ngx.ERR, "ingresskit: limits lock not obtained")
  return false
end

-- The excess after this request under `rate` ({ requests per second, burst }), or nil when the
-- request is over the burst. State: "<excess> <last accepted, ms>".
local function excess_after(key, rate, now)
  local state = dict:get(key)
  if state == nil then return 0 end
  local excess, last = str_match(state, "^(%S+) (%S+)$")
  excess, last = tonumber(excess), tonumber(last)
  if excess == nil or last == nil then return 0 end
  local elapsed = now - last
  if elapsed < 0 then elapsed = 0 end
  -- requests per second = thousandths of a request per millisecond.
  excess = excess - rate[1] * elapsed + 1000
  if excess < 0 then excess = 0 end
  if excess > rate[2] * 1000 then return nil end
  return excess
end

local function admit_rates(prefix, rates)
  local lock_key = "l" .. prefix
  if not lock(lock_key) then return false end
  local now = ngx_now() * 1000
  local count = #rates
  local excesses = {}
  for index = 1, count do
    local excess = excess_after("r" .. index .. prefix, rates[index], now)
    if excess == nil then
      dict:delete(lock_key)
      return false
    end
    excesses[index] = excess
  end
  local admitted = true
  for index = 1, count do
    local rate = rates[index]
    -- Kept until it has drained back to nothing, when no state means the same.
    local ttl = excesses[index] / (rate[1] * 1000) + 1
    local ok, err = dict:set("r" .. index .. prefix, excesses[index] .. " " .. now, ttl)
    if not ok then
      ngx.log(ngx.ERR, "ingresskit: limits state not stored: ", err)
      admitted = false
    end
  end
  dict:delete(lock_key)
  return admitted
end

-- nil when the request may go on, else the status to refuse it with. `exempt` are the parsed
-- exempt networks of the route, if any.
function _M.admit(limits, exempt)
  if exempt and networks.contains_client(exempt, false) then return nil end
  -- A client without an IP address (a unix socket) is one client.
  local prefix = limits.scope .. "\0" .. (ngx_var.binary_remote_addr or "")
  local conn = limits.conn
  if conn then
    local key = "c" .. prefix
    -- Named before it is counted, so that release always finds what was counted.
    ngx_var.ingresskit_limit_conn = key
    local count, err = dict:incr(key, 1, 0)
    if count == nil then
      ngx_var.ingresskit_limit_conn = ""
      ngx.log(ngx.ERR, "ingresskit: connection count failed: ", err)
      return limits.cstatus or limits.status
    end
    if count > conn then
      ngx_var.ingresskit_limit_conn = ""
      dict:incr(key, -1)
      return limits.cstatus or limits.status
    end
  end
  local rates = limits.rates
  if rates and not admit_rates(prefix, rates) then return limits.status end
  return nil
end

-- log_by_lua of every request: gives back the concurrent request it counted, if any.
function _M.release()
  local key = ngx_var.ingresskit_limit_conn
  if key ~= nil and key ~= "" then dict:incr(key, -1) end
end

return _M
