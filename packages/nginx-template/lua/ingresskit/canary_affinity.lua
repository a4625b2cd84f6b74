-- Where cookie session affinity and a canary meet (ingress-nginx affinity-canary-behavior), as
-- ingress-nginx's balancer decides: a client whose cookie pins it to the route's own backends
-- stays there; with sticky (the default) one pinned to the canary stays on the canary; anything
-- else goes by the canary's rule (header, cookie, weight). With legacy, canary requests get no
-- affinity: no cookie, and the canary's endpoints balanced as without it.

local canaries = require("ingresskit.canary")
local affinity = require("ingresskit.affinity")

local is_canary_request = canaries.is_canary_request
local pinned_side = affinity.pinned_side

local _M = {}

-- Whether the request goes to `canary`, given the route's affinity `sticky` (nil: none).
function _M.goes_to_canary(canary, sticky)
  if sticky then
    local side = pinned_side(sticky)
    if side == "main" then return false end
    if side == "canary" and not canary.legacyAffinity then return true end
  end
  return is_canary_request(canary)
end

-- Whether a request to the canary (`to_canary`) or the route's backends keeps session affinity.
function _M.is_pinned(canary, to_canary)
  return not (to_canary and canary.legacyAffinity)
end

return _M
