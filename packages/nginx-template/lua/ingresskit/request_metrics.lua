-- Request metrics: what ingress-nginx's nginx_ingress_controller_requests and its seven histograms
-- count, per route, status, method, backend and host.
--
-- The log phase of a request on a listener counts it in this worker's own table: no lock and no
-- shared memory per request. Once a second a timer adds the table to the shared dict
-- `ingresskit_metrics` and empties it. GET /metrics/requests on the control socket answers the
-- dict, read when Prometheus scrapes the controller, which names the labels (Ingress, Service,
-- path) from the route ids.
--
-- Which requests count is ingress-nginx's (--metrics-per-host, --metrics-per-undefined-host):
-- with the host label, only requests whose host is a hostname served (not a wildcard: clients
-- choose the host, and each would be a series) unless undefined hosts are asked for; without it,
-- every request. A request that matched no route counts under the empty route.
--
-- Series are kept as counters that only grow: a series is
-- `<route>\t<status>\t<method>\t<backend>\t<host>` (backend empty when the route has one, host
-- empty without the host label), and each of its numbers is `<field>\n<series>`, where `n` counts
-- requests, `<prefix><bucket index>` the observations of a histogram's bucket and `<prefix>s` their
-- sum. Buckets are not cumulative here; the controller adds them up.
--
-- One namespace cannot take the dict from the others: a series belongs to the namespace of its
-- route ("" for requests no route of a namespace answered), and a namespace may have at most
-- `series_per_namespace` of them (`#<namespace>` counts them). Nothing is ever evicted: numbers are
-- added with safe_add, so another namespace's series, however many, can never push a series out
-- and restart it from zero. A series that would pass its namespace's limit, or find the dict full,
-- is not created: its requests are counted as uncounted (`!<reason>\t<namespace>`, reason `l` for
-- the limit, `f` for a full dict). The limit is applied where a series is created, at a worker's
-- first flush of it; a request costs the same as without it.


local ngx = ngx
local ngx_var = ngx.var
local pairs = pairs
local ipairs = ipairs
local next = next
local tonumber = tonumber

local store = require("ingresskit.store")
-- hostname pattern -> entry; store changes it in place.
local served_hosts = store.hosts
local str_byte = string.byte
local str_format = string.format
local table_concat = table.concat

local _M = {}

-- ingress-nginx's default buckets (--time-buckets, --length-buckets, --size-buckets): Prometheus'
-- DefBuckets, LinearBuckets(10, 10, 10) and ExponentialBuckets(10, 10, 7); configure() may
-- replace them.
local DEFAULT_BUCKETS = {
  time = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 },
  length = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 },
  size = { 10, 100, 1000, 10000, 100000, 1000000, 10000000 },
}
-- Each histogram's field prefix in the answer, in the order of their places in a series' counts,
-- and the buckets it takes: request_duration_seconds ($request_time), response_duration_seconds
-- ($upstream_response_time), connect_duration_seconds ($upstream_connect_time),
-- header_duration_seconds ($upstream_header_time), request_size ($request_length),
-- response_size ($bytes_sent) and bytes_sent (deprecated by ingress-nginx: $bytes_sent again).
local PREFIXES = { "d", "u", "c", "h", "q", "r", "b" }
local KIND = { d = "time", u = "time", c = "time", h = "time", q = "length", r = "length", b = "size" }

-- How long a series of a worker may wait before it is added to the shared dict.
local FLUSH_SECONDS = 1

-- A client chooses the method: any other word is counted as OTHER, so that requests with made-up
-- methods cannot add series without end.
local METHODS = {
  GET = true, HEAD = true, POST = true, PUT = true, DELETE = true, CONNECT = true,
  OPTIONS = true, TRACE = true, PATCH = true,
}

