-- Custom error pages (custom-http-errors): rewrite_by_lua of nginx.conf's error locations, one per
-- status nginx can intercept. error_page sends there nginx's own answers in profile locations and
-- body readers, and the backend's answers the hop location intercepts; the router sends a request
-- whose backend has no endpoints. The route (still in $ingresskit_route) says whether it wants the
-- status replaced: then its first error backend with endpoints answers the request for `/` with the
-- route's headers (X-Namespace, X-Service-Name, ...) and X-Code (@ingresskit_error), or, without
-- one, 404, what ingress-nginx's built-in default backend answers. Otherwise the answer is nginx's
-- own page of the status.

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

function _M.take(status)
  local route = store.routes_by_id[ngx_var.ingresskit_route]
  local errors = route and route.policy and route.policy.errors
  -- An error page's own answer is final (nginx does not look for another error page then).
  if errors == nil or not errors.intercepted[status] then return ngx.exit(status) end
  local id = first_with_endpoints(errors.backends)
  if id == nil then return ngx.exit(404) end
  ngx_var.ingresskit_error_backend = id
  ngx_var.ingresskit_error_code = status
  local headers = errors.headers
  if headers then
    for index = 1, #headers do req.set_header(headers[index][1], headers[index][2]) end
  end
  req.set_uri("/", false)
  return ngx.exec("@ingresskit_error")
end

return _M
