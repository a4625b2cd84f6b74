-- Whether a request goes to its route's canary (ingress-nginx canary annotations, route-model
-- CanaryRule): the header decides first, then the cookie, then the weight.

local ngx = ngx
local ngx_var = ngx.var
local re_find = ngx.re.find
local math_random = math.random

local _M = {}

-- true: the canary; false: the route's backends; nil: the header does not decide.
local function header_decision(header)
  -- $http_<name> is the first value of a header sent more than once.
  local value = ngx_var[header[1]]
  if value == nil then return nil end
  local mode = header[2]
  if mode == "value" then
    if value == header[3] then return true end
    return nil
  end
  if mode == "pattern" then
    local from, _, err = re_find(value, header[3], "jo")
    if from then return true end
    -- A pattern the validator compiled can still fail on a value (a match limit): no canary.
    if err then return false end
    return nil
  end
  if value == "always" then return true end
  if value == "never" then return false end
  return nil
end

function _M.is_canary_request(canary)
  local header = canary.header
  if header then
    local decided = header_decision(header)
    if decided ~= nil then return decided end
  end
  local cookie = canary.cookie
  if cookie then
    local value = ngx_var[cookie]
    if value == "always" then return true end
    if value == "never" then return false end
  end
  local weight = canary.weight
  if weight <= 0 then return false end
  return math_random() * canary.weightTotal < weight
end

return _M
