-- Custom error pages (custom-http-errors): rewrite_by_lua of nginx.conf's error locations, one
-- per intercepted status. A profile location's error_page sends an intercepted answer there, and
-- the router sends a request whose backend has no endpoints. The route (still in
-- $ingresskit_route) names its error backends; the first with endpoints answers the request for
-- `/` with the route's headers (X-Namespace, X-Service-Name, ...), nginx.conf adds X-Code and the
-- others. Without one, 404: what ingress-nginx's built-in default backend answers.

local store = require("ingresskit.store")

local ngx = ngx
local ngx_var = ngx.var
local req = ngx.req

local _M = {}

-- The first of `ids` whose backend has endpoints, or nil.
local function first_with_endpoints(ids)
  local backends = store.backends
  for index = 1, #ids do
    local backend = backends[ids[index]]
    if backend ~= nil and backend.external == nil and #backend.peers > 0 then return ids[index] end
  end
  return nil
end

function _M.take()
  local route = store.routes_by_id[ngx_var.ingresskit_route]
  local errors = route and route.policy and route.policy.errors
  local id = errors and first_with_endpoints(errors.backends)
  if id == nil then return ngx.exit(404) end
  ngx_var.ingresskit_error_backend = id
  local headers = errors.headers
  if headers then
    for index = 1, #headers do req.set_header(headers[index][1], headers[index][2]) end
  end
  req.set_uri("/", false)
end

return _M
