-- Request metrics: what ingress-nginx's nginx_ingress_controller_requests and its seven histograms
-- count, per route, status, method and backend.
--
-- The log phase of a routed request counts it in this worker's own table: no lock and no shared
-- memory per request. Once a second a timer adds the table to the shared dict
-- `ingresskit_metrics` and empties it. GET /metrics/requests on the control socket answers the
-- dict, read when Prometheus scrapes the controller, which names the labels (Ingress, Service,
-- path, host) from the route ids. Requests that matched no route are not counted.
--
-- Series are kept as counters that only grow: a series is `<route>\t<status>\t<method>\t<backend>`
-- (backend empty when the route has one), and each of its numbers is `<field>\n<series>`, where
-- `n` counts requests, `<prefix><bucket index>` the observations of a histogram's bucket and
-- `<prefix>s` their sum. Buckets are not cumulative here; the controller adds them up.


local ngx = ngx
local ngx_var = ngx.var
local pairs = pairs
local ipairs = ipairs
local next = next
local tonumber = tonumber

local _M = {}

-- ingress-nginx's default buckets (--time-buckets, --length-buckets, --size-buckets): Prometheus'
-- DefBuckets, LinearBuckets(10, 10, 10) and ExponentialBuckets(10, 10, 7). A field prefix names
-- each histogram in the answer.
local TIME_BUCKETS = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 }
local LENGTH_BUCKETS = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 }
local SIZE_BUCKETS = { 10, 100, 1000, 10000, 100000, 1000000, 10000000 }
_M.HISTOGRAMS = {
  d = TIME_BUCKETS,   -- request_duration_seconds: $request_time
  u = TIME_BUCKETS,   -- response_duration_seconds: $upstream_response_time
  c = TIME_BUCKETS,   -- connect_duration_seconds: $upstream_connect_time
  h = TIME_BUCKETS,   -- header_duration_seconds: $upstream_header_time
  q = LENGTH_BUCKETS, -- request_size: $request_length
  r = LENGTH_BUCKETS, -- response_size: $bytes_sent
  b = SIZE_BUCKETS,   -- bytes_sent (deprecated by ingress-nginx): $bytes_sent again
}
local TIME_COUNT = #TIME_BUCKETS
local LENGTH_COUNT = #LENGTH_BUCKETS
local SIZE_COUNT = #SIZE_BUCKETS

-- How long a series of a worker may wait before it is added to the shared dict.
local FLUSH_SECONDS = 1

-- A client chooses the method: any other word is counted as OTHER, so that requests with made-up
-- methods cannot add series without end.
local METHODS = {
  GET = true, HEAD = true, POST = true, PUT = true, DELETE = true, CONNECT = true,
  OPTIONS = true, TRACE = true, PATCH = true,
}

-- This worker's counts since the last flush: route -> status -> method -> backend -> counts, where
-- counts is an array: [1] requests, then per histogram its buckets (one more than its bounds,
-- for +Inf) and its sum. Nested tables rather than one string key: no string is built per request.
local pending = {}
-- A histogram of `count` bounds at offset o takes o .. o + count (buckets) and o + count + 1 (sum).
local D = 2
local U = D + TIME_COUNT + 2
local C = U + TIME_COUNT + 2
local H = C + TIME_COUNT + 2
local Q = H + TIME_COUNT + 2
local R = Q + LENGTH_COUNT + 2
local B = R + LENGTH_COUNT + 2
local SIZE = B + SIZE_COUNT + 1
_M.LAYOUT = { d = D, u = U, c = C, h = H, q = Q, r = R, b = B }

local function dict()
  return ngx.shared.ingresskit_metrics
end

local function new_counts()
  local counts = {}
  for index = 1, SIZE do counts[index] = 0 end
  return counts
end

-- Counts `value` into the histogram at `offset` (its buckets, then its sum after `count` + 1).
local function observe(counts, offset, buckets, count, value)
  local index = count + 1
  for bucket = 1, count do
    if value <= buckets[bucket] then
      index = bucket
      break
    end
  end
  counts[offset + index - 1] = counts[offset + index - 1] + 1
  counts[offset + count + 1] = counts[offset + count + 1] + value
end

