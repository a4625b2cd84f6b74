-- Response header rewrites of the header filter, as nginx's proxy_redirect (a Location or
-- Refresh starting with `from`), proxy_cookie_domain (a Set-Cookie Domain equal to `from`,
-- ignoring case and a leading dot) and proxy_cookie_path (a Set-Cookie Path starting with `from`)
-- do with literal values.

local ngx = ngx
local ngx_header = ngx.header
local type = type
local str_sub = string.sub
local str_lower = string.lower
local str_find = string.find
local re_gsub = ngx.re.gsub

local _M = {}

local function starts_with(text, prefix)
  return str_sub(text, 1, #prefix) == prefix
end

-- Location: the value itself; Refresh: the URL after "url=".
local function rewrite_location(pair)
  local location = ngx_header["Location"]
  if type(location) == "string" and starts_with(location, pair[1]) then
    ngx_header["Location"] = pair[2] .. str_sub(location, #pair[1] + 1)
  end
  local refresh = ngx_header["Refresh"]
  if type(refresh) == "string" then
    local _, url_start = str_find(refresh, "url=", 1, true)
    if url_start and starts_with(str_sub(refresh, url_start + 1), pair[1]) then
      ngx_header["Refresh"] = str_sub(refresh, 1, url_start) .. pair[2] .. str_sub(refresh, url_start + 1 + #pair[1])
    end
  end
end

local function strip_dot(domain)
  if str_sub(domain, 1, 1) == "." then return str_sub(domain, 2) end
  return domain
end

local function rewrite_cookie(cookie, domain, path)
  if domain then
    cookie = re_gsub(cookie, [[(;\s*domain=)([^;]*)]], function(match)
      if str_lower(strip_dot(match[2])) == str_lower(strip_dot(domain[1])) then return match[1] .. domain[2] end
      return match[0]
    end, "ijo")
  end
  if path then
    cookie = re_gsub(cookie, [[(;\s*path=)([^;]*)]], function(match)
      if starts_with(match[2], path[1]) then return match[1] .. path[2] .. str_sub(match[2], #path[1] + 1) end
      return match[0]
    end, "ijo")
  end
  return cookie
end

-- Applies the route policy's rewrites to the response headers.
function _M.apply(policy)
  if policy.location then rewrite_location(policy.location) end
  local domain, path = policy.cookieDomain, policy.cookiePath
  if domain == nil and path == nil then return end
  local cookies = ngx_header["Set-Cookie"]
  if type(cookies) == "string" then
    ngx_header["Set-Cookie"] = rewrite_cookie(cookies, domain, path)
  elseif type(cookies) == "table" then
    for index = 1, #cookies do cookies[index] = rewrite_cookie(cookies[index], domain, path) end
    ngx_header["Set-Cookie"] = cookies
  end
end

return _M
