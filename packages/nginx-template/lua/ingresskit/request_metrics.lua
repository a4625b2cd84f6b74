-- Request metrics: what ingress-nginx's nginx_ingress_controller_requests and its histograms
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
-- `n` counts requests and `<metric>` + bucket index, `<metric>s` (sum) count observations of a
-- histogram. Buckets are not cumulative here; the controller adds them up.

local clear_tab = require("table.clear")

local ngx = ngx
local ngx_var = ngx.var
local pairs = pairs
local tonumber = tonumber

local _M = {}

-- ingress-nginx's default buckets (--time-buckets, --length-buckets): Prometheus' DefBuckets and
-- LinearBuckets(10, 10, 10).
_M.HISTOGRAMS = {
  -- field prefix -> { nginx variable, buckets }
  d = { variable = "request_time", buckets = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 } },
  u = {
    variable = "upstream_response_time",
    buckets = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 },
  },
  q = { variable = "request_length", buckets = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 } },
  r = { variable = "bytes_sent", buckets = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 } },
}
local HISTOGRAMS = _M.HISTOGRAMS

-- How long a series of a worker may wait before it is added to the shared dict.
local FLUSH_SECONDS = 1

-- A client chooses the method: any other word is counted as OTHER, so that requests with made-up
-- methods cannot add series without end.
local METHODS = {
  GET = true, HEAD = true, POST = true, PUT = true, DELETE = true, CONNECT = true,
  OPTIONS = true, TRACE = true, PATCH = true,
}

-- series -> { n = count, [field] = number } of this worker since the last flush
local pending = {}

local function dict()
  return ngx.shared.ingresskit_metrics
end

-- The index (1-based) of the first bucket `value` fits in; #buckets + 1 above the last.
local function bucket_of(buckets, value)
  for index = 1, #buckets do
    if value <= buckets[index] then return index end
  end
  return #buckets + 1
end

-- log_by_lua of every request.
function _M.record()
  local route = ngx_var.ingresskit_route
  if route == nil or route == "" then return end
  local backend = ngx_var.ingresskit_backend or ""
  local method = ngx_var.request_method
  if not METHODS[method] then method = "OTHER" end
  local series = route .. "\t" .. ngx_var.status .. "\t" .. method .. "\t" .. backend
  local counts = pending[series]
  if counts == nil then
    counts = { n = 0 }
    pending[series] = counts
  end
  counts.n = counts.n + 1
  for prefix, histogram in pairs(HISTOGRAMS) do
    -- A retried request has a list of upstream times ("0.001, 0.002"): not a number, not counted,
    -- as ingress-nginx does.
    local value = tonumber(ngx_var[histogram.variable])
    if value ~= nil then
      local field = prefix .. bucket_of(histogram.buckets, value)
      counts[field] = (counts[field] or 0) + 1
      local sum = prefix .. "s"
      counts[sum] = (counts[sum] or 0) + value
    end
  end
end

-- Adds this worker's counts to the shared dict. When the dict is full, the least recently used
-- numbers are evicted (incr's `init_ttl` path): a series may then restart from zero, which
-- Prometheus reads as a counter reset.
local function flush(premature)
  if premature then return end
  local shared = dict()
  for series, counts in pairs(pending) do
    for field, value in pairs(counts) do
      local _, err = shared:incr(field .. "\n" .. series, value, 0)
      if err then ngx.log(ngx.WARN, "ingresskit: request metrics: ", err) end
    end
  end
  clear_tab(pending)
end

-- init_worker_by_lua.
function _M.init_worker()
  local _, err = ngx.timer.every(FLUSH_SECONDS, flush)
  if err then ngx.log(ngx.ERR, "ingresskit: request metrics timer: ", err) end
end

-- GET /metrics/requests on the control socket: one line per number, `<field>\n<series>` written
-- as `<field>\t<series>\t<value>`, after a first line with the buckets of each histogram.
function _M.handle()
  local shared = dict()
  local lines = {}
  local header = {}
  for prefix, histogram in pairs(HISTOGRAMS) do
    header[#header + 1] = prefix .. "=" .. table.concat(histogram.buckets, ",")
  end
  lines[1] = table.concat(header, " ")
  -- 0: every key. The dict holds only these numbers, so its size bounds the answer.
  for _, key in pairs(shared:get_keys(0)) do
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
