-- The hop of routes with custom error pages (see HOP_LOCATION_PARTIAL in nginx-conf-template.ts).
--
-- nginx decides per location and status which backend answers it intercepts, and a route's
-- statuses are tenant data, so no location can intercept exactly a route's statuses. The hop
-- location intercepts every status and proxies to the hop server, a server of this same nginx on
-- a unix socket; there `enter` takes the router's choices back out of the hop headers and execs
-- into the route's profile location, whose `filter` hands back the answers the route does not
-- replace as 200 with X-Ingresskit-Status. The hop location's `restore` gives them their status
-- again after nginx decided not to intercept them; the others reach the route's error pages.

local store = require("ingresskit.store")
local router = require("ingresskit.router")
local endpoints = require("ingresskit.endpoints")

local ngx = ngx
local ngx_var = ngx.var
local ngx_header = ngx.header
local tonumber = tonumber

local routes_by_id = store.routes_by_id

local _M = {}

-- A hop header's value into the variable the router set it from; an empty one was never sent.
local function take(header, variable)
  local value = ngx_var[header]
  if value ~= nil and value ~= "" then ngx_var[variable] = value end
end

-- rewrite_by_lua of the hop server's `location /`.
function _M.enter()
  if not store.sync() then return ngx.exit(503) end
  local tag = ngx_var.http_x_ingresskit_route
  local route = tag and routes_by_id[tag]
  -- A push between the two servers took the route away.
  if route == nil or route.location == nil then return ngx.exit(503) end
  ngx_var.ingresskit_route = tag
  take("http_x_ingresskit_backend", "ingresskit_backend")
  take("http_x_ingresskit_target", "ingresskit_target")
  take("http_x_ingresskit_ssl_name", "ingresskit_backend_ssl_name")
  take("http_x_ingresskit_peer", "ingresskit_peer")
  take("http_x_ingresskit_affinity", "ingresskit_affinity")
  take("http_x_ingresskit_canary", "ingresskit_affinity_canary")
  if route.mirror then
    ngx_var.ingresskit_mirror = route.mirror
    return ngx.exec(route.location_mirrored)
  end
  return ngx.exec(route.location)
end

-- header_filter_by_lua of the hop server's profile locations.
function _M.filter()
  local route = routes_by_id[ngx_var.ingresskit_route]
  local errors = route and route.policy and route.policy.errors
  local status = ngx.status
  if status >= 400 and not (errors and errors.intercepted[status]) then
    ngx_header["X-Ingresskit-Status"] = status
    ngx.status = 200
  end
  -- A failure may have moved the session to another endpoint: the hop location sets the cookie.
  local affinity = ngx_var.ingresskit_affinity
  if affinity ~= nil and affinity ~= "" then ngx_header["X-Ingresskit-Affinity"] = affinity end
end

-- log_by_lua of the hop server: the balancer's bookkeeping only; the hop location counts the request.
function _M.after_request()
  endpoints.record()
end

-- header_filter_by_lua of the hop location: the status the hop server handed back, then the
-- route's response headers as in every profile location.
function _M.restore()
  local status = tonumber(ngx_header["X-Ingresskit-Status"])
  if status then
    if status >= 400 and status <= 599 then ngx.status = status end
    ngx_header["X-Ingresskit-Status"] = nil
  end
  local affinity = ngx_header["X-Ingresskit-Affinity"]
  if affinity then
    ngx_var.ingresskit_affinity = affinity
    ngx_header["X-Ingresskit-Affinity"] = nil
  end
  router.filter_response_headers()
end

return _M
