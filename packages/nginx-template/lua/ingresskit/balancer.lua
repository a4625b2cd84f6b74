-- The one balancer behind every dynamic backend of an ingresskit nginx.
--
-- Each proxied location sets $ingresskit_backend to a backend name. access() runs first
-- (access_by_lua): it refreshes this worker's copy of the backends when the posted version
-- changed, and answers 503 when the backend has no endpoints, because a balancer phase can only
-- fail with 500/502. balance() (balancer_by_lua) then picks endpoints round-robin and allows a
-- retry on the next endpoint when a connection fails.

local cjson = require("cjson.safe")
local ngx_balancer = require("ngx.balancer")
local configuration = require("ingresskit.configuration")

local _M = {}

local MAX_TRIES = 3

-- name -> { endpoints = { {host, port}, ... }, next = index }
local backends = {}
local loaded_version = nil

-- set_current_peer parses its host like an upstream address, so IPv6 needs brackets.
local function to_peers(endpoints)
  local peers = {}
  for index, endpoint in ipairs(endpoints) do
    local host = endpoint.address
    if string.find(host, ":", 1, true) then
      host = "[" .. host .. "]"
    end
    peers[index] = { host = host, port = endpoint.port }
  end
  return peers
end

local function refresh()
  local version = configuration.get_backends_version()
  if version == loaded_version then
    return
  end
  local raw = configuration.get_backends()
  local payload = raw and cjson.decode(raw)
  local fresh = {}
  if type(payload) == "table" and type(payload.backends) == "table" then
    for _, backend in ipairs(payload.backends) do
      local previous = backends[backend.name]
      -- Keep the round-robin position so a refresh does not send a burst to the first endpoint.
      local next_index = previous and previous.next or 1
      if next_index > #backend.endpoints then
        next_index = 1
      end
      fresh[backend.name] = { endpoints = to_peers(backend.endpoints), next = next_index }
    end
  end
  backends = fresh
  loaded_version = version
end

-- access_by_lua (after allow/deny): refresh, then refuse early when nothing can serve.
function _M.access()
  local name = ngx.var.ingresskit_backend
  if name == nil or name == "" then
    return
  end
  refresh()
  local backend = backends[name]
  if backend == nil or #backend.endpoints == 0 then
    ngx.log(ngx.WARN, "ingresskit: no endpoints for backend ", name)
    return ngx.exit(ngx.HTTP_SERVICE_UNAVAILABLE)
  end
end

-- balancer_by_lua: choose the endpoint for this try.
function _M.balance()
  local name = ngx.var.ingresskit_backend
  local backend = backends[name]
  if backend == nil or #backend.endpoints == 0 then
    ngx.log(ngx.ERR, "ingresskit: backend vanished between rewrite and balance: ", name)
    return ngx.exit(ngx.ERROR)
  end
  local endpoints = backend.endpoints
  local ctx = ngx.ctx
  if not ctx.ingresskit_tried then
    ctx.ingresskit_tried = true
    local more = math.min(#endpoints, MAX_TRIES) - 1
    if more > 0 then
      ngx_balancer.set_more_tries(more)
    end
  end
  local index = backend.next
  if index > #endpoints then
    index = 1
  end
  backend.next = index % #endpoints + 1
  local endpoint = endpoints[index]
  local ok, err = ngx_balancer.set_current_peer(endpoint.host, endpoint.port)
  if not ok then
    ngx.log(ngx.ERR, "ingresskit: cannot use endpoint ", endpoint.host, ":", endpoint.port, ": ", err)
    return ngx.exit(ngx.ERROR)
  end
end

return _M