-- log_by_lua of every request. Written for LuaJIT's trace compiler (no pairs, no string
-- building): it runs for every request nginx serves.
function _M.record()
  local route = ngx_var.ingresskit_route
  if route == nil or route == "" then return end
  local by_status = pending[route]
  if by_status == nil then
    by_status = {}
    pending[route] = by_status
  end
  local status = ngx.status
  local by_method = by_status[status]
  if by_method == nil then
    by_method = {}
    by_status[status] = by_method
  end
  local method = ngx.req.get_method()
  if not METHODS[method] then method = "OTHER" end
  local by_backend = by_method[method]
  if by_backend == nil then
    by_backend = {}
    by_method[method] = by_backend
  end
  local backend = ngx_var.ingresskit_backend or ""
  local counts = by_backend[backend]
  if counts == nil then
    counts = new_counts()
    by_backend[backend] = counts
  end
  counts[1] = counts[1] + 1
  observe(counts, D, TIME_BUCKETS, TIME_COUNT, ngx.now() - ngx.req.start_time())
  -- A retried request has a list of upstream times ("0.001, 0.002"): not a number, not counted,
  -- as ingress-nginx does (monitor.lua's tonumber). A request nginx answered itself has none.
  local upstream = tonumber(ngx_var.upstream_response_time)
  if upstream ~= nil then
    observe(counts, U, TIME_BUCKETS, TIME_COUNT, upstream)
    -- The other two upstream times exist only when the response time does (one proxied attempt).
    local connect = tonumber(ngx_var.upstream_connect_time)
    if connect ~= nil then observe(counts, C, TIME_BUCKETS, TIME_COUNT, connect) end
    local header = tonumber(ngx_var.upstream_header_time)
    if header ~= nil then observe(counts, H, TIME_BUCKETS, TIME_COUNT, header) end
  end
  local request_length = tonumber(ngx_var.request_length)
  if request_length ~= nil then observe(counts, Q, LENGTH_BUCKETS, LENGTH_COUNT, request_length) end
  local bytes_sent = tonumber(ngx_var.bytes_sent)
  if bytes_sent ~= nil then
    observe(counts, R, LENGTH_BUCKETS, LENGTH_COUNT, bytes_sent)
    observe(counts, B, SIZE_BUCKETS, SIZE_COUNT, bytes_sent)
  end
end

-- The fields of a series' numbers in the dict: `n` requests, `<prefix><bucket>` and `<prefix>s`.
local FIELDS = { "n" }
for prefix, offset in pairs(_M.LAYOUT) do
  local count = #_M.HISTOGRAMS[prefix]
  for bucket = 1, count + 1 do FIELDS[offset + bucket - 1] = prefix .. bucket end
  FIELDS[offset + count + 1] = prefix .. "s"
end

-- Adds this worker's counts to the shared dict (keys `<field>\n<route>\t<status>\t<method>\t<backend>`)
-- and zeroes them. The tables stay for the next second (a busy route would otherwise allocate them
-- again every second); a series that saw no request since the last flush is dropped, so routes
-- that are gone do not stay. When the dict is full, the least recently used numbers are evicted
-- (incr's init path): a series may then restart from zero, which Prometheus reads as a reset.
local function flush(premature)
  if premature then return end
  local shared = dict()
  for route, by_status in pairs(pending) do
    for status, by_method in pairs(by_status) do
      for method, by_backend in pairs(by_method) do
        for backend, counts in pairs(by_backend) do
          if counts[1] == 0 then
            by_backend[backend] = nil
          else
            local series = route .. "\t" .. status .. "\t" .. method .. "\t" .. backend
            for index = 1, SIZE do
              local value = counts[index]
              if value ~= 0 then
                counts[index] = 0
                local _, err = shared:incr(FIELDS[index] .. "\n" .. series, value, 0)
                if err then ngx.log(ngx.WARN, "ingresskit: request metrics: ", err) end
              end
            end
          end
        end
        if next(by_backend) == nil then by_method[method] = nil end
      end
      if next(by_method) == nil then by_status[status] = nil end
    end
    if next(by_status) == nil then pending[route] = nil end
  end
end

-- init_worker_by_lua.
function _M.init_worker()
  local _, err = ngx.timer.every(FLUSH_SECONDS, flush)
  if err then ngx.log(ngx.ERR, "ingresskit: request metrics timer: ", err) end
end

-- GET /metrics/requests on the control socket: a first line with the buckets of each histogram,
-- then one line per number, `<field>\t<route>\t<status>\t<method>\t<backend>\t<value>`.
function _M.handle()
  local shared = dict()
  local header = {}
  for prefix, buckets in pairs(_M.HISTOGRAMS) do
    header[#header + 1] = prefix .. "=" .. table.concat(buckets, ",")
  end
  local lines = { table.concat(header, " ") }
  -- 0: every key. The dict holds only these numbers, so its size bounds the answer.
  for _, key in ipairs(shared:get_keys(0)) do
    local value = shared:get(key)
    if value ~= nil then
      local newline = key:find("\n", 1, true)
      lines[#lines + 1] = key:sub(1, newline - 1) .. "\t" .. key:sub(newline + 1) .. "\t" .. value
    end
  end
  ngx.header["Content-Type"] = "text/plain"
  ngx.print(table.concat(lines, "\n"))
  return ngx.exit(ngx.HTTP_OK)
end

return _M
