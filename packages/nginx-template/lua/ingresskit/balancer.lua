-- balancer_by_lua of the one upstream every balanced request goes through.
--
-- The router put the route's tag in $ingresskit_route and, when the route splits traffic, the
-- chosen backend's id in $ingresskit_backend. Endpoints are taken round
-- robin; when a connection fails nginx retries on the next one (up to 3 tries). The upstream
-- block's `keepalive` keeps idle connections to every peer chosen here.

local ngx_balancer = require("ngx.balancer")
local store = require("ingresskit.store")
local affinity = require("ingresskit.affinity")
local endpoints = require("ingresskit.endpoints")
local relay_address = require("ingresskit.relay").address

local ngx = ngx
local ngx_var = ngx.var
local math_min = math.min

local backends = store.backends
local routes_by_id = store.routes_by_id

local _M = {}

local MAX_TRIES = 3
-- Where a retry past the route's time limit goes: nowhere, so nginx ends the request with 502.
local NO_PEER = "unix:/nonexistent/ingresskit-retry-timeout"

-- Round robin over the `count` endpoints of `backend` (per worker): the index whose turn it is.
local function next_in_turn(backend, count)
  local index = backend.next
  if index > count then index = 1 end
  backend.next = index % count + 1
  return index
end

-- Connects the request to `peer` ({ address, port }), through the TLS relay's socket for it
-- when the route has a `relay`; a peer nginx cannot take ends it.
local function use_peer(peer, relay)
  local ok, err
  if relay then
    ok, err = ngx_balancer.set_current_peer(relay_address(relay, peer))
  else
    ok, err = ngx_balancer.set_current_peer(peer[1], peer[2])
  end
  if not ok then
    ngx.log(ngx.ERR, "ingresskit: cannot use endpoint ", peer[1], ":", peer[2], ": ", err)
    return ngx.exit(ngx.ERROR)
  end
end

function _M.balance()
  -- Each variable read costs; the route alone names the backend when it has just one.
  local route = routes_by_id[ngx_var.ingresskit_route]
  local id = route and route.only_backend or ngx_var.ingresskit_backend
  local backend = backends[id]
  local peers = backend and backend.peers
  if peers == nil or #peers == 0 then
    -- A push removed the backend between this request's rewrite and balancer phases.
    ngx.log(ngx.ERR, "ingresskit: backend ", store.escape(id or ""), " has no endpoints any more")
    return ngx.exit(ngx.ERROR)
  end
  local count = #peers
  local timeouts = route and route.policy and route.policy.timeouts
  -- On the first try (no failure yet), once: retries over the other endpoints and the route's
  -- timeouts. get_last_failure costs a request lookup, so it is asked only when there is work.
  local policy = route and route.policy
  if (count > 1 or timeouts) and ngx_balancer.get_last_failure() == nil then
    if count > 1 then
      local tries = policy and policy.tries or MAX_TRIES
      if tries == 0 then tries = count end
      if tries > 1 then ngx_balancer.set_more_tries(math_min(count, tries) - 1) end
    end
    if timeouts then
      local connect, send, read = timeouts[1], timeouts[2], timeouts[3]
      local ok, err = ngx_balancer.set_timeouts(connect > 0 and connect or nil, send > 0 and send or nil, read > 0 and read or nil)
      if not ok then ngx.log(ngx.ERR, "ingresskit: cannot set timeouts of route ", route.tag, ": ", err) end
    end
  end
  -- proxy-next-upstream-timeout: nginx.conf holds no route's limit, so a retry after it fails.
  local retry_timeout = policy and policy.retryTimeout
  if retry_timeout and ngx_balancer.get_last_failure() ~= nil
    and ngx.now() - ngx.req.start_time() >= retry_timeout then
    return ngx_balancer.set_current_peer(NO_PEER)
  end
  local sticky = policy and policy.affinity
  local index = sticky and affinity.peer_index(sticky, backend, ngx_balancer.get_last_failure() ~= nil)
  if index == nil and policy and (policy.hash or policy.balance) then
    index = endpoints.choose(policy, peers, ngx_balancer.get_last_failure() ~= nil)
  end
  if index == nil then index = next_in_turn(backend, count) end
  local peer = peers[index]
  if policy and policy.balance == "ewma" then endpoints.track(peer) end
  return use_peer(peer, policy and policy.relay)
end

-- balancer_by_lua of the upstream of mirrored copies: an endpoint of the backend the router put
-- in $ingresskit_mirror (the copy is a subrequest, which shares the request's variables), round
-- robin, one try: a copy that fails is only a lost copy.
function _M.balance_mirror()
  local id = ngx_var.ingresskit_mirror
  local backend = backends[id]
  local peers = backend and backend.peers
  if peers == nil or #peers == 0 then return ngx.exit(ngx.ERROR) end
  return use_peer(peers[next_in_turn(backend, #peers)])
end

-- balancer_by_lua of the upstream of custom error pages: an endpoint of the error backend the
-- error location put in $ingresskit_error_backend, round robin, tried on up to 3 endpoints.
function _M.balance_error()
  local backend = backends[ngx_var.ingresskit_error_backend]
  local peers = backend and backend.peers
  if peers == nil or #peers == 0 then return ngx.exit(ngx.ERROR) end
  local count = #peers
  if count > 1 and ngx_balancer.get_last_failure() == nil then
    ngx_balancer.set_more_tries(math_min(count, MAX_TRIES) - 1)
  end
  return use_peer(peers[next_in_turn(backend, count)])
end

return _M
