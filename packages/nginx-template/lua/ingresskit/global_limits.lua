-- Global rate limits (ingress-nginx global-rate-limit): requests per key and window counted in a
-- memcached every replica shares, so the limit holds for the whole fleet, not per nginx.
--
-- A sliding window, as lua-resty-global-throttle's: the count of the current window (windows are
-- aligned to the epoch) plus the previous window's count weighted by the share of it still inside
-- the last `window` seconds. A request is counted first (incr, atomic in memcached) and, when the
-- estimate is then over the limit, refused and counted back (decr): concurrent requests can only
-- be refused too many, never admitted too many. Unlike ingress-nginx, which fails open, a request
-- whose count cannot be had is refused with 503: a limit fails closed.

local networks = require("ingresskit.networks")
local memcached = require("ingresskit.memcached")
local endpoints = require("ingresskit.endpoints")

local ngx = ngx
local ngx_now = ngx.now
local ngx_md5 = ngx.md5
local math_floor = math.floor
local key_value = endpoints.hash_key

local _M = {}

-- The answer when memcached cannot be asked: the request may not pass unlimited. 503, not the
-- limit's status (429): the client did nothing wrong and may retry at once, and monitoring counts
-- it as the outage it is.
local UNAVAILABLE = 503

local function fail(sock, store, err)
  if sock then sock:close() end
  ngx.log(ngx.ERR, "ingresskit: global rate limit store ", store[1], ":", store[2], " failed: ", err)
  return UNAVAILABLE
end

-- nil when the request may go on, else the status to refuse it with. `exempt` are the parsed
-- exempt networks of the route, if any. Yields (a memcached round trip or two).
function _M.admit(limit, exempt)
  if exempt and networks.contains_client(exempt, false) then return nil end
  local store = limit.store
  local window = limit.window
  local now = ngx_now()
  local id = math_floor(now / window)
  -- memcached keys are at most 250 bytes without spaces: the scope and key are hashed. The scope
  -- is length-prefixed so that scope and key cannot run into each other; the window is named so
  -- that counts of another window length are never read as this one's.
  local base = "ik:" .. ngx_md5(#limit.scope .. ":" .. limit.scope .. key_value(limit.key)) .. ":" .. window .. ":"
  local current, previous = base .. id, base .. (id - 1)
  local sock, err = memcached.connect(store)
  if sock == nil then return fail(nil, store, err) end
  local count, last
  count, last, err = memcached.incr_and_get(sock, current, previous)
  if count == nil then return fail(sock, store, err) end
  if count == false then
    -- First request of the window here: the count lives two windows (the next one weighs it).
    local added
    added, err = memcached.add_one(sock, current, 2 * window)
    if added == nil then return fail(sock, store, err) end
    if added then
      count = 1
    else
      -- Another request added it in between.
      count, err = memcached.incr(sock, current)
      if not count then return fail(sock, store, err or "count vanished") end
    end
  end
  local overlap = (window - (now - id * window)) / window
  if last * overlap + count > limit.limit then
    -- Refused requests are not counted (as nginx's limit_req); should this not get there, the
    -- count only errs on the safe side.
    if memcached.decr_noreply(sock, current) then memcached.keep(sock, store) else sock:close() end
    return limit.status
  end
  memcached.keep(sock, store)
  return nil
end

return _M