-- Set by configure(). prefix -> bounds of each histogram counted (an excluded one is absent).
_M.HISTOGRAMS = {}
-- prefix -> offset of the histogram's first bucket in a series' counts.
_M.LAYOUT = {}
-- Each histogram counted as { offset, bounds, number of bounds }; nil when excluded (nor computed,
-- as ingress-nginx's --exclude-socket-metrics says).
local HD, HU, HC, HH, HQ, HR, HB
-- The length of a series' counts, and the field name of each of its places.
local SIZE
local FIELDS
-- --metrics-per-host and --metrics-per-undefined-host.
local per_host = true
local per_undefined_host = false
-- --max-series-per-namespace; 0: no limit.
local series_per_namespace = 1000
-- The `keys` of a series this worker could not create: its requests are counted as uncounted.
local REFUSED = {}

-- init_by_lua, once, before any request: `options` may set `buckets` (kind -> bounds, strictly
-- increasing), `per_host`, `per_undefined_host`, `excluded` (prefix -> true) and
-- `series_per_namespace`.
function _M.configure(options)
  options = options or {}
  local buckets = options.buckets or {}
  local excluded = options.excluded or {}
  local histograms, layout, fields = {}, {}, { "n" }
  local offset = 2
  local of = {}
  for _, prefix in ipairs(PREFIXES) do
    if not excluded[prefix] then
      local kind = KIND[prefix]
      local bounds = buckets[kind] or DEFAULT_BUCKETS[kind]
      local count = #bounds
      histograms[prefix] = bounds
      layout[prefix] = offset
      of[prefix] = { offset, bounds, count }
      for bucket = 1, count + 1 do fields[offset + bucket - 1] = prefix .. bucket end
      fields[offset + count + 1] = prefix .. "s"
      offset = offset + count + 2
    end
  end
  _M.HISTOGRAMS, _M.LAYOUT = histograms, layout
  HD, HU, HC, HH, HQ, HR, HB = of.d, of.u, of.c, of.h, of.q, of.r, of.b
  SIZE = offset - 1
  FIELDS = fields
  per_host = options.per_host ~= false
  per_undefined_host = options.per_undefined_host == true
  series_per_namespace = options.series_per_namespace or 1000
end

_M.configure()

-- This worker's counts since the last flush: route -> status -> method -> backend -> host ->
-- counts, where counts is an array: [1] requests, then per histogram its buckets (one more than
-- its bounds, for +Inf) and its sum, and `keys`, the series' dict keys once flushed. Nested
-- tables rather than one string key: no string is built per request.
local pending = {}

local function dict()
  return ngx.shared.ingresskit_metrics
end

local function new_counts()
  local counts = {}
  for index = 1, SIZE do counts[index] = 0 end
  return counts
end

-- Counts `value` into `histogram` ({ offset, bounds, count }): its bucket, then its sum.
local function observe(counts, histogram, value)
  local offset, buckets, count = histogram[1], histogram[2], histogram[3]
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

-- The host label of a request, or nil when it is not counted. A hostname served (exactly; "*"
-- starts only wildcard names) is the host. Any other is the client's word: counted only when
-- undefined hosts are asked for, escaped as route ids are (it is a field of the dict's keys).
local function host_of_request()
  if not per_host then return "" end
  local host = ngx_var.host or ""
  if served_hosts[host] ~= nil and str_byte(host, 1) ~= 42 then return host end
  if not per_undefined_host then return nil end
  return store.escape(host)
end

-- log_by_lua of every request. Written for LuaJIT's trace compiler (no pairs, no string
-- building): it runs for every request nginx serves.
function _M.record()
  local route = ngx_var.ingresskit_route or ""
  -- Without a route: a request on a listener the router found nothing for (not one of the
  -- control or auth socket's, which have no listener port).
  if route == "" and ngx_var.ingresskit_listener == "" then return end
  local host = host_of_request()
  if host == nil then return end
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
  local by_host = by_backend[backend]
  if by_host == nil then
    by_host = {}
    by_backend[backend] = by_host
  end
  local counts = by_host[host]
  if counts == nil then
    counts = new_counts()
    by_host[host] = counts
  end
  counts[1] = counts[1] + 1
  if HD then observe(counts, HD, ngx.now() - ngx.req.start_time()) end
  -- A retried request has a list of upstream times ("0.001, 0.002"): not a number, not counted,
  -- as ingress-nginx does (monitor.lua's tonumber). A request nginx answered itself has none.
  local upstream = tonumber(ngx_var.upstream_response_time)
  if upstream ~= nil then
    if HU then observe(counts, HU, upstream) end
    -- The other two upstream times exist only when the response time does (one proxied attempt).
    if HC then
      local connect = tonumber(ngx_var.upstream_connect_time)
      if connect ~= nil then observe(counts, HC, connect) end
    end
    if HH then
      local header = tonumber(ngx_var.upstream_header_time)
      if header ~= nil then observe(counts, HH, header) end
    end
  end
  if HQ then
    local request_length = tonumber(ngx_var.request_length)
    if request_length ~= nil then observe(counts, HQ, request_length) end
  end
  if HR or HB then
    local bytes_sent = tonumber(ngx_var.bytes_sent)
    if bytes_sent ~= nil then
      if HR then observe(counts, HR, bytes_sent) end
      if HB then observe(counts, HB, bytes_sent) end
    end
  end
end

-- Adds `value` to the number `key`, creating it when absent without ever evicting another: the
-- new number, or nil and "no memory" when the dict is full.
local function add(shared, key, value)
  local sum, err = shared:incr(key, value)
  if err == "not found" then
    local ok
    ok, err = shared:safe_add(key, value)
    if ok then return value end
    -- Another worker created it meanwhile.
    if err == "exists" then sum, err = shared:incr(key, value) end
  end
  return sum, err
end

-- The namespace a series of `route` counts in: its route's, "" for requests no namespace's route
-- answered; nil when the route is no longer served (nobody names its series any more).
local function namespace_of(route)
  if route == "" then return "" end
  local served = store.routes_by_id[route]
  if served == nil then return nil end
  local origin = served.origin
  return origin and origin[1] or ""
end

-- Creates the series whose request count is `count_key` unless it exists: nil when it may be
-- counted, else why not ("l": its namespace has series_per_namespace series; "f": the dict is full).
local function create_series(shared, namespace, count_key)
  if shared:get(count_key) ~= nil then return nil end
  local namespace_key = "#" .. namespace
  local series = add(shared, namespace_key, 1)
  if series == nil then return "f" end
  if series == 1 then
    -- A namespace's first series: its uncounted numbers are made now, while there is room, so
    -- that they can be added to once the dict is full (adding to a number allocates nothing).
    shared:safe_add("!l\t" .. namespace, 0)
    shared:safe_add("!f\t" .. namespace, 0)
  end
  if series_per_namespace > 0 and series > series_per_namespace then
    shared:incr(namespace_key, -1)
    return "l"
  end
  local ok, err = shared:safe_add(count_key, 0)
  if ok then return nil end
  shared:incr(namespace_key, -1)
  -- Another worker created it meanwhile: it was counted there.
  if err == "exists" then return nil end
  return "f"
end

-- Adds this worker's counts to the shared dict (keys
-- `<field>\n<route>\t<status>\t<method>\t<backend>\t<host>`) and zeroes them. The tables stay for
-- the next second (a busy route would otherwise allocate them again every second); a series that
-- saw no request since the last flush is dropped, so routes that are gone do not stay. A series
-- new to this worker is created first (create_series), within its namespace's limit; the requests
-- of one that cannot be are added up per namespace and reason as uncounted.
local function flush(premature)
  if premature then return end
  local shared = dict()
  local uncounted = nil
  for route, by_status in pairs(pending) do
    for status, by_method in pairs(by_status) do
      for method, by_backend in pairs(by_method) do
        for backend, by_host in pairs(by_backend) do
          for host, counts in pairs(by_host) do
            if counts[1] == 0 then
              by_host[host] = nil
            else
              -- A series' keys are built at its first flush and kept while it sees requests:
              -- building and interning them anew every second took a tenth of the flush.
              local keys = counts.keys
              local series
              if keys == nil then
                series = route .. "\t" .. status .. "\t" .. method .. "\t" .. backend .. "\t" .. host
                local namespace = namespace_of(route)
                local refused = namespace == nil and "gone"
                  or create_series(shared, namespace, FIELDS[1] .. "\n" .. series)
                if refused == nil then
                  keys = {}
                else
                  keys = REFUSED
                  counts.namespace = namespace
                  counts.reason = refused
                end
                counts.keys = keys
              end
              if keys == REFUSED then
                -- A route gone meanwhile is nobody's: its last requests are not reported.
                if counts.reason ~= "gone" then
                  uncounted = uncounted or {}
                  local key = "!" .. counts.reason .. "\t" .. counts.namespace
                  uncounted[key] = (uncounted[key] or 0) + counts[1]
                end
                for index = 1, SIZE do counts[index] = 0 end
              else
                for index = 1, SIZE do
                  local value = counts[index]
                  if value ~= 0 then
                    counts[index] = 0
                    local key = keys[index]
                    if key == nil then
                      series = series or (route .. "\t" .. status .. "\t" .. method .. "\t" .. backend .. "\t" .. host)
                      key = FIELDS[index] .. "\n" .. series
                      keys[index] = key
                    end
                    local _, err = add(shared, key, value)
                    if err then ngx.log(ngx.WARN, "ingresskit: request metrics: ", err) end
                  end
                end
              end
            end
          end
          if next(by_host) == nil then by_backend[backend] = nil end
        end
        if next(by_backend) == nil then by_method[method] = nil end
      end
      if next(by_method) == nil then by_status[status] = nil end
    end
    if next(by_status) == nil then pending[route] = nil end
  end
  if uncounted ~= nil then
    for key, value in pairs(uncounted) do
      local _, err = add(shared, key, value)
      if err then ngx.log(ngx.WARN, "ingresskit: request metrics: uncounted requests lost: ", err) end
    end
  end
end

-- init_worker_by_lua.
function _M.init_worker()
  local _, err = ngx.timer.every(FLUSH_SECONDS, flush)
  if err then ngx.log(ngx.ERR, "ingresskit: request metrics timer: ", err) end
end

-- A bound as the shortest text that reads back as the same double (%.14g, Lua's own, may not).
local function format_bound(bound)
  local text = str_format("%.15g", bound)
  if tonumber(text) ~= bound then text = str_format("%.17g", bound) end
  return text
end

-- GET /metrics/requests on the control socket: a first line with the buckets of each histogram
-- counted, then one line per number, `<field>\t<route>\t<status>\t<method>\t<backend>\t<host>\t<value>`,
-- and per namespace `#\t<namespace>\t<series>` and `!\t<reason>\t<namespace>\t<uncounted requests>`.
function _M.handle()
  local shared = dict()
  local header = {}
  for prefix, buckets in pairs(_M.HISTOGRAMS) do
    local bounds = {}
    for index, bound in ipairs(buckets) do bounds[index] = format_bound(bound) end
    header[#header + 1] = prefix .. "=" .. table_concat(bounds, ",")
  end
  local lines = { table_concat(header, " ") }
  -- 0: every key. The dict holds only these numbers, so its size bounds the answer.
  for _, key in ipairs(shared:get_keys(0)) do
    local value = shared:get(key)
    if value ~= nil then
      local first = str_byte(key, 1)
      if first == 35 or first == 33 then
        -- "#<namespace>" or "!<reason>\t<namespace>".
        lines[#lines + 1] = key:sub(1, 1) .. "\t" .. key:sub(2) .. "\t" .. value
      else
        local newline = key:find("\n", 1, true)
        lines[#lines + 1] = key:sub(1, newline - 1) .. "\t" .. key:sub(newline + 1) .. "\t" .. value
      end
    end
  end
  ngx.header["Content-Type"] = "text/plain"
  ngx.print(table_concat(lines, "\n"))
  return ngx.exit(ngx.HTTP_OK)
end

return _M
